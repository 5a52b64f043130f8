/* lnbench bench: times every selected kernel on every shape with Google Benchmark, beside
 * streaming probes of the same size, and writes results/bench.json (Google Benchmark's own
 * JSON) and results/bench.csv (one row per kernel and shape, medians over repetitions). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "dist.h"
#include "gbench.h"
#include "kernel.h"
#include "meta.h"
#include "outfile.h"
#include "probe.h"
#include "verbs.h"

static const char bench_help[] =
    "usage: lnbench bench [options] [--benchmark_*=VALUE ...]\n"
    "Times each kernel x shape with Google Benchmark, beside streaming probes of the same size\n"
    "(probe-copy: read x, write y = a*x + b with ordinary stores; probe-stream: non-temporal\n"
    "stores), and reports GB/s (x read + y written, 1e9 B/s), rows/s and each kernel's fraction\n"
    "of the probe-copy rate (bw_fraction).\n"
    "  --kernels LIST   names or globs, comma-separated (default: every kernel this CPU runs)\n"
    "  --D LIST         row lengths (default 768,1024,4096,8192,16384)\n"
    "  --bytes LIST     sizes of x, K/M/G suffixes; rows = size / (D x element size)\n"
    "                   (default 1M,256M: cache-resident and memory-resident)\n"
    "  --rows LIST      row counts instead of --bytes\n"
    "  --dist LIST      input distributions, as for accuracy (default normal)\n"
    "  --eps LIST       epsilons (default 1e-5)\n"
    "  --seed N         seed of the inputs (default 1)\n"
    "  --threads N      threads per kernel call; only 1 for now\n"
    "  --max-call-seconds S  skip a case whose one call would take over S seconds, judged from\n"
    "                   the same kernel's rate at the next smaller size (default 0: no limit)\n"
    "  --quiet          no Google Benchmark console report and no table (a progress line on\n"
    "                   a terminal); the files are the same\n"
    "  --out PATH       the CSV (default results/bench.csv); the JSON goes beside it as .json\n"
    "                   unless --benchmark_out=PATH says otherwise, the metadata to PATH.meta.json\n"
    "Every --benchmark_* flag goes to Google Benchmark 1.7.1, e.g. --benchmark_filter=REGEX,\n"
    "--benchmark_min_time=0.2 (seconds, no suffix), --benchmark_repetitions=N,\n"
    "--benchmark_enable_random_interleaving=true. Defaults here: 5 repetitions, min time 0.05 s,\n"
    "aggregates only on the console. The probes always run, whatever the filter.\n";

/* Inputs up to this are called cache-resident, from MEMORY_BYTES memory-resident (x alone;
 * y is as large again). Measured on the project's VMs: the copy probe holds its in-cache rate
 * to a few MiB, is halfway down at 16 MiB and at its memory rate from 64 MiB. */
#define CACHE_BYTES (8u << 20)
#define MEMORY_BYTES (64u << 20)
/* Rows generated from the distribution per fill; larger inputs repeat them (speed does not
 * depend on which rows follow which, and a 256 MiB fill stays a memcpy). */
#define FILL_BLOCK_BYTES (4u << 20)
#define CV_WARNING 0.05
#define CPU_SHARE_WARNING 0.8

enum { KERNEL, PROBE_COPY, PROBE_STREAM };

typedef struct bench_case {
    int what;                 /* KERNEL or a probe */
    const char *label;        /* the kernel's name, or probe-copy, probe-stream */
    const ln_kernel *k;
    ln_dtype dtype;
    size_t D, rows, xbytes;   /* for a probe: D = floats, rows = 1 */
    size_t size;              /* the size asked for (--bytes, or x's size with --rows) */
    const ln_dist *dist;
    double eps;
    uint64_t seed;
    char name[256];           /* as registered, e.g. f32-twopass-scalar/D:4096/rows:64 */
    char run_name[272];       /* as reported: Google Benchmark appends /real_time */
    const struct bench_case *smaller; /* same kernel, D, dist, eps at the next smaller size */
    double predicted_s;       /* > 0: skipped, one call predicted to take this long */
    size_t index;             /* in run order, for the progress line */
} bench_case;

