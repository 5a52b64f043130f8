/* One accuracy case: inputs and reference computed once, then any kernel of that dtype run on
 * them and measured. Used by `lnbench accuracy`, the tests and the fuzzer. */
#ifndef LN_ACCURACY_H
#define LN_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "kernel.h"
#include "reference.h"

typedef struct {
    ln_dtype dtype;
    ln_dist dist;
    size_t D, rows;
    double eps;
    uint64_t seed;
    int affine;        /* 0: gamma = 1, beta = 0 (passed to kernels as NULL) */
    /* With affine: D values each (e.g. from --gamma/--beta .npy files), rounded once to dtype;
     * NULL: drawn by ln_affine_fill. */
    const double *gamma_src, *beta_src;
    ln_op op;          /* the operator; 0 = LayerNorm forward. Backward: x from dist, dy normal */
    int saved_f32;     /* backward: the statistics given to kernels are the exact ones rounded to
                        * fp32 (what an fp32 forward pass saves at best); 0: rounded to double */
} ln_case;

typedef struct {
    ln_case c;
    void *x, *gamma, *beta;        /* inputs in c.dtype (gamma, beta NULL when !affine) */
    void *y_ref;                   /* correctly rounded reference, c.dtype */
    double *y_hi, *y_lo;           /* exact values, rows x D */
    ln_ref_stats *stats;           /* per row */
    /* backward ops: y_ref, y_hi, y_lo above hold dx; dy the upstream gradient (normal, its own
     * seed); dgamma and dbeta (D each) their references and exact values */
    void *dy, *dg_ref, *db_ref;
    double *dg_hi, *dg_lo, *db_hi, *db_lo;
    /* their normwise condition numbers: max_j sum_rows |dy xhat| / max_j |dgamma_j|, and
     * max_j sum_rows |dy| / max_j |dbeta_j| (NaN for forward cases) */
    double dgamma_kappa, dbeta_kappa;
    /* the statistics given to the kernels (rows each), and dx's reference with them taken as
     * exact (ln_ref_bwd_saved_rows) */
    double *given_mean, *given_rstd;
    void *dxs_ref;
    double *dxs_hi, *dxs_lo;
} ln_prepared;

/* Errors of one kernel on one case (see docs/metrics.md for the definitions). */
typedef struct {
    double max_ulp, mean_ulp;      /* over finite-vs-finite elements, in ulps of the dtype */
    double cr_frac;                /* fraction of outputs bit-equal to the correctly rounded ref */
    double max_norm;               /* max over rows of max_i|y-y_exact| / max_i|y_exact|, in u */
    size_t nonfinite;              /* NaN/Inf where the reference is finite, or the reverse */
    size_t worst_row, worst_col;   /* element with max_ulp */
    double worst_x, worst_y, worst_y_exact;
    double mean_relerr, rstd_relerr; /* max relative errors of returned statistics; NaN if none */
    /* backward ops (the fields above then measure dx): max_ulp and max_norm of dgamma and dbeta
     * as one row of D each; NaN for forward ops or a kernel that writes none */
    double dgamma_max_ulp, dgamma_max_norm, dbeta_max_ulp, dbeta_max_norm;
    /* backward: dx against the reference computed with the statistics the kernel was given */
    double dx_saved_max_ulp, dx_saved_max_norm;
} ln_errors;

/* Generates inputs and the reference for c. Returns 0, or -1 with a message on stderr. */
int ln_prepare(const ln_case *c, ln_prepared *p);
void ln_prepared_free(ln_prepared *p);

/* Runs k (its dtype must equal p->c.dtype) on p's inputs and measures it. If y_out is not
 * NULL it receives the kernel's output (rows x D of the dtype). */
void ln_measure_kernel(const ln_kernel *k, const ln_prepared *p, ln_errors *e, void *y_out);

/* The error metrics of y against p's reference (also used for outputs computed elsewhere). */
void ln_measure_output(const ln_prepared *p, const void *y, ln_errors *e);

/* Whether one row (p->c.rows == 1, reference and statistics filled) lies inside the domain where
 * a kernel's claimed bound applies (kernel.h): every input finite, var >= eps, gamma and beta as
 * kernel.h states them, no over- or underflow in the format's range (D max|x|^2 and D max|x|
 * representable; var, gamma, beta, rstd * gamma and the outputs well above the smallest normal)
 * and beta not cancelling gamma * xhat. The bounds are first-order and stated for the harness's
 * draws, nothing outside that. Used by the fuzzer and by hunt to tell a bound violation from a
 * row the bound does not cover. */
int ln_row_in_bound_domain(const ln_prepared *p);

/* The largest condition number sqrt(1 + mean^2/(var + eps)) over p's rows: the kappa at which
 * a kernel's claimed bound applies to the whole case. */
double ln_kappa_max(const ln_prepared *p);

#endif
