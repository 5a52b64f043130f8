/* A C interface to Google Benchmark (1.7.1), the one C++ file of the project (gbench.cc).
 *
 * Benchmarks are registered at run time as (name, C function, context pointer); the function
 * loops `while (ln_gb_keep_running(st)) { work; }` exactly like a C++ benchmark body. Results
 * are both printed by Google Benchmark's own display reporter (honouring --benchmark_format),
 * written to --benchmark_out if given, and collected in memory for the caller (ln_gb_run).
 */
#ifndef LN_GBENCH_H
#define LN_GBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ln_gb_state ln_gb_state; /* a benchmark::State */
typedef struct ln_gb_bench ln_gb_bench; /* a registered benchmark::internal::Benchmark */
typedef void (*ln_gb_fn)(ln_gb_state *st, void *ctx);

/* Parses and removes the --benchmark_* flags of argv (benchmark::Initialize); argv[0] is the
 * program name. Flags it does not know, or whose value it cannot parse, stay in argv:
 * ln_gb_unrecognized then reports them. */
void ln_gb_init(int *argc, char **argv);
/* Prints "error: unrecognized command-line flag" for each argv[1..] to stderr; returns how
 * many there were. */
int ln_gb_unrecognized(int argc, char **argv);
/* A key/value pair in the "context" of every report (console header and JSON). */
void ln_gb_add_context(const char *key, const char *value);

/* Registration (the name is copied). Arguments show up in the name as /a:b... unless named. */
ln_gb_bench *ln_gb_register(const char *name, ln_gb_fn fn, void *ctx);
void ln_gb_arg(ln_gb_bench *b, int64_t arg);         /* one more instance with range(0)=arg */
void ln_gb_repetitions(ln_gb_bench *b, int n);       /* overrides --benchmark_repetitions */
void ln_gb_min_time(ln_gb_bench *b, double seconds); /* overrides --benchmark_min_time */
void ln_gb_use_real_time(ln_gb_bench *b);            /* times and rates from wall-clock time */
void ln_gb_process_cpu_time(ln_gb_bench *b);         /* CPU time of all threads, not the caller's */
void ln_gb_report_aggregates_only(ln_gb_bench *b, int only);
/* Adds "min" and "max" aggregates (beside mean, median, stddev, cv) over the repetitions. */
void ln_gb_min_max_statistics(ln_gb_bench *b);

/* Inside a benchmark function. */
int ln_gb_keep_running(ln_gb_state *st);
int64_t ln_gb_range(const ln_gb_state *st, int i);
int64_t ln_gb_iterations(const ln_gb_state *st);
/* How many iterations this run of the function will take: ln_gb_keep_running returns true
 * that many times (unless the run is skipped), so helper threads can do as many. */
int64_t ln_gb_max_iterations(const ln_gb_state *st);
void ln_gb_pause_timing(ln_gb_state *st);
void ln_gb_resume_timing(ln_gb_state *st);
void ln_gb_skip_with_error(ln_gb_state *st, const char *message);
void ln_gb_set_label(ln_gb_state *st, const char *label);

/* User counters (benchmark::Counter flags). RATE divides the value by the benchmark's time
 * (real time if ln_gb_use_real_time); ITERATION_INVARIANT multiplies it by the iterations;
 * AVG_ITERATIONS divides by them. Shown with 1000-based prefixes (G = 1e9). */
enum { LN_GB_RATE = 1, LN_GB_ITERATION_INVARIANT = 2, LN_GB_AVG_ITERATIONS = 4 };
void ln_gb_counter(ln_gb_state *st, const char *name, double value, unsigned flags);

/* One reported run: a single repetition (aggregate "" and repetition >= 0) or an aggregate
 * over the repetitions ("mean", "median", "stddev", "cv", "min", "max"; cv is a fraction). */
#define LN_GB_MAX_COUNTERS 8
typedef struct {
    char name[320]; /* the run name, without the aggregate suffix */
    char aggregate[16];
    int64_t repetition;     /* index of a single repetition; -1 for an aggregate */
    int64_t repetitions;    /* how many the benchmark ran */
    int64_t iterations;     /* for an aggregate: the count of repetitions it is over */
    double real_ns, cpu_ns; /* per iteration (for an aggregate: the statistic of it) */
    int error;              /* the run called ln_gb_skip_with_error */
    int ncounters;
    struct {
        char name[32];
        double value; /* after the flags are applied: a rate is per second */
    } counters[LN_GB_MAX_COUNTERS];
} ln_gb_result;

/* Whether the --benchmark_filter given to ln_gb_init selects the benchmark whose run is called
 * `name` (as reported, e.g. "k/D:64/real_time"), by Google Benchmark's rule: a POSIX extended
 * regular expression searched in the name, "" and "all" select everything, a leading '-'
 * negates. 1 or 0; -1 when the expression does not compile (ln_gb_run then says so). */
int ln_gb_filter_selects(const char *name);

/* Whether ln_gb_run prints Google Benchmark's console report (default 1); the JSON file and
 * the collected results are unaffected. */
void ln_gb_set_display(int show);

/* Runs the registered benchmarks that --benchmark_filter selects, reporting to the console
 * and to --benchmark_out, and collects every run into *out (malloc'ed, free() it). Returns
 * the count of collected runs. Registered benchmarks are cleared afterwards. */
size_t ln_gb_run(ln_gb_result **out);

/* While ln_gb_run runs (from inside a benchmark function): the runs reported so far, valid
 * until the next benchmark finishes. Lets a case be skipped when an earlier, smaller one
 * predicts it would take too long. */
size_t ln_gb_results_so_far(const ln_gb_result **out);

/* The run called name with aggregate `aggregate` ("" for a single repetition's run, the first
 * found) that did not end in an error, or NULL. */
const ln_gb_result *ln_gb_find(const ln_gb_result *r, size_t n, const char *name, const char *aggregate);
/* Its counter called `counter`, or NaN (also when run is NULL). */
double ln_gb_counter_value(const ln_gb_result *run, const char *counter);
/* The two together. */
double ln_gb_lookup(const ln_gb_result *r, size_t n, const char *name, const char *aggregate, const char *counter);

/* Compiler barriers for C, the equivalents of benchmark::DoNotOptimize and ClobberMemory:
 * the first makes the compiler assume the pointed-to memory (and the pointer) is read and
 * written, so stores into it are not dead; the second forces every pending store to memory. */
static inline void ln_do_not_optimize(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
static inline void ln_clobber_memory(void) { __asm__ volatile("" : : : "memory"); }
/* For a scalar value (an lvalue): the computation of v must happen. */
#define LN_DO_NOT_OPTIMIZE(v) __asm__ volatile("" : "+m"(v) : : "memory")

#ifdef __cplusplus
}
#endif

#endif