/* --max-call-seconds: a case whose single call is predicted (from its rate at a smaller size)
 * to exceed this is skipped; 0 = no limit. */
static double max_call_seconds;
/* --quiet: no Google Benchmark report and no table, a progress line on a terminal instead. */
static int quiet;
static size_t total_cases;
/* The user's --benchmark_filter, extended to keep the probes. */
static char *filter_flag;

/* One set of buffers for every case: allocated once at the largest size, touched once, and
 * refilled only when the case to run needs other data. */
static struct {
    void *x, *y, *gamma, *beta;
    size_t bytes, affine_bytes;
    const bench_case *filled_for;
} pool;

/* "1M", "256M", "64K", or the plain number when no suffix divides it. */
static const char *size_name(size_t bytes, char *buf, size_t len)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        size_t unit = (size_t)1 << (10 * (3 - i));
        if (bytes % unit == 0) return snprintf(buf, len, "%zu%c", bytes / unit, suffix[i]), buf;
    }
    snprintf(buf, len, "%zu", bytes);
    return buf;
}

/* The two probes of size `size` (x's bytes), unless cases[first..n) has them already. */
static void add_probes(bench_case *cases, size_t *n, size_t first, size_t size)
{
    for (size_t q = first; q < *n; q++)
        if (cases[q].what == PROBE_COPY && cases[q].size == size) return;
    for (int w = PROBE_COPY; w <= PROBE_STREAM; w++) {
        bench_case *pc = &cases[(*n)++];
        char sz[32];
        *pc = (bench_case){.what = w, .label = w == PROBE_COPY ? "probe-copy" : "probe-stream", .dtype = LN_F32,
                           .D = size / sizeof(float), .rows = 1, .size = size};
        pc->xbytes = pc->D * sizeof(float);
        snprintf(pc->name, sizeof pc->name, "%s/bytes:%s", pc->label, size_name(size, sz, sizeof sz));
    }
}

static void *alloc_touched(size_t bytes)
{
    size_t align = bytes >= (2u << 20) ? (2u << 20) : 64;  /* whole huge pages for big arrays */
    bytes = (bytes + align - 1) / align * align;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0) ln_die("cannot allocate %zu bytes for the inputs", bytes);
#ifdef MADV_HUGEPAGE
    if (align > 64) madvise(p, bytes, MADV_HUGEPAGE); /* fewer TLB misses; a hint only */
#endif
    memset(p, 0, bytes);  /* fault every page in now, not inside a timed loop */
    return p;
}

static void pool_alloc(size_t bytes, size_t affine_bytes)
{
    pool.x = alloc_touched(bytes);
    pool.y = alloc_touched(bytes);
    pool.gamma = alloc_touched(affine_bytes);
    pool.beta = alloc_touched(affine_bytes);
    pool.bytes = bytes;
    pool.affine_bytes = affine_bytes;
}

static int same_inputs(const bench_case *a, const bench_case *b)
{
    if (a->what != KERNEL || b->what != KERNEL) return a->what != KERNEL && b->what != KERNEL;
    return a->dtype == b->dtype && a->D == b->D && a->rows == b->rows && a->dist == b->dist && a->seed == b->seed;
}

static void fill_inputs(const bench_case *c)
{
    if (pool.filled_for && same_inputs(pool.filled_for, c)) return;
    if (c->what != KERNEL) {
        float *x = pool.x;
        for (size_t i = 0; i < pool.bytes / sizeof(float); i++) x[i] = 1.0f;
    } else {
        size_t row_bytes = c->D * ln_fmt(c->dtype)->size;
        size_t block = FILL_BLOCK_BYTES / row_bytes;
        block = block < 1 ? 1 : block > c->rows ? c->rows : block;
        ln_dist_fill(c->dist, c->dtype, block, c->D, c->seed, pool.x);
        for (size_t done = block; done < c->rows;) {
            size_t n = done < c->rows - done ? done : c->rows - done;
            memcpy((char *)pool.x + done * row_bytes, pool.x, n * row_bytes);
            done += n;
        }
        ln_affine_fill(c->dtype, c->D, c->seed, pool.gamma, pool.beta);
    }
    pool.filled_for = c;
}

