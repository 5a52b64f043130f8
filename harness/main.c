/* lnbench: measures LayerNorm kernels for speed and for accuracy against an MPFR reference. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cpu.h"
#include "verbs.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *what;
} verbs[] = {
    {"list", cmd_list, "list every kernel, whether this CPU can run it, and how it computes"},
    {"accuracy", cmd_accuracy, "measure kernels against the MPFR reference: results/accuracy.csv"},
    {"stats", cmd_stats, "exact count, mean and variances of a file of decimal numbers"},
    {"bench", cmd_bench, "time kernels with Google Benchmark beside bandwidth probes: results/bench.{csv,json}"},
    {"summary", cmd_summary, "one line per kernel from results/bench.csv and results/accuracy.csv"},
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

static void usage(FILE *f)
{
    fputs("usage: lnbench VERB [options]     (lnbench VERB --help for a verb's options)\n\nverbs:\n", f);
    for (size_t i = 0; i < NVERBS; i++) fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].what);
    fputs("\nenvironment:\n"
          "  LNBENCH_ISA   cap the instruction sets kernels may use: scalar, avx2, avx512,\n"
          "                avx512bf16, avx512fp16, native (default)\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LN_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    const char *cap_error = ln_cpu_cap_error();
    if (cap_error) ln_die_usage("%s", cap_error);
    for (size_t i = 0; i < NVERBS; i++)
        if (!strcmp(argv[1], verbs[i].name)) return verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "lnbench: unknown verb '%s'; verbs:", argv[1]);
    for (size_t i = 0; i < NVERBS; i++) fprintf(stderr, " %s", verbs[i].name);
    fputc('\n', stderr);
    return LN_EXIT_USAGE;
}
