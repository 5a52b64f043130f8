/* lnbench bench: times every selected kernel on every shape with Google Benchmark, beside
 * streaming probes of the same size, and writes results/bench.json (Google Benchmark's own
 * JSON) and results/bench.csv (one row per kernel and shape, medians over repetitions). */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_plan.h"
#include "bench_rows.h"
#include "bench_run.h"
#include "bench_stats.h"
#include "cli.h"
#include "keep.h"
#include "gbench.h"
#include "meta.h"
#include "outfile.h"
#include "problem.h"
#include "results.h"
#include "tuning.h"
#include "verbs.h"

static const char bench_help[] =
    "usage: lnbench bench [options] [--benchmark_*=VALUE ...]\n"
    "Times each kernel x shape with Google Benchmark, beside streaming probes of the same size\n"
    "(probe-copy: read x, write y = a*x + b with ordinary stores; probe-stream: non-temporal\n"
    "stores; beside 16-bit kernels also probe-copy-16, probe-stream-16 on fp16 storage), and\n"
    "reports GB/s (x read + y written, 1e9 B/s), rows/s and each kernel's fraction of the\n"
    "probe-copy rate of its element size (bw_fraction). Every case at each --threads count, the\n"
    "rows (the probes their arrays) split over the threads.\n";
static const char bench_help_more[] =
    "  --bytes LIST     sizes of x, K/M/G suffixes; rows = size / (D x element size)\n"
    "                   (default 1M,256M: cache-resident and memory-resident)\n"
    "  --max-call-seconds S  skip a case whose one call would take over S seconds, judged from\n"
    "                   the same kernel's rate at the next smaller size (default 0: no limit)\n"
    "  --quiet          no Google Benchmark console report and no table (a progress line on\n"
    "                   a terminal); the files are the same\n"
    "  --tuning FILE    run each kernel with the tunables FILE chose for its D, regime and thread\n"
    "                   count (written by lnbench tune on this machine; docs/tune.md); cases it has\n"
    "                   no entry for keep the defaults; bench.csv's params column says which ran\n"
    "  --every-input    give every optional input: RMSNorm's and add-rmsnorm's beta too, which\n"
    "                   by default they run without, as LLMs run them (accuracy covers it either\n"
    "                   way; bench.csv's affine_bytes says what each kernel read)\n"
    "  --out PATH       the CSV (default results/bench.csv); the JSON goes beside it as .json\n"
    "  --force          replace results/bench.csv when --out is not given (else kept: exit 2)\n"
    "                   unless --benchmark_out=PATH says otherwise, the metadata to PATH.meta.json\n"
    "Every --benchmark_* flag goes to Google Benchmark 1.7.1, e.g. --benchmark_filter=REGEX,\n"
    "--benchmark_min_time=0.2 (seconds, no suffix), --benchmark_repetitions=N,\n"
    "--benchmark_enable_random_interleaving=true. Defaults here: 5 repetitions, min time 0.05 s,\n"
    "aggregates only on the console. The probes always run, whatever the filter; a filter that\n"
    "leaves no kernel benchmark exits 2.\n";

static const ln_problem_spec bench_problem = {
    .verb = "bench",
    .takes = LN_TAKES(LN_OPT_KERNELS) | LN_TAKES(LN_OPT_D) | LN_TAKES(LN_OPT_ROWS) | LN_TAKES(LN_OPT_EPS) |
             LN_TAKES(LN_OPT_DIST) | LN_TAKES(LN_OPT_SEED) | LN_TAKES(LN_OPT_THREADS),
    .D_min = 1,
    .D_max = 1 << 24,
    .D = "768,1024,4096,8192,16384",
    .eps = "1e-5",
    .dist = "normal",
    .seed = "1",
    .threads = "1",
    .rows_note = "instead of --bytes"};

/* Google Benchmark's part of the command line. */
typedef struct {
    char **argv; /* room for two more flags */
    int argc;
    const char *json_path; /* --benchmark_out, or NULL */
    int listing;           /* --benchmark_list_tests: names only, no files */
    char *filter_flag;     /* the user's --benchmark_filter, extended to keep the probes */
    char *out_flag;
} gb_flags;

static void gb_flags_free(gb_flags *g) { free(g->argv), free(g->filter_flag), free(g->out_flag); }

/* Splits argv: --benchmark_* flags go to Google Benchmark (after this verb's defaults, so the
 * user's win), the output path among them is taken here; the rest stays for getopt. */