typedef struct {
    double gbps, gbps_min, gbps_max, cv;  /* real time: medians (or the one run), extremes, CV */
    double gbps_cpu;                      /* median rate from CPU time */
    double real_ns, cpu_ns;               /* median per call */
    double rows_per_second;
    int reps;
} stats;

/* Medians, extremes and CV over the repetitions, or the single run's values (CV NaN). */
static int case_stats(const ln_gb_result *r, size_t n, const bench_case *c, stats *s)
{
    const ln_gb_result *med = ln_gb_find(r, n, c->run_name, "median");
    int single = !med;
    if (single) med = ln_gb_find(r, n, c->run_name, "");
    if (!med) return 0;
    s->reps = (int)med->repetitions;
    s->gbps = ln_gb_counter_value(med, "bytes_per_second") * 1e-9;
    s->rows_per_second = ln_gb_counter_value(med, "rows_per_second");
    s->gbps_min = single ? s->gbps : ln_gb_lookup(r, n, c->run_name, "min", "bytes_per_second") * 1e-9;
    s->gbps_max = single ? s->gbps : ln_gb_lookup(r, n, c->run_name, "max", "bytes_per_second") * 1e-9;
    s->cv = single ? NAN : ln_gb_lookup(r, n, c->run_name, "cv", "bytes_per_second");
    s->real_ns = med->real_ns;
    s->cpu_ns = med->cpu_ns;
    s->gbps_cpu = 2.0 * (double)c->xbytes / med->cpu_ns;
    return 1;
}

/* Whether c would take over --max-call-seconds per call, judged from the rate the same kernel
 * reached at the smaller size earlier in this run (slow kernels, such as emulated f16
 * arithmetic, are compute-bound: their rate hardly depends on the size). */
static int too_slow(bench_case *c)
{
    if (max_call_seconds <= 0 || c->what != KERNEL || !c->smaller) return 0;
    const ln_gb_result *r;
    size_t n = ln_gb_results_so_far(&r);
    stats s;
    /* from CPU time, so that other processes taking the CPU do not change what is skipped */
    if (!case_stats(r, n, c->smaller, &s) || !(s.gbps_cpu > 0)) return 0;
    double seconds = 2.0 * (double)c->xbytes / (s.gbps_cpu * 1e9);
    if (seconds <= max_call_seconds) return 0;
    c->predicted_s = seconds;
    return 1;
}

