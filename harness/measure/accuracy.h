/* One accuracy case: inputs and reference computed once, then any kernel of that dtype run on
 * them and measured. Used by `lnbench accuracy`, the tests and the fuzzer. */
#ifndef LN_ACCURACY_H
#define LN_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "kernel.h"
#include "problem.h"
#include "reference.h"

typedef struct {
    LN_PROBLEM_BASE; /* op 0 = LayerNorm forward; backward: x from dist, dy normal; threads unused */
    int affine;      /* 0: gamma = 1, beta = 0 (passed to kernels as NULL) */
    /* With affine: D values each (e.g. from --gamma/--beta .npy files), rounded once to dtype;
     * NULL: drawn by ln_affine_fill. */
    const double *gamma_src, *beta_src;
    int saved_f32; /* backward: the statistics given to kernels are the exact ones rounded to
                        * fp32 (what an fp32 forward pass saves at best); 0: rounded to double */
    /* backward: when not NULL, the statistics given to kernels are this forward kernel's (of the
     * forward op and dtype of the case) mean and rstd on the same x, gamma, beta, eps */
    const ln_kernel *saved_kernel;
    /* By role (ln_ops[op].roles[i]): the values of a rows x D input (x, dy), rows x D doubles
     * rounded once to dtype, in place of the draw (x: of dist); NULL: drawn. Replayed rows. */
    const double *input_src[LN_MAX_ROLES];
    /* A stand-in for the op's reference (ln_op_screen: a search's candidates); the second
     * reference of a backward op is then left out and not measured. NULL: the reference. */
    ln_ref_op *screen;
} ln_case;

/* What storing a drawn row in the case's dtype did to it (ln_prepare): nothing; a finite value
 * became Inf; a nonzero value became 0; a non-constant row became constant; or the drawn data
 * held NaN/Inf already. */
typedef enum { LN_INPUT_OK, LN_INPUT_OVERFLOW, LN_INPUT_UNDERFLOW, LN_INPUT_COLLAPSED, LN_INPUT_NONFINITE } ln_input;
extern const char *const ln_input_names[]; /* "ok", "overflow", "underflow", "collapsed", "nonfinite" */

/* One tensor of a case, by its role (ln_ops[op].roles[i]): an input's values (LN_ROLE_IN,
 * LN_ROLE_SAVED; NULL for an optional input the case leaves out); an output's reference, correctly
 * rounded (ref) and exact (hi + lo), and for the first output of an op with a second reference
 * (the backward ops' dx from the statistics as given) that one too (sref, shi, slo). */
typedef struct {
    void *data;
    void *ref;
    double *hi, *lo;
    void *sref;
    double *shi, *slo;
} ln_role_data;

typedef struct {
    ln_case c;
    ln_role_data role[LN_MAX_ROLES]; /* by the op's roles (kernels/ops.def); owns the arrays */
    unsigned char *input;            /* per row, an ln_input; NULL: every row ok */
    ln_ref_stats *stats;             /* per row */
    /* The same arrays by name (NULL where the op has no such role), for readers that know which
     * op they hold: inputs x, gamma, beta (NULL when !affine) and dy; the first output's reference
     * in y_ref, y_hi, y_lo (y, or dx for the backward ops); dgamma's and dbeta's in dg_*, db_*;
     * the saved statistics given to the kernels, and the first output's reference with them
     * taken as exact (dxs_*). */
    void *x, *gamma, *beta, *dy;
    void *y_ref;
    double *y_hi, *y_lo;
    void *dg_ref, *db_ref;
    double *dg_hi, *dg_lo, *db_hi, *db_lo;
    double *given_mean, *given_rstd;
    void *dxs_ref;
    double *dxs_hi, *dxs_lo;
    /* normwise condition numbers of the per-column outputs (dgamma, dbeta): max_j sum_rows |dy
     * xhat| / max_j |dgamma_j|, and max_j sum_rows |dy| / max_j |dbeta_j| (NaN for forward cases) */
    double dgamma_kappa, dbeta_kappa;
    /* What the last ln_measure_kernel on this case saw of its kernel beyond y, for ln_judge:
     * NULL on a case built by hand (nothing more is then judged). */
    struct ln_run_record *run;
} ln_prepared;

/* The last kernel run on a case (ln_measure_kernel) as ln_judge needs it: the statistics it
 * returned (forward ops; the not-written NaN where it wrote none) and the first const input it
 * changed (its role's name: "x", "gamma", "beta", "dy", "mean", "rstd"; NULL when none). */
typedef struct ln_run_record {
    const ln_kernel *k;
    double *stat[LN_MAX_ROLES]; /* rows each, for the op's LN_ROLE_STAT roles (NULL for the others) */
    void *out[LN_MAX_ROLES];    /* the outputs every kernel returns correctly rounded (LN_ROLE_CR) */
    const char *wrote;
} ln_run_record;