static void split_gbench_flags(int *argc, char **argv, gb_flags *g)
{
    static char prog[] = "lnbench bench";
    static char *defaults[] = {"--benchmark_repetitions=5", "--benchmark_min_time=0.05",
                               "--benchmark_display_aggregates_only=true"};
    size_t ndef = sizeof defaults / sizeof defaults[0];
    char **gb = malloc((*argc + ndef + 4) * sizeof *gb);
    if (!gb) ln_die("out of memory");
    int n = 0, kept = 0;
    gb[n++] = prog;
    for (size_t i = 0; i < ndef; i++) gb[n++] = defaults[i];
    for (int i = 0; i < *argc; i++) {
        char *a = argv[i];
        if (i == 0 || strncmp(a, "--benchmark_", 12) != 0) {
            argv[kept++] = a;
        } else if (!strncmp(a, "--benchmark_out=", 16)) {
            g->json_path = a + 16;
        } else if (!strncmp(a, "--benchmark_out_format=", 23)) {
            if (strcmp(a + 23, "json") != 0)
                ln_die_usage("bench: --benchmark_out_format: only json (the CSV is written by lnbench)");
        } else if (!strncmp(a, "--benchmark_filter=", 19) && a[19] && a[19] != '-' && strcmp(a + 19, "all")) {
            /* the probes run whatever the filter, so that every kernel gets its bw_fraction */
            free(g->filter_flag);
            if (!(g->filter_flag = malloc(strlen(a) + 16))) ln_die("out of memory");
            sprintf(g->filter_flag, "--benchmark_filter=(%s)|^probe-", a + 19);
            gb[n++] = g->filter_flag;
        } else {
            /* Google Benchmark answers a bad format with its help text and status 0 */
            const char *f = !strncmp(a, "--benchmark_format=", 19) ? a + 19 : NULL;
            if (f && strcmp(f, "console") && strcmp(f, "json") && strcmp(f, "csv"))
                ln_die_usage("bench: --benchmark_format: '%s' is not console, json or csv", f);
            if (!strncmp(a, "--benchmark_list_tests", 22) && strcmp(a, "--benchmark_list_tests=false") &&
                strcmp(a, "--benchmark_list_tests=0"))
                g->listing = 1;
            gb[n++] = a;
        }
    }
    *argc = kept;
    argv[kept] = NULL;
    g->argv = gb;
    g->argc = n;
}

/* Google Benchmark's context gets the same metadata as the sidecar file (but the date, which
 * Google Benchmark writes itself). */
static void add_context_field(void *ctx, const char *key, const char *value, int quoted)
{
    (void)ctx, (void)quoted;
    if (strcmp(key, "date") != 0) ln_gb_add_context(key, value);
}

/* Kernel cases the filter leaves to run (a filter that matches no name runs probes alone). */
static size_t kernel_cases_selected(const ln_bench_case *cases, size_t ncases)
{
    size_t n = 0;
    for (size_t i = 0; i < ncases; i++)
        n += cases[i].what == LN_BENCH_KERNEL && ln_gb_filter_selects(cases[i].run_name) != 0;
    return n;
}

/* Sets the params of each kernel case that the tuning file at path has an entry for (a malloc'ed
 * block that *owned points to); returns the note for the metadata ("" when nothing applied).
 * A file that cannot be read, or that gives a kernel a tunable or value it lacks, exits 2. */
static const char *apply_tuning(const char *path, ln_bench_case *cases, size_t ncases, int **owned, int quiet)
{
    static char note[600];
    ln_tuning t;
    char err[600];
    const char *why;
    note[0] = 0;
    if (ln_tuning_read(path, &t, err, sizeof err) != 0) ln_die_usage("--tuning: %s", err);
    if (!ln_tuning_for_this_machine(&t, &why)) {
        fprintf(stderr, "lnbench bench: --tuning %s was made on another machine (its %s differs): not applied\n", path,
                why);
        ln_tuning_free(&t);
        return note;
    }
    size_t nk = 0, applied = 0, used = 0, kernel_cases = 0;
    for (size_t i = 0; i < ncases; i++) {
        kernel_cases += cases[i].what == LN_BENCH_KERNEL;
        nk += cases[i].what == LN_BENCH_KERNEL ? cases[i].k->n_tunables : 0;
    }
    if (!(*owned = malloc((nk ? nk : 1) * sizeof **owned))) ln_die("out of memory");
    for (size_t i = 0; i < ncases; i++) {
        ln_bench_case *c = &cases[i];
        if (c->what != LN_BENCH_KERNEL) continue;
        const ln_tuning_entry *e = ln_tuning_find(&t, c->k->name, c->k->op, ln_bench_regime(c->size), c->threads, c->D);
        if (!e || !c->k->n_tunables) continue;
        if (ln_tuning_params(e, c->k, *owned + used, err, sizeof err) != 0) {
            free(*owned), ln_tuning_free(&t);
            ln_die_usage("--tuning %s: %s", path, err);
        }
        c->params = *owned + used;
        used += c->k->n_tunables;
        applied++;
    }
    snprintf(note, sizeof note, "%s (tuned %s, commit %s; %zu of %zu kernel cases)", path, t.date, t.git_commit,
             applied, kernel_cases);
    if (!quiet || isatty(STDOUT_FILENO))
        printf("bench: tuning %s: tuned parameters for %zu of %zu kernel cases, the rest at their defaults\n", path,
               applied, kernel_cases);
    ln_tuning_free(&t);
    return note;
}

