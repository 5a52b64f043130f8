/* One measured problem (op, dtype, D, rows, eps, distribution, seed, threads), and the one parser
 * of the flags that name problems (--kernels, --D, --rows, --eps, --dist, --seed, --threads; --op
 * is taken out of argv by main, cli.h) for accuracy, bench, hunt and tune: the same checks, the
 * same messages and the same usage lines in every verb. */
#ifndef LN_PROBLEM_H
#define LN_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dist.h"
#include "kernel.h"

/* The members of a problem, spelled once: ln_problem is them, and the structs that describe one
 * problem each (ln_case, ln_bench_case, ln_hunt_config) begin with LN_PROBLEM_BASE, so that code
 * reads a member by its name (c->D) and passes the whole problem on (&c->problem). */
#define LN_PROBLEM_MEMBERS                                                                           \
    ln_op op;       /* the operator (kernels/ops.def) */                                             \
    ln_dtype dtype; /* storage format of the inputs and outputs */                                   \
    ln_dtype resid; /* the fused ops' r and h (RESID roles): 0 the dtype, else (ln_resid_format) */  \
    size_t D, rows; /* row length; rows (for a bandwidth probe: D elements in one row) */            \
    double eps;     /* added to the variance */                                                      \
    ln_dist dist;   /* the inputs' distribution; a copy, its file data owned by whoever parsed it */ \
    uint64_t seed;  /* of the distribution and of gamma/beta */                                      \
    int threads;    /* the rows split over this many threads (timing; 0 or 1: one) */

typedef struct {
    LN_PROBLEM_MEMBERS
} ln_problem;

#define LN_PROBLEM_BASE        \
    union {                    \
        ln_problem problem;    \
        struct {               \
            LN_PROBLEM_MEMBERS \
        };                     \
    }

/* The shared flags, as getopt_long values: a verb puts LN_PROBLEM_OPTIONS in its option table
 * and hands these values to ln_problem_arg. */
enum {
    LN_OPT_KERNELS = 0x1000,
    LN_OPT_D,
    LN_OPT_ROWS,
    LN_OPT_EPS,
    LN_OPT_DIST,
    LN_OPT_SEED,
    LN_OPT_THREADS,
    LN_OPT_END
};
#define LN_PROBLEM_OPTIONS                                                                        \
    {"kernels", required_argument, 0, LN_OPT_KERNELS}, {"D", required_argument, 0, LN_OPT_D},     \
        {"rows", required_argument, 0, LN_OPT_ROWS}, {"eps", required_argument, 0, LN_OPT_EPS},   \
        {"dist", required_argument, 0, LN_OPT_DIST}, {"seed", required_argument, 0, LN_OPT_SEED}, \
    {                                                                                             \
        "threads", required_argument, 0, LN_OPT_THREADS                                           \
    }

/* A flag's bit in ln_problem_spec.takes and ln_problem_args.given: 1 << (opt - LN_OPT_KERNELS). */
#define LN_TAKES(opt) (1u << ((opt)-LN_OPT_KERNELS))

/* What a verb takes of the shared flags: which, their ranges, and their defaults (NULL: none;
 * kernels: the usage's words for the default, every kernel this CPU runs when NULL). */
typedef struct {
    const char *verb;       /* "accuracy": in messages */
    unsigned takes;         /* LN_TAKES(...) of the flags it takes */
    long long D_min, D_max; /* --D's range; --rows: [1, 2^40] in every verb */
    const char *kernels, *D, *rows, *eps, *dist, *seed, *threads;
    const char *rows_note; /* a line under --rows in the usage (bench: "instead of --bytes"); NULL: none */
} ln_problem_spec;

/* The shared flags as parsed: each list's values in the order given (the defaults until a flag
 * replaces them; a flag given twice: the last). */
typedef struct {
    const ln_problem_spec *spec;
    const char *kernels; /* the list as given, for ln_problem_kernels (after --op) */
    size_t *D, nD, *rows, nrows, *threads, nthreads;
    double *eps;
    size_t neps;
    ln_dist *dists;
    size_t ndists;
    uint64_t seed;
    unsigned given; /* LN_TAKES(...) of the flags the command line gave */
} ln_problem_args;

/* The defaults of spec parsed into a. */
void ln_problem_args_init(ln_problem_args *a, const ln_problem_spec *spec);
void ln_problem_args_free(ln_problem_args *a);

/* Parses the value of shared flag opt (an LN_OPT_ value) into a; returns 0 when opt is not a
 * shared flag. A flag the verb does not take, or a bad value, is a usage error (exit 2):
 * "--FLAG: 'VALUE' is not <what the flag takes>" (e.g. "a whole number in [1, 16777216]"). */
int ln_problem_arg(ln_problem_args *a, int opt, const char *value);

/* The kernels --kernels selects (ln_select_kernels) of op ln_cli_op; none that runs here is a
 * usage error. *out is malloc'ed. */
size_t ln_problem_kernels(const ln_problem_args *a, const ln_kernel ***out);

/* The problem of one value of each list (indices into D, rows, eps, dists, threads; a list the
 * verb does not take gives 0, or the seed's default), of op ln_cli_op and dtype t. */
ln_problem ln_problem_at(const ln_problem_args *a, ln_dtype t, size_t iD, size_t irows, size_t ieps, size_t idist,
                         size_t ithreads);

/* The usage lines of the flags spec takes, with their ranges and defaults, for a verb's --help. */
void ln_problem_usage(FILE *f, const ln_problem_spec *spec);
/* A verb's --help: its text before the shared lines, the shared lines, its own flags after them. */
void ln_problem_help(FILE *f, const char *before, const ln_problem_spec *spec, const char *after);

#endif
