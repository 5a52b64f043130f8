#include "problem.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SEED_MAX INT64_MAX
/* rows beyond any memory: a case too large for this machine is refused by its verb (accuracy
 * measures the peak) with a message saying so */
#define ROWS_MAX (1LL << 40)
#define THREADS_MAX 4096

/* The flags in LN_OPT_ order, as the messages and the usage name them. */
static const char *const flag_names[] = {"--kernels", "--D", "--rows", "--eps", "--dist", "--seed", "--threads"};

/* Thread counts up to the CPUs this process may run on (the online ones, or fewer under an
 * affinity mask): two threads sharing a CPU would time the scheduler. */
static long long threads_max(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) < cpus) cpus = CPU_COUNT(&allowed);
    return cpus > 0 && cpus < THREADS_MAX ? cpus : THREADS_MAX;
}

/* The one message of a bad value: the flag, the value, what the flag takes. */
static _Noreturn void bad_value(int opt, const char *value, const char *takes)
{
    ln_die_usage("%s: '%s' is not %s", flag_names[opt - LN_OPT_KERNELS], value, takes);
}

static long long whole(int opt, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < min || v > max) {
        char takes[96];
        snprintf(takes, sizeof takes, "a whole number in [%lld, %lld]", min, max);
        bad_value(opt, s, takes);
    }
    return v;
}

static void range_of(const ln_problem_args *a, int opt, long long *min, long long *max)
{
    const ln_problem_spec *s = a->spec;
    *min = opt == LN_OPT_D ? s->D_min : opt == LN_OPT_SEED ? 0 : 1;
    *max = opt == LN_OPT_D ? s->D_max : opt == LN_OPT_ROWS ? ROWS_MAX : opt == LN_OPT_SEED ? SEED_MAX : threads_max();
}

/* A comma list of whole numbers in the flag's range. */
static size_t *counts(const ln_problem_args *a, int opt, const char *list, size_t *n)
{
    long long min, max;
    range_of(a, opt, &min, &max);
    char **items = ln_split_list(list, flag_names[opt - LN_OPT_KERNELS], n);
    size_t *v = malloc(*n * sizeof *v);
    if (!v) ln_die("out of memory");
    for (size_t i = 0; i < *n; i++) v[i] = (size_t)whole(opt, items[i], min, max);
    free(items);
    return v;
}

static double *epsilons(const char *list, size_t *n)
{
    char **items = ln_split_list(list, "--eps", n);
    double *v = malloc(*n * sizeof *v);
    if (!v) ln_die("out of memory");
    for (size_t i = 0; i < *n; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(items[i], &end);
        if (end == items[i] || *end || errno == ERANGE || !isfinite(v[i]) || !(v[i] >= 0))
            bad_value(LN_OPT_EPS, items[i], "a finite number >= 0");
    }
    free(items);
    return v;
}

static void free_dists(ln_problem_args *a)
{
    for (size_t i = 0; i < a->ndists; i++) ln_dist_free(&a->dists[i]);
    free(a->dists);
    a->dists = NULL, a->ndists = 0;
}

/* Replaces the values of opt with those of value. */
static void set(ln_problem_args *a, int opt, const char *value)
{
    switch (opt) {
    case LN_OPT_KERNELS: a->kernels = value; break;
    case LN_OPT_D: free(a->D), a->D = counts(a, opt, value, &a->nD); break;
    case LN_OPT_ROWS: free(a->rows), a->rows = counts(a, opt, value, &a->nrows); break;
    case LN_OPT_THREADS: free(a->threads), a->threads = counts(a, opt, value, &a->nthreads); break;
    case LN_OPT_EPS: free(a->eps), a->eps = epsilons(value, &a->neps); break;
    case LN_OPT_SEED: {
        long long min, max;
        range_of(a, opt, &min, &max);
        a->seed = (uint64_t)whole(opt, value, min, max);
        break;
    }
    case LN_OPT_DIST: {
        free_dists(a);
        char **items = ln_split_list(value, "--dist", &a->ndists);
        if (!(a->dists = calloc(a->ndists, sizeof *a->dists))) ln_die("out of memory");
        for (size_t i = 0; i < a->ndists; i++) ln_dist_parse(items[i], &a->dists[i]);
        free(items);
        break;
    }
    }
}

void ln_problem_args_init(ln_problem_args *a, const ln_problem_spec *spec)
{
    *a = (ln_problem_args){.spec = spec, .seed = 1};
    const char *def[] = {spec->kernels, spec->D, spec->rows, spec->eps, spec->dist, spec->seed, spec->threads};
    for (int opt = LN_OPT_D; opt < LN_OPT_END; opt++) /* --kernels: its default is ln_problem_kernels' */
        if ((spec->takes & LN_TAKES(opt)) && def[opt - LN_OPT_KERNELS]) set(a, opt, def[opt - LN_OPT_KERNELS]);
}