static void show_progress(const bench_case *c)
{
    static const bench_case *shown;
    if (!quiet || c == shown || !isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s", c->index + 1, total_cases, c->name);
    shown = c;
}

static void run_case(ln_gb_state *st, void *ctx)
{
    bench_case *c = ctx;
    show_progress(c);
    if (too_slow(c)) {
        char msg[160];
        snprintf(msg, sizeof msg, "skipped: one call would take ~%.1f s (> --max-call-seconds %g)", c->predicted_s,
                 max_call_seconds);
        ln_gb_skip_with_error(st, msg);
        return;
    }
    fill_inputs(c);
    if (c->what == KERNEL) {
        ln_args a = {.rows = c->rows, .D = c->D, .x = pool.x, .y = pool.y, .gamma = pool.gamma,
                     .beta = pool.beta, .eps = c->eps, .mean = NULL, .rstd = NULL};
        while (ln_gb_keep_running(st)) {
            c->k->forward(&a);
            ln_clobber_memory();
        }
    } else {
        void (*probe)(const float *, float *, size_t) = c->what == PROBE_COPY ? ln_probe_copy : ln_probe_stream;
        while (ln_gb_keep_running(st)) {
            probe(pool.x, pool.y, c->D);
            ln_clobber_memory();
        }
    }
    /* x read + y written, per call; gamma and beta (affine_bytes) are not counted */
    ln_gb_counter(st, "bytes_per_second", 2.0 * (double)c->xbytes, LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
    ln_gb_counter(st, "rows_per_second", (double)c->rows, LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
}

/* By the size asked for (x is rounded down to whole rows, a little under it). */
static const char *regime(size_t size)
{
    return size <= CACHE_BYTES ? "cache" : size >= MEMORY_BYTES ? "memory" : "mixed";
}

/* Google Benchmark's context gets the same metadata as the sidecar file: each "key": value
 * line of ln_meta_write_json becomes one entry (strings unquoted, other values as written). */
static void add_meta_context(uint64_t seed, int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) ln_die("out of memory");
    ln_meta_write_json(f, seed, argc, argv);
    fclose(f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *k = strchr(line, '"'), *ke = k ? strchr(k + 1, '"') : NULL;
        if (!ke || strncmp(ke, "\": ", 3) != 0) continue;
        *ke = 0;
        char *v = ke + 3;
        size_t n = strlen(v);
        if (n && v[n - 1] == ',') v[--n] = 0;
        if (n >= 2 && v[0] == '"' && v[n - 1] == '"') v[n - 1] = 0, v++;
        if (strcmp(k + 1, "date") != 0) ln_gb_add_context(k + 1, v);  /* Google Benchmark has date */
    }
    free(text);
    ln_gb_add_context("lnbench_bytes_counted", "x read + y written per call; gamma and beta excluded");
}

/* The CSV rows (and, unless quiet, the same as a table on stdout); returns the count. */
static size_t write_csv(FILE *f, const bench_case *cases, size_t ncases, const stats *st, const int *ran)
{
    fputs("kernel,dtype,D,rows,bytes,regime,dist,eps,threads,repetitions,ns_per_row,gbps,gbps_min,gbps_max,cv,"
          "bw_fraction,affine_bytes,gbps_cpu\n",
          f);
    if (!quiet) printf("\n%-44s %-6s %8s %8s %8s %6s %8s\n", "benchmark", "regime", "GB/s", "min", "max", "cv%", "bw_frac");
    size_t rows_written = 0;
    for (size_t i = 0; i < ncases; i++) {
        const bench_case *bc = &cases[i];
        if (!ran[i]) continue;
        double fraction = NAN;
        for (size_t q = 0; q < ncases; q++)
            if (cases[q].what == PROBE_COPY && cases[q].size == bc->size && ran[q]) fraction = st[i].gbps / st[q].gbps;
        const ln_format *fmt = ln_fmt(bc->dtype);
        fprintf(f, "%s,%s,%zu,%zu,%zu,%s,", bc->label, fmt->name, bc->D, bc->rows, bc->xbytes, regime(bc->size));
        if (bc->what == KERNEL) fprintf(f, "%s,%g,", bc->dist->spec, bc->eps);
        else fputs(",,", f);
        fprintf(f, "1,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%zu,%.6g\n", st[i].reps, 1e9 / st[i].rows_per_second,
                st[i].gbps, st[i].gbps_min, st[i].gbps_max, st[i].cv, fraction,
                bc->what == KERNEL ? 2 * bc->D * fmt->size : 0, st[i].gbps_cpu);
        if (!quiet)
            printf("%-44s %-6s %8.2f %8.2f %8.2f %6.1f %8.3f\n", bc->name, regime(bc->size), st[i].gbps,
                   st[i].gbps_min, st[i].gbps_max, 100 * st[i].cv, fraction);
        rows_written++;
    }
    return rows_written;
}

/* Noisy benchmarks (CV), benchmarks that did not have the CPU to themselves, skipped cases. */
static void print_warnings(const bench_case *cases, size_t ncases, const stats *st, const int *ran, size_t nrows)
{
    size_t noisy = 0, worst = 0;
    for (size_t i = 0; i < ncases; i++) {
        if (!ran[i] || !(st[i].cv > CV_WARNING)) continue;
        if (!noisy++ || st[i].cv > st[worst].cv) worst = i;
        if (!quiet)
            fprintf(stderr, "lnbench: warning: %s: CV %.1f%% over %d repetitions (> %.0f%%): the machine is noisy\n",
                    cases[i].name, 100 * st[i].cv, st[i].reps, 100 * CV_WARNING);
    }
    if (noisy)
        fprintf(stderr, "lnbench: warning: %zu of %zu benchmarks have a CV above %.0f%% (worst %s: %.1f%%): "
                "the machine is noisy; compare medians within one run\n",
                noisy, nrows, 100 * CV_WARNING, cases[worst].name, 100 * st[worst].cv);
    /* On a shared machine the wall clock also counts other processes' turns on the CPU. */
    size_t shared = 0, most_shared = 0;
    for (size_t i = 0; i < ncases; i++) {
        if (!ran[i] || !(st[i].cpu_ns < CPU_SHARE_WARNING * st[i].real_ns)) continue;
        if (!shared++ || st[i].cpu_ns / st[i].real_ns < st[most_shared].cpu_ns / st[most_shared].real_ns)
            most_shared = i;
    }
    if (shared)
        fprintf(stderr, "lnbench: warning: in %zu of %zu benchmarks the timed calls had the CPU less than %.0f%% of "
                "their wall time (least: %s, %.0f%%): other processes were running; gbps is low by that much, "
                "gbps_cpu (from CPU time) is not\n",
                shared, nrows, 100 * CPU_SHARE_WARNING, cases[most_shared].name,
                100 * st[most_shared].cpu_ns / st[most_shared].real_ns);
    for (size_t i = 0; i < ncases; i++) {
        if (!(cases[i].predicted_s > 0)) continue;
        if (!quiet) {
            printf("skipped %s: one call would take ~%.1f s (--max-call-seconds %g)\n", cases[i].name,
                   cases[i].predicted_s, max_call_seconds);
            continue;
        }
        /* quiet: one line per kernel, at its first skipped case */
        size_t count = 0, first = i;
        double longest = 0;
        for (size_t j = 0; j < ncases; j++)
            if (cases[j].predicted_s > 0 && cases[j].k == cases[i].k) {
                if (!count++) first = j;
                longest = cases[j].predicted_s > longest ? cases[j].predicted_s : longest;
            }
        if (first == i)
            printf("skipped %zu case%s of %s: one call would take up to ~%.1f s (--max-call-seconds %g)\n", count,
                   count > 1 ? "s" : "", cases[i].label, longest, max_call_seconds);
    }
}

static size_t *parse_counts(const char *list, const char *what, long long max, size_t *count)
{
    char **items = ln_split_list(list, what, count);
    size_t *v = malloc(*count * sizeof *v);
    if (!v) ln_die("out of memory");
    for (size_t i = 0; i < *count; i++) v[i] = (size_t)ln_parse_int(items[i], what, 1, max);
    free(items);
    return v;
}

static size_t *parse_sizes(const char *list, size_t *count)
{
    char **items = ln_split_list(list, "--bytes", count);
    size_t *v = malloc(*count * sizeof *v);
    if (!v) ln_die("out of memory");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 1e15;
    for (size_t i = 0; i < *count; i++) {
        v[i] = ln_parse_size(items[i], "--bytes");
        if (v[i] < 64) ln_die_usage("--bytes: '%s' is below 64 bytes", items[i]);
        if (2.0 * (double)v[i] > 0.75 * memory)
            ln_die_usage("--bytes: '%s' for x (and as much for y) does not fit in this machine's memory", items[i]);
    }
    free(items);
    return v;
}

/* Splits argv: --benchmark_* flags go to Google Benchmark (after this verb's defaults, so the
 * user's win), the output path among them is taken here; the rest stays for getopt. The
 * returned array has room for two more flags. */
static char **split_gbench_flags(int *argc, char **argv, int *ngb, const char **json_path, int *listing)
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
            *json_path = a + 16;
        } else if (!strncmp(a, "--benchmark_out_format=", 23)) {
            if (strcmp(a + 23, "json") != 0)
                ln_die_usage("bench: --benchmark_out_format: only json (the CSV is written by lnbench)");
        } else if (!strncmp(a, "--benchmark_filter=", 19) && a[19] && a[19] != '-' && strcmp(a + 19, "all")) {
            /* the probes run whatever the filter, so that every kernel gets its bw_fraction */
            free(filter_flag);
            if (!(filter_flag = malloc(strlen(a) + 16))) ln_die("out of memory");
            sprintf(filter_flag, "--benchmark_filter=(%s)|^probe-", a + 19);
            gb[n++] = filter_flag;
        } else {
            /* Google Benchmark answers a bad format with its help text and status 0 */
            const char *f = !strncmp(a, "--benchmark_format=", 19) ? a + 19 : NULL;
            if (f && strcmp(f, "console") && strcmp(f, "json") && strcmp(f, "csv"))
                ln_die_usage("bench: --benchmark_format: '%s' is not console, json or csv", f);
            if (!strncmp(a, "--benchmark_list_tests", 22) && strcmp(a, "--benchmark_list_tests=false") &&
                strcmp(a, "--benchmark_list_tests=0"))
                *listing = 1;
            gb[n++] = a;
        }
    }
    *argc = kept;
    argv[kept] = NULL;
    *ngb = n;
    return gb;
}