/* Errors of one kernel on one case (see docs/metrics.md for the definitions). */
typedef struct {
    double max_ulp, mean_ulp;    /* over finite-vs-finite elements, in ulps of the dtype */
    double cr_frac;              /* fraction of outputs bit-equal to the correctly rounded ref */
    double max_norm;             /* max over rows of max_i|y-y_exact| / max_i|y_exact|, in u */
    size_t nonfinite;            /* NaN/Inf where the reference is finite, or the reverse */
    size_t worst_row, worst_col; /* element with max_ulp */
    double worst_x, worst_y, worst_y_exact;
    double mean_relerr, rstd_relerr; /* max relative errors of returned statistics; NaN if none */
    /* backward ops (the fields above then measure dx): max_ulp and max_norm of dgamma and dbeta
     * as one row of D each; NaN for forward ops or a kernel that writes none */
    double dgamma_max_ulp, dgamma_max_norm, dbeta_max_ulp, dbeta_max_norm;
    /* backward: dx against the reference computed with the statistics the kernel was given */
    double dx_saved_max_ulp, dx_saved_max_norm;
    /* The same by role (ln_ops[op].roles[i]; NaN where not measured): max_ulp and max_norm of an
     * output (the first one's as above), relerr of a returned statistic, and the first output's
     * against the second reference (saved_*). The named fields above are these for the roles the
     * results files have columns for. */
    struct {
        double max_ulp, max_norm, relerr, saved_max_ulp, saved_max_norm;
    } role[LN_MAX_ROLES];
} ln_errors;

/* A kernel's verdict on a case, against its contract (kernel.h): pass or fail inside the domain
 * where it claims its bound, outside it (or on a degenerate input), or none (no bound claimed). */
typedef enum { LN_PASS, LN_FAIL, LN_OUTSIDE, LN_NONE } ln_verdict_kind;
extern const char *const ln_verdict_names[]; /* "pass", "fail", "outside", "none" */

typedef struct {
    ln_verdict_kind verdict;
    ln_input input;     /* the case's worst row's input status (first non-ok row) */
    const char *domain; /* "ok", or the condition that failed: a kernel's domain name, or
                            * "input-<status>" for a degenerate input */
    double bound;       /* u: bound(D, kappa) x ln_affine_factor of the failing row for a fail,
                            * the largest row bound for a pass; NaN when the case is outside or
                            * the kernel claims none */
    double error;       /* normwise error in u (Inf with non-finite outputs): the failing row's
                            * for a fail, else the largest over rows */
    size_t row, col;    /* the deciding row (largest error over bound, or a non-finite output)
                            * and its element with the largest error */
    /* rows judged against the bound, and rows set aside (a degenerate input or a row outside
     * the domain): the case's verdict is its worst judged row's */
    size_t rows_judged, rows_set_aside;
    /* what decided a fail: "y" (dx for the backward ops), "mean", "rstd", a correctly rounded
     * output ("h": any element off the reference's; bound 0), or "input-written" (the kernel
     * changed a const input); "" otherwise */
    const char *failed_on;
} ln_verdict;

/* The peak memory in bytes of one case of op on rows x D values of dtype t, run and judged:
 * the case's arrays (inputs, references, outputs and the copies a kernel is given), and the
 * reference's working storage for one row (MPFR numbers for every element of it). Constants
 * measured (peak resident size over D, docs/metrics.md), rounded up. */
double ln_case_bytes(ln_op op, ln_dtype t, size_t rows, size_t D);

/* Generates inputs and the reference for c. Returns 0, or -1 with a message on stderr. */
int ln_prepare(const ln_case *c, ln_prepared *p);
void ln_prepared_free(ln_prepared *p);

/* After p's inputs were changed in place (role data of LN_ROLE_IN roles): the references, the
 * statistics, the saved statistics given to a backward kernel and what is derived from them,
 * computed again, through p->c.screen when it is set. Returns 0, or -1 with a message. */
int ln_prepared_update(ln_prepared *p);

/* The cheapest faithful stand-in for op's reference: its screen (reference/screen.c) when it has
 * one, else the reference itself. */
ln_ref_op *ln_op_screen(ln_op op);

/* Runs k (its dtype must equal p->c.dtype) on copies of p's inputs and measures it. If y_out is
 * not NULL it receives the kernel's output (rows x D of the dtype). A kernel that changes one of
 * its const inputs is named on stderr and fails (ln_judge); the case's own inputs stay pristine
 * for the kernels after it and for the judge. */
void ln_measure_kernel(const ln_kernel *k, const ln_prepared *p, ln_errors *e, void *y_out);

/* With ln_isolate_kernels set, each kernel runs in a child process (its outputs come back
 * through shared memory): a kernel that crashes or ends the process (exit, abort) cannot take
 * the run with it. The child's death is then reported to ln_kernel_died (which must not return;
 * NULL: a message and exit 1). */
extern int ln_isolate_kernels;
extern void (*ln_kernel_died)(const ln_kernel *k, const char *how);

/* The error metrics of y against p's reference (also used for outputs computed elsewhere). */
void ln_measure_output(const ln_prepared *p, const void *y, ln_errors *e);

/* The facts of row r of p that a kernel's domain is decided on: those of the tensor the op
 * normalises (x, or the stored h of the fused ops: ops.def's NORMED, its reference's values). */
void ln_row_facts_of(const ln_prepared *p, size_t r, ln_row_facts *f);

/* Row r of p against k's contract: NULL inside its domain, else the failed condition's name
 * (an input problem, a domain condition, or "kappa-beyond-bound"); and in *bound the row's bound
 * in u, bound(D, kappa) x ln_affine_factor (NaN when k claims none or it is infinite, or on a
 * degenerate input or saved fp32 statistics), inside the domain or not. One pass over the row
 * for both. Used by ln_judge and by hunt. */
const char *ln_row_contract(const ln_kernel *k, const ln_prepared *p, size_t r, double *bound);

/* k's verdict on output y of case p (docs/metrics.md, "Verdicts"). */
void ln_judge(const ln_kernel *k, const ln_prepared *p, const void *y, ln_verdict *v);

/* The largest condition number sqrt(1 + mean^2/(var + eps)) over p's rows: the kappa at which
 * a kernel's claimed bound applies to the whole case. */
double ln_kappa_max(const ln_prepared *p);

#endif