void ln_problem_args_free(ln_problem_args *a)
{
    free(a->D), free(a->rows), free(a->threads), free(a->eps);
    free_dists(a);
    *a = (ln_problem_args){0};
}

int ln_problem_arg(ln_problem_args *a, int opt, const char *value)
{
    if (opt < LN_OPT_KERNELS || opt >= LN_OPT_END) return 0;
    if (!(a->spec->takes & LN_TAKES(opt)))
        ln_die_usage("%s: %s is not a flag of %s; see 'lnbench %s --help'", a->spec->verb,
                     flag_names[opt - LN_OPT_KERNELS], a->spec->verb, a->spec->verb);
    set(a, opt, value);
    a->given |= LN_TAKES(opt);
    return 1;
}

size_t ln_problem_kernels(const ln_problem_args *a, const ln_kernel ***out)
{
    size_t n = ln_select_kernels(a->kernels ? a->kernels : "*", out, 0);
    if (n == 0) ln_die_usage("--kernels: none of the selected %s kernels runs on this CPU", ln_op_name(ln_cli_op));
    return n;
}

ln_problem ln_problem_at(const ln_problem_args *a, ln_dtype t, size_t iD, size_t irows, size_t ieps, size_t idist,
                         size_t ithreads)
{
    ln_problem p = {.op = ln_cli_op,
                    .dtype = t,
                    .D = a->nD ? a->D[iD] : 0,
                    .rows = a->nrows ? a->rows[irows] : 1,
                    .eps = a->neps ? a->eps[ieps] : 0,
                    .seed = a->seed,
                    .threads = a->nthreads ? (int)a->threads[ithreads] : 1};
    if (a->ndists) p.dist = a->dists[idist];
    if (a->ndists && p.dist.kind == LN_DIST_FILE) p.D = p.dist.file_D, p.rows = p.dist.file_rows;
    return p;
}

/* One flag's usage line: the flag, what it takes, its default when it has one. */
static void line(FILE *f, const char *flag, const char *text, const char *def)
{
    fprintf(f, "  %-15s %s", flag, text);
    if (def) fprintf(f, " (default: %s)", def);
    fputc('\n', f);
}

void ln_problem_usage(FILE *f, const ln_problem_spec *s)
{
    long long tmax = threads_max();
    char range[64];
#define TAKES(opt) (s->takes & LN_TAKES(opt))
    if (TAKES(LN_OPT_KERNELS))
        line(f, "--kernels LIST", "kernel names or globs, comma-separated",
             s->kernels ? s->kernels : "every kernel this CPU runs");
    fprintf(f, "  %-15s the operator of the kernels (default: %s):\n  %-15s %s\n", "--op OP", ln_op_name(0), "",
            ln_op_list());
    if (TAKES(LN_OPT_D)) {
        snprintf(range, sizeof range, "row lengths, comma-separated, in [%lld, %lld]", s->D_min, s->D_max);
        line(f, "--D LIST", range, s->D);
    }
    if (TAKES(LN_OPT_ROWS)) {
        snprintf(range, sizeof range, "rows per case, comma-separated, in [1, %lld]", ROWS_MAX);
        line(f, "--rows LIST", range, s->rows);
        if (s->rows_note) fprintf(f, "  %-15s %s\n", "", s->rows_note);
    }
    if (TAKES(LN_OPT_EPS)) line(f, "--eps LIST", "epsilons added to the variance, comma-separated, >= 0", s->eps);
    if (TAKES(LN_OPT_DIST)) {
        line(f, "--dist LIST", "input distributions, comma-separated", s->dist);
        fprintf(f, "  %-15s %s\n", "", ln_dist_names);
        fprintf(f, "  %-15s %s\n", "", "(file:PATH: a 2-D float32/float64 .npy whose shape fixes rows x D)");
    }
    if (TAKES(LN_OPT_SEED)) line(f, "--seed N", "seed of the inputs and of gamma/beta, in [0, 2^63 - 1]", s->seed);
    if (TAKES(LN_OPT_THREADS)) {
        snprintf(range, sizeof range, "threads per call, each on its own CPU, in [1, %lld]", tmax);
        line(f, "--threads LIST", range, s->threads);
    }
#undef TAKES
}

void ln_problem_help(FILE *f, const char *before, const ln_problem_spec *spec, const char *after)
{
    fputs(before, f);
    ln_problem_usage(f, spec);
    fputs(after, f);
}