int cmd_bench(int argc, char **argv)
{
    /* The command line for the metadata, before the flags are split off; main passes argv + 1,
     * so argv[-1] is the program. */
    int orig_argc = argc + 1;
    char **orig_argv = malloc((argc + 2) * sizeof *orig_argv);
    if (!orig_argv) ln_die("out of memory");
    memcpy(orig_argv, argv - 1, (argc + 2) * sizeof *argv);

    const char *json_path = NULL;
    int ngb, listing = 0;
    char **gb = split_gbench_flags(&argc, argv, &ngb, &json_path, &listing);

    static const struct option opts[] = {
        {"kernels", required_argument, 0, 'k'}, {"D", required_argument, 0, 'D'},
        {"bytes", required_argument, 0, 'b'},   {"rows", required_argument, 0, 'r'},
        {"dist", required_argument, 0, 'd'},    {"eps", required_argument, 0, 'e'},
        {"seed", required_argument, 0, 's'},    {"threads", required_argument, 0, 't'},
        {"out", required_argument, 0, 'o'},     {"max-call-seconds", required_argument, 0, 'm'},
        {"quiet", no_argument, 0, 'q'},       {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *kernels = "*", *Ds = "768,1024,4096,8192,16384", *bytes_list = NULL, *rows_list = NULL,
               *dists = "normal", *epss = "1e-5", *out = "results/bench.csv";
    uint64_t seed = 1;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k': kernels = optarg; break;
        case 'D': Ds = optarg; break;
        case 'b': bytes_list = optarg; break;
        case 'r': rows_list = optarg; break;
        case 'd': dists = optarg; break;
        case 'e': epss = optarg; break;
        case 's': seed = (uint64_t)ln_parse_int(optarg, "--seed", 0, INT64_MAX); break;
        case 't': {
            long long t = ln_parse_int(optarg, "--threads", 1, 4096);
            if (t != 1) ln_die_usage("--threads: only 1 thread per kernel call is supported for now (got %lld)", t);
            break;
        }
        case 'o': out = optarg; break;
        case 'm':
            if ((max_call_seconds = ln_parse_double(optarg, "--max-call-seconds")) < 0)
                ln_die_usage("--max-call-seconds: '%s' is negative", optarg);
            break;
        case 'q': quiet = 1; break;
        case 'h': return fputs(bench_help, stdout), 0;
        default: ln_die_usage("bench: see 'lnbench bench --help'");
        }
    }
    if (optind < argc) ln_die_usage("bench: unexpected argument '%s'", argv[optind]);
    if (bytes_list && rows_list) ln_die_usage("bench: give --bytes or --rows, not both");
    if (!bytes_list && !rows_list) bytes_list = "1M,256M";

    const ln_kernel **ks;
    size_t nk = ln_select_kernels(kernels, &ks, 0);
    if (nk == 0) ln_die_usage("bench: none of the kernels selected can run on this CPU");
    size_t nD, nsizes, ndist, neps;
    size_t *Dv = parse_counts(Ds, "--D", 1 << 24, &nD);
    size_t *sizes = bytes_list ? parse_sizes(bytes_list, &nsizes) : parse_counts(rows_list, "--rows", 1LL << 32, &nsizes);
    char **dist_specs = ln_split_list(dists, "--dist", &ndist);
    ln_dist *dv = malloc(ndist * sizeof *dv);
    char **eps_items = ln_split_list(epss, "--eps", &neps);
    double *ev = malloc(neps * sizeof *ev);
    if (!dv || !ev) ln_die("out of memory");
    for (size_t i = 0; i < ndist; i++) ln_dist_parse(dist_specs[i], &dv[i]);
    for (size_t i = 0; i < neps; i++)
        if ((ev[i] = ln_parse_double(eps_items[i], "--eps")) < 0) ln_die_usage("--eps: '%s' is negative", eps_items[i]);

    /* The cases, in run order: for each size its probes, then each D, dist, eps and kernel
     * (kernels.inc order keeps each dtype's kernels together: one fill of the inputs each). */
    size_t nkernel_cases = nsizes * nD * ndist * neps * nk;
    bench_case *cases = calloc(3 * nkernel_cases, sizeof *cases);
    if (!cases) ln_die("out of memory");
    size_t ncases = 0;
    for (size_t di = 0; di < ndist; di++)
        for (size_t d = 0; d < nD; d++)
            if (dv[di].kind == LN_DIST_FILE && dv[di].file_D != Dv[d])
                ln_die_usage("--D %zu: distribution '%s' has rows of %zu values", Dv[d], dv[di].spec, dv[di].file_D);
    for (size_t s = 0; s < nsizes; s++) {
        size_t first_of_size = ncases;
        for (size_t d = 0; d < nD; d++)
            for (size_t di = 0; di < ndist; di++)
                for (size_t e = 0; e < neps; e++)
                    for (size_t i = 0; i < nk; i++) {
                        size_t esize = ln_fmt(ks[i]->dtype)->size;
                        bench_case bc = {.what = KERNEL, .label = ks[i]->name, .k = ks[i], .dtype = ks[i]->dtype,
                                         .D = Dv[d], .dist = &dv[di], .eps = ev[e], .seed = seed};
                        bc.rows = bytes_list ? sizes[s] / (Dv[d] * esize) : sizes[s];
                        if (bc.rows == 0) bc.rows = 1;
                        bc.xbytes = bc.rows * Dv[d] * esize;
                        bc.size = bytes_list ? sizes[s] : bc.xbytes;
                        char *p = bc.name, *end = bc.name + sizeof bc.name;
                        p += snprintf(p, end - p, "%s/D:%zu/rows:%zu", bc.label, bc.D, bc.rows);
                        if (ndist > 1) p += snprintf(p, end - p, "/dist:%s", dv[di].spec);
                        if (neps > 1) snprintf(p, end - p, "/eps:%g", ev[e]);
                        add_probes(cases, &ncases, first_of_size, bc.size);
                        cases[ncases++] = bc;
                    }
    }
    for (size_t i = 0; i < ncases; i++)
        for (size_t j = 0; j < i; j++) {
            bench_case *a = &cases[i], *b = &cases[j];
            if (a->what == KERNEL && b->k == a->k && b->D == a->D && b->dist == a->dist && b->eps == a->eps &&
                b->xbytes < a->xbytes && (!a->smaller || b->xbytes > a->smaller->xbytes))
                a->smaller = b;
        }
    size_t pool_bytes = 64, max_D = 1;
    for (size_t i = 0; i < ncases; i++) {
        pool_bytes = cases[i].xbytes > pool_bytes ? cases[i].xbytes : pool_bytes;
        if (cases[i].what == KERNEL) max_D = cases[i].D > max_D ? cases[i].D : max_D;
    }

    /* The output files first (an unwritable path stops the run before any work); Google
     * Benchmark writes its JSON into the temporary file, and the rename makes it whole. */
    char *json_default = NULL;
    if (!json_path) {
        size_t n = strlen(out);
        json_default = malloc(n + 8);
        if (!json_default) ln_die("out of memory");
        memcpy(json_default, out, n + 1);
        if (n > 4 && !strcmp(out + n - 4, ".csv")) json_default[n - 4] = 0;
        strcat(json_default, ".json");
        json_path = json_default;
    }
    ln_outfile csv, json;
    char *out_flag = NULL, out_format[] = "--benchmark_out_format=json";
    if (!listing) {
        ln_out_open(&csv, out);
        ln_out_open(&json, json_path);
        out_flag = malloc(strlen(json.tmp) + 20);
        if (!out_flag) ln_die("out of memory");
        sprintf(out_flag, "--benchmark_out=%s", json.tmp);
        gb[ngb++] = out_flag;
        gb[ngb++] = out_format;
    }
    gb[ngb] = NULL;
    ln_gb_init(&ngb, gb);
    if (ngb > 1) {
        ln_gb_unrecognized(ngb, gb);
        ln_die_usage("bench: unknown --benchmark_* flag or bad value: '%s' (Google Benchmark 1.7.1 flags; "
                     "--benchmark_min_time takes plain seconds, e.g. 0.1)",
                     gb[1]);
    }

    pool_alloc(pool_bytes, max_D * sizeof(double));
    add_meta_context(seed, orig_argc, orig_argv);
    total_cases = ncases;
    ln_gb_set_display(!quiet);
    for (size_t i = 0; i < ncases; i++) {
        cases[i].index = i;
        snprintf(cases[i].run_name, sizeof cases[i].run_name, "%s/real_time", cases[i].name);
        ln_gb_bench *b = ln_gb_register(cases[i].name, run_case, &cases[i]);
        ln_gb_use_real_time(b);
        ln_gb_min_max_statistics(b);
    }
    ln_gb_result *res;
    size_t nres = ln_gb_run(&res);
    if (quiet && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
    if (!listing) {
        if (nres == 0) ln_die("bench: no benchmark ran (does --benchmark_filter match any? see --benchmark_list_tests=true)");
        ln_out_commit(&json);
        stats *st = calloc(ncases, sizeof *st);
        int *ran = calloc(ncases, sizeof *ran);
        char *meta_path = malloc(strlen(out) + 16);
        if (!st || !ran || !meta_path) ln_die("out of memory");
        for (size_t i = 0; i < ncases; i++) ran[i] = case_stats(res, nres, &cases[i], &st[i]);
        size_t rows_written = write_csv(csv.f, cases, ncases, st, ran);
        ln_out_commit(&csv);
        sprintf(meta_path, "%s.meta.json", out);
        ln_meta_write_file(meta_path, seed, orig_argc, orig_argv);
        print_warnings(cases, ncases, st, ran, rows_written);
        printf("\nwrote %s (%zu rows), %s, %s\n", out, rows_written, json_path, meta_path);
        free(meta_path), free(st), free(ran);
    }

    free(res), free(cases), free(json_default), free(out_flag);
    for (size_t i = 0; i < ndist; i++) ln_dist_free(&dv[i]);
    free(dv), free(ev), free(eps_items), free(dist_specs), free(Dv), free(sizes), free(ks), free(gb);
    free(orig_argv), free(filter_flag);
    return 0;
}