/* The CSV, the metadata sidecar, the warnings and the closing line, from the collected runs. */
static void write_results(const ln_bench_case *cases, size_t ncases, const ln_gb_result *res, size_t nres,
                          ln_outfile *csv, const char *out, const char *json_path, const ln_bench_run_options *ro,
                          uint64_t seed, int argc, char **argv, const char *tuning)
{
    ln_bench_stats *st = calloc(ncases, sizeof *st);
    int *ran = calloc(ncases, sizeof *ran);
    char *meta_path = malloc(strlen(out) + 16);
    if (!st || !ran || !meta_path) ln_die("out of memory");
    for (size_t i = 0; i < ncases; i++) ran[i] = ln_bench_stats_of(res, nres, &cases[i], &st[i]);
    ln_bench_results r = {.cases = cases,
                          .ncases = ncases,
                          .stats = st,
                          .ran = ran,
                          .quiet = ro->quiet,
                          .max_call_seconds = ro->max_call_seconds};
    size_t rows_written = ln_bench_write_rows(csv->f, &r);
    ln_out_commit(csv);
    sprintf(meta_path, "%s.meta.json", out);
    ln_outfile meta;
    ln_out_open(&meta, meta_path);
    ln_meta_write_json_extra(meta.f, seed, argc, argv, *tuning ? "tuning" : NULL, tuning);
    fputc('\n', meta.f);
    ln_out_commit(&meta);
    ln_bench_warn(&r, rows_written);
    printf("\nwrote %s (%zu rows), %s, %s\n", out, rows_written, json_path, meta_path);
    free(meta_path), free(st), free(ran);
}

int cmd_bench(int argc, char **argv)
{
    /* The command line for the metadata, before the flags are split off; main passes argv + 1,
     * so argv[-1] is the program. */
    int orig_argc = argc + 1;
    char **orig_argv = malloc((argc + 2) * sizeof *orig_argv);
    if (!orig_argv) ln_die("out of memory");
    memcpy(orig_argv, argv - 1, (argc + 2) * sizeof *argv);

    gb_flags gbf = {0};
    split_gbench_flags(&argc, argv, &gbf);

    static const struct option opts[] = {LN_PROBLEM_OPTIONS,
                                         {"bytes", required_argument, 0, 'b'},
                                         {"out", required_argument, 0, 'o'},
                                         {"max-call-seconds", required_argument, 0, 'm'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"tuning", required_argument, 0, 'T'},
                                         {"force", no_argument, 0, 'F'},
                                         {"every-input", no_argument, 0, 'E'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *bytes_list = NULL, *out = "results/bench.csv", *tuning_path = NULL;
    ln_bench_run_options ro = {0};
    ln_problem_args pa;
    ln_problem_args_init(&pa, &bench_problem);
    int c, out_given = 0, force = 0, every_input = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'b': bytes_list = optarg; break;
        case 'o': out = optarg, out_given = 1; break;
        case 'F': force = 1; break;
        case 'E': every_input = 1; break;
        case 'm':
            if ((ro.max_call_seconds = ln_parse_double(optarg, "--max-call-seconds")) < 0)
                ln_die_usage("--max-call-seconds: '%s' is negative", optarg);
            break;
        case 'q': ro.quiet = 1; break;
        case 'T': tuning_path = optarg; break;
        case 'h':
            ln_problem_help(stdout, bench_help, &bench_problem, bench_help_more);
            ln_problem_args_free(&pa);
            gb_flags_free(&gbf), free(orig_argv); /* so the leak checker keeps status 0 */
            return 0;
        default:
            if (!ln_problem_arg(&pa, c, optarg)) ln_die_usage("bench: see 'lnbench bench --help'");
        }
    }
    if (optind < argc) ln_die_usage("bench: unexpected argument '%s'", argv[optind]);
    int rows_given = (pa.given & LN_TAKES(LN_OPT_ROWS)) != 0;
    if (bytes_list && rows_given) ln_die_usage("bench: give --bytes or --rows, not both");
    if (!bytes_list && !rows_given) bytes_list = "1M,256M";

    ln_bench_grid g = {.sizes_are_bytes = bytes_list != NULL,
                       .seed = pa.seed,
                       .every_input = every_input,
                       .threads = pa.threads,
                       .nthreads = pa.nthreads,
                       .D = pa.D,
                       .nD = pa.nD,
                       .dists = pa.dists,
                       .ndists = pa.ndists,
                       .eps = pa.eps,
                       .neps = pa.neps};
    g.nkernels = ln_problem_kernels(&pa, &g.kernels);
    size_t *sizes = bytes_list ? ln_parse_sizes(bytes_list, &g.nsizes) : NULL;
    g.sizes = bytes_list ? sizes : pa.rows, g.nsizes = bytes_list ? g.nsizes : pa.nrows;
    size_t ncases;
    ln_bench_case *cases = ln_bench_plan(&g, &ncases);
    int *tuned_params = NULL;
    const char *tuning = tuning_path ? apply_tuning(tuning_path, cases, ncases, &tuned_params, ro.quiet) : "";
    ln_print_skip_note(); /* the arguments are good: now the kernels left out */

    /* The output files first (an unwritable path stops the run before any work); Google
     * Benchmark writes its JSON into the temporary file, and the rename makes it whole. */
    char *json_default = gbf.json_path ? NULL : ln_json_beside(out);
    const char *json_path = gbf.json_path ? gbf.json_path : json_default;
    ln_outfile csv, json;
    char out_format[] = "--benchmark_out_format=json";
    if (!gbf.listing) {
        ln_keep_results("bench", out, out_given, force);
        ln_out_open(&csv, out);
        ln_out_open(&json, json_path);
        if (!(gbf.out_flag = malloc(strlen(json.tmp) + 20))) ln_die("out of memory");
        sprintf(gbf.out_flag, "--benchmark_out=%s", json.tmp);
        gbf.argv[gbf.argc++] = gbf.out_flag;
        gbf.argv[gbf.argc++] = out_format;
    }
    gbf.argv[gbf.argc] = NULL;
    ln_gb_init(&gbf.argc, gbf.argv);
    size_t nkernel_cases = 0;
    for (size_t i = 0; i < ncases; i++) nkernel_cases += cases[i].what == LN_BENCH_KERNEL;
    if (gbf.argc > 1 || kernel_cases_selected(cases, ncases) == 0) {
        if (!gbf.listing) ln_out_abort(&csv), ln_out_abort(&json);
        free(cases), free(tuned_params); /* so the leak checker keeps exit status 2 */
        if (gbf.argc > 1) {
            ln_gb_unrecognized(gbf.argc, gbf.argv);
            ln_die_usage("bench: unknown --benchmark_* flag or bad value: '%s' (Google Benchmark 1.7.1 flags; "
                         "--benchmark_min_time takes plain seconds, e.g. 0.1)",
                         gbf.argv[1]);
        }
        if (nkernel_cases == 0) ln_die_usage("bench: no kernel benchmark to run");
        ln_die_usage("bench: no kernel benchmark to run: --benchmark_filter selects none of the %zu kernel "
                     "benchmarks (their names: add --benchmark_list_tests=true)",
                     nkernel_cases);
    }

    if (ln_emulator())
        fprintf(stderr,
                "lnbench: warning: running under an emulator (%s): these timings measure the emulator, not "
                "this architecture's CPU; the accuracy results stand\n",
                ln_emulator());
    ln_meta_fields(pa.seed, orig_argc, orig_argv, add_context_field, NULL);
    ln_gb_add_context("lnbench_bytes_counted", "x read + y written per call; gamma and beta excluded");
    if (*tuning) ln_gb_add_context("lnbench_tuning", tuning);
    ln_gb_result *res;
    size_t nres = ln_bench_run(cases, ncases, &ro, &res);
    if (!gbf.listing) {
        if (nres == 0)
            ln_die("bench: no benchmark ran (does --benchmark_filter match any? see --benchmark_list_tests=true)");
        ln_out_commit(&json);
        write_results(cases, ncases, res, nres, &csv, out, json_path, &ro, pa.seed, orig_argc, orig_argv, tuning);
    }

    free(res), free(cases), free(tuned_params), free(json_default);
    free(sizes), free(g.kernels);
    ln_problem_args_free(&pa);
    gb_flags_free(&gbf), free(orig_argv);
    return 0;
}
