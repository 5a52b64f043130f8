/* Accuracy cases and error metrics; the definitions and their reasons are in docs/metrics.md. */
#include "accuracy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static size_t elements(const ln_case *c) { return c->rows * c->D; }

/* Backward: dy normal with a seed of its own, then the reference of dx, dgamma, dbeta. */
static int prepare_backward(const ln_case *c, ln_prepared *p)
{
    ln_dtype t = c->dtype;
    size_t n = elements(c), size = ln_fmt(t)->size;
    p->dy = malloc(n * size);
    p->dg_ref = malloc(c->D * size), p->db_ref = malloc(c->D * size);
    p->dg_hi = malloc(c->D * sizeof(double)), p->dg_lo = malloc(c->D * sizeof(double));
    p->db_hi = malloc(c->D * sizeof(double)), p->db_lo = malloc(c->D * sizeof(double));
    p->given_mean = malloc(c->rows * sizeof(double)), p->given_rstd = malloc(c->rows * sizeof(double));
    p->dxs_ref = malloc(n * size), p->dxs_hi = malloc(n * sizeof(double)), p->dxs_lo = malloc(n * sizeof(double));
    if (!p->dy || !p->dg_ref || !p->db_ref || !p->dg_hi || !p->dg_lo || !p->db_hi || !p->db_lo || !p->given_mean ||
        !p->given_rstd || !p->dxs_ref || !p->dxs_hi || !p->dxs_lo) {
        fprintf(stderr, "lnbench: out of memory for a case of %zu rows x %zu\n", c->rows, c->D);
        ln_prepared_free(p);
        return -1;
    }
    ln_dist normal = {.kind = LN_DIST_NORMAL};
    ln_dist_fill(&normal, t, c->rows, c->D, c->seed ^ 0x9e3779b97f4a7c15u, p->dy);
    ln_ref_bwd_rows(ln_op_centres(c->op), t, c->rows, c->D, p->x, p->dy, p->gamma, c->eps, p->y_ref, p->y_hi,
                    p->y_lo, p->dg_ref, p->dg_hi, p->dg_lo, p->db_ref, p->db_hi, p->db_lo, p->stats);
    double abs_dg = 0, abs_db = 0, max_dg = 0, max_db = 0;
    for (size_t j = 0; j < c->D; j++) {
        double sg = 0, sb = 0;
        for (size_t r = 0; r < c->rows; r++) {
            double dy = fabs(ln_load(t, p->dy, r * c->D + j)), x = ln_load(t, p->x, r * c->D + j);
            sg += dy * fabs((x - p->stats[r].mean) * p->stats[r].rstd);
            sb += dy;
        }
        abs_dg = fmax(abs_dg, sg), abs_db = fmax(abs_db, sb);
        max_dg = fmax(max_dg, fabs(p->dg_hi[j])), max_db = fmax(max_db, fabs(p->db_hi[j]));
    }
    p->dgamma_kappa = abs_dg / max_dg, p->dbeta_kappa = abs_db / max_db;
    for (size_t r = 0; r < c->rows; r++) {
        double m = p->stats[r].mean, rs = p->stats[r].rstd;
        p->given_mean[r] = c->saved_f32 ? (float)m : m;
        p->given_rstd[r] = c->saved_f32 ? (float)rs : rs;
    }
    ln_ref_bwd_saved_rows(ln_op_centres(c->op), t, c->rows, c->D, p->x, p->dy, p->gamma, p->given_mean,
                          p->given_rstd, p->dxs_ref, p->dxs_hi, p->dxs_lo);
    return 0;
}

int ln_prepare(const ln_case *c, ln_prepared *p)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    p->dgamma_kappa = p->dbeta_kappa = NAN;
    ln_dtype t = c->dtype;
    size_t n = elements(c), size = ln_fmt(t)->size;
    if (c->D == 0 || c->rows == 0 || n / c->D != c->rows || n > ((size_t)-1) / 32) {
        fprintf(stderr, "lnbench: a case of %zu rows x %zu is not possible\n", c->rows, c->D);
        return -1;
    }
    if (c->dist.kind == LN_DIST_FILE && (c->rows != c->dist.file_rows || c->D != c->dist.file_D)) {
        fprintf(stderr, "lnbench: %s holds %zu x %zu values, not %zu x %zu\n", c->dist.path, c->dist.file_rows,
                c->dist.file_D, c->rows, c->D);
        return -1;
    }
    p->x = malloc(n * size);
    p->y_ref = malloc(n * size);
    p->y_hi = malloc(n * sizeof *p->y_hi);
    p->y_lo = malloc(n * sizeof *p->y_lo);
    p->stats = malloc(c->rows * sizeof *p->stats);
    if (c->affine) {
        p->gamma = malloc(c->D * size);
        p->beta = malloc(c->D * size);
    }
    if (!p->x || !p->y_ref || !p->y_hi || !p->y_lo || !p->stats || (c->affine && (!p->gamma || !p->beta))) {
        fprintf(stderr, "lnbench: out of memory for a case of %zu rows x %zu %s\n", c->rows, c->D, ln_fmt(t)->name);
        ln_prepared_free(p);
        return -1;
    }
    if (c->affine) {
        ln_affine_fill(t, c->D, c->seed, c->gamma_src ? NULL : p->gamma, c->beta_src ? NULL : p->beta);
        for (size_t i = 0; i < c->D; i++) {
            if (c->gamma_src) ln_store(t, p->gamma, i, c->gamma_src[i]);
            if (c->beta_src) ln_store(t, p->beta, i, c->beta_src[i]);
        }
    }
    ln_dist_fill(&c->dist, t, c->rows, c->D, c->seed, p->x);
    if (ln_op_is_backward(c->op)) return prepare_backward(c, p);
    for (size_t r = 0; r < c->rows; r++)
        (c->op == LN_OP_RMSNORM ? ln_ref_rms_row : ln_ref_row)(
            t, c->D, (const char *)p->x + r * c->D * size, p->gamma, p->beta, c->eps,
            (char *)p->y_ref + r * c->D * size, p->y_hi + r * c->D, p->y_lo + r * c->D, &p->stats[r]);
    return 0;
}

void ln_prepared_free(ln_prepared *p)
{
    free(p->x);
    free(p->gamma);
    free(p->beta);
    free(p->y_ref);
    free(p->y_hi);
    free(p->y_lo);
    free(p->stats);
    free(p->dy), free(p->dg_ref), free(p->db_ref);
    free(p->dg_hi), free(p->dg_lo), free(p->db_hi), free(p->db_lo);
    free(p->given_mean), free(p->given_rstd), free(p->dxs_ref), free(p->dxs_hi), free(p->dxs_lo);
    memset(p, 0, sizeof *p);
}

/* ulp of the exact value hi + lo. ln_ulp(t, hi) is right unless rounding to double carried hi
 * up to a power of two while the exact value lies just below it (lo of the other sign): then
 * the exact value's binade, and its ulp, is the one below. */
static double exact_ulp(ln_dtype t, double hi, double lo)
{
    double u = ln_ulp(t, hi);
    int e = ilogb(hi);
    if (hi != 0 && isfinite(hi) && lo != 0 && signbit(lo) != signbit(hi) && fabs(hi) == ldexp(1.0, e) &&
        e > ln_fmt(t)->emin)
        u /= 2;
    return u;
}

/* The metrics of a rows x D tensor y against its reference ref (rounded) and hi + lo (exact). */
static void measure_tensor(const ln_prepared *p, size_t rows, size_t D, const void *y, const void *ref_y,
                           const double *ref_hi, const double *ref_lo, ln_errors *e)
{
    const ln_case *c = &p->c;
    ln_dtype t = c->dtype;
    double u = ln_unit_roundoff(t), smallest_normal = ldexp(1.0, ln_fmt(t)->emin);
    double sum_ulp = 0;
    size_t finite_pairs = 0, agree = 0;
    memset(e, 0, sizeof *e);
    e->max_ulp = e->mean_ulp = e->max_norm = NAN;
    e->worst_x = e->worst_y = e->worst_y_exact = NAN;
    e->mean_relerr = e->rstd_relerr = NAN;
    for (size_t r = 0; r < rows; r++) {
        double row_err = 0, row_max = 0;
        int row_has_pair = 0;
        for (size_t i = 0; i < D; i++) {
            size_t k = r * D + i;
            double yv = ln_load(t, y, k), ref = ln_load(t, ref_y, k), hi = ref_hi[k], lo = ref_lo[k];
            /* Numeric equality: +0 and -0 agree; NaN agrees with NaN. */
            agree += yv == ref || (isnan(yv) && isnan(ref));
            if (!isfinite(yv) || !isfinite(ref)) {
                e->nonfinite += !(yv == ref || (isnan(yv) && isnan(ref)));
                continue;
            }
            /* y - hi is exact when y is within a factor 2 of hi (Sterbenz), the only case where
             * the error is small enough for a rounding to matter; subtracting lo then rounds
             * once, a relative 2^-53 of the error. */
            double err = fabs((yv - hi) - lo), ulps = err / exact_ulp(t, hi, lo);
            if (finite_pairs == 0 || ulps > e->max_ulp) {
                e->max_ulp = ulps;
                e->worst_row = r, e->worst_col = i;
                e->worst_x = rows == c->rows ? ln_load(t, p->x, k) : NAN, e->worst_y = yv, e->worst_y_exact = hi + lo;
            }
            sum_ulp += ulps;
            finite_pairs++;
            row_has_pair = 1;
            if (err > row_err) row_err = err;
            if (fabs(hi) > row_max) row_max = fabs(hi);
        }
        /* Rows whose exact output is (near) zero: error relative to the smallest normal. */
        double norm = row_err / fmax(row_max, smallest_normal) / u;
        if (row_has_pair && !(norm <= e->max_norm)) e->max_norm = norm;
    }
    if (finite_pairs) e->mean_ulp = sum_ulp / (double)finite_pairs;
    e->cr_frac = rows > 0 && D > 0 ? (double)agree / (double)(rows * D) : NAN;
    e->dgamma_max_ulp = e->dgamma_max_norm = e->dbeta_max_ulp = e->dbeta_max_norm = NAN;
    e->dx_saved_max_ulp = e->dx_saved_max_norm = NAN;
}

void ln_measure_output(const ln_prepared *p, const void *y, ln_errors *e)
{
    measure_tensor(p, p->c.rows, p->c.D, y, p->y_ref, p->y_hi, p->y_lo, e);
}

/* Marks a statistic the kernel did not write: a NaN with a payload no arithmetic produces. */
static const uint64_t not_written_bits = 0x7ff4dead5eed0001u;

static int not_written(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b == not_written_bits;
}

/* Largest error of a returned statistic over the rows, each divided by scale(row); NaN when no
 * row was written (the kernel returns none), Inf for a NaN or an unwritten row among written ones. */
static double stat_error(const ln_prepared *p, const double *got, int is_mean)
{
    size_t written = 0;
    double worst = 0;
    for (size_t r = 0; r < p->c.rows; r++) written += !not_written(got[r]);
    if (!written) return NAN;
    for (size_t r = 0; r < p->c.rows; r++) {
        const ln_ref_stats *s = &p->stats[r];
        double want = is_mean ? s->mean : s->rstd, err;
        /* mean: relative to the row's scale max(|mean|, sigma), so a mean near 0 (a sum that
         * cancels) is judged against the spread it is subtracted from; rstd: relative. */
        double scale = is_mean ? fmax(fabs(s->mean), sqrt(s->var + p->c.eps)) : fabs(s->rstd);
        if (not_written(got[r])) err = INFINITY;
        else if (got[r] == want || (isnan(got[r]) && isnan(want))) err = 0;
        else if (isnan(got[r]) || isnan(want)) err = INFINITY;
        else err = scale > 0 && isfinite(scale) ? fabs(got[r] - want) / scale : INFINITY;
        if (err > worst) worst = err;
    }
    return worst;
}

/* A backward kernel from the given statistics (the exact ones rounded to double, or to fp32 with
 * saved_f32), dx into y, measured against both references; dgamma and dbeta as one row of D
 * each. */
static void measure_backward(const ln_kernel *k, const ln_prepared *p, ln_errors *e, void *dx, double *mean,
                             double *rstd)
{
    const ln_case *c = &p->c;
    size_t size = ln_fmt(c->dtype)->size;
    void *dg = malloc(c->D * size), *db = malloc(c->D * size);
    if (!dg || !db) ln_die("out of memory");
    for (size_t i = 0; i < c->D; i++) ln_store(c->dtype, dg, i, NAN), ln_store(c->dtype, db, i, NAN);
    for (size_t r = 0; r < c->rows; r++) mean[r] = p->given_mean[r], rstd[r] = p->given_rstd[r];
    ln_args a = {.rows = c->rows, .D = c->D, .x = p->x, .gamma = p->gamma, .beta = p->beta, .eps = c->eps,
                 .mean = mean, .rstd = rstd, .dy = p->dy, .dx = dx, .dgamma = dg, .dbeta = db};
    k->forward(&a);
    ln_errors t;
    measure_tensor(p, 1, c->D, dg, p->dg_ref, p->dg_hi, p->dg_lo, &t);
    double dg_ulp = t.max_ulp, dg_norm = t.max_norm;
    measure_tensor(p, 1, c->D, db, p->db_ref, p->db_hi, p->db_lo, &t);
    ln_errors s;
    measure_tensor(p, c->rows, c->D, dx, p->dxs_ref, p->dxs_hi, p->dxs_lo, &s);
    ln_measure_output(p, dx, e);
    e->dx_saved_max_ulp = s.max_ulp, e->dx_saved_max_norm = s.max_norm;
    e->dgamma_max_ulp = dg_ulp, e->dgamma_max_norm = dg_norm;
    e->dbeta_max_ulp = t.max_ulp, e->dbeta_max_norm = t.max_norm;
    e->mean_relerr = e->rstd_relerr = NAN;
    free(dg);
    free(db);
}

void ln_measure_kernel(const ln_kernel *k, const ln_prepared *p, ln_errors *e, void *y_out)
{
    const ln_case *c = &p->c;
    if (k->dtype != c->dtype) ln_die("%s is a %s kernel, the case is %s", k->name, ln_fmt(k->dtype)->name, ln_fmt(c->dtype)->name);
    size_t n = elements(c);
    void *y = y_out ? y_out : malloc(n * ln_fmt(c->dtype)->size);
    double *mean = malloc(c->rows * sizeof *mean), *rstd = malloc(c->rows * sizeof *rstd);
    if (!y || !mean || !rstd) ln_die("out of memory");
    /* NaN in every output first, so an element the kernel forgets to write is a mismatch. */
    for (size_t i = 0; i < n; i++) ln_store(c->dtype, y, i, NAN);
    for (size_t r = 0; r < c->rows; r++) {
        memcpy(&mean[r], &not_written_bits, sizeof mean[r]);
        rstd[r] = mean[r];
    }
    if (k->op != c->op) ln_die("%s computes %s, the case is %s", k->name, ln_op_name(k->op), ln_op_name(c->op));
    if (ln_op_is_backward(c->op)) {
        measure_backward(k, p, e, y, mean, rstd);
    } else {
        ln_args a = {.rows = c->rows, .D = c->D, .x = p->x, .y = y, .gamma = p->gamma, .beta = p->beta,
                     .eps = c->eps, .mean = mean, .rstd = rstd};
        k->forward(&a);
        ln_measure_output(p, y, e);
        e->mean_relerr = stat_error(p, mean, 1);
        e->rstd_relerr = stat_error(p, rstd, 0);
    }
    free(mean);
    free(rstd);
    if (!y_out) free(y);
}

double ln_kappa_max(const ln_prepared *p)
{
    double k = 0;
    for (size_t r = 0; r < p->c.rows; r++) k = fmax(k, p->stats[r].kappa);
    return k;
}

static int all_finite(ln_dtype t, const void *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (!isfinite(ln_load(t, v, i))) return 0;
    return 1;
}

int ln_row_in_bound_domain(const ln_prepared *row)
{
    ln_dtype t = row->c.dtype;
    const ln_format *f = ln_fmt(t);
    const ln_ref_stats *st = row->stats;
    size_t D = row->c.D;
    if (!all_finite(t, row->x, D) || !all_finite(t, row->gamma, D) || !all_finite(t, row->beta, D)) return 0;
    /* var far enough above the smallest normal that squares lost to underflow cost under u/16:
     * a whole 2^emin each where an instruction flushes them (AVX512-BF16's dot product), so
     * 2^(emin + p + 4); f16 kernels accumulate in fp32 or underflow gradually in f16. */
    int var_margin = t == LN_F16 ? 4 : f->p + 4;
    if (!(st->var >= row->c.eps) || !(st->var >= ldexp(1.0, f->emin + var_margin))) return 0;
    double max_x = 0, max_gxhat = 0;
    for (size_t i = 0; i < D; i++) max_x = fmax(max_x, fabs(ln_load(t, row->x, i)));
    if (max_x * max_x * (double)D >= ldexp(1.0, f->emax - 1) || max_x * (double)D >= ldexp(1.0, f->emax - 1))
        return 0;
    for (size_t i = 0; i < D; i++) {
        double g = row->gamma ? ln_load(t, row->gamma, i) : 1;
        if (fabs(g) > 2) return 0;
        max_gxhat = fmax(max_gxhat, fabs(g * (ln_load(t, row->x, i) - st->mean) * st->rstd));
    }
    for (size_t i = 0; row->beta && i < D; i++)
        if (fabs(ln_load(t, row->beta, i)) > max_gxhat) return 0;
    /* No gradual underflow worth a unit roundoff: gamma, beta and rstd * gamma normal or zero,
     * outputs well above the smallest normal, and when some exact output is subnormal (flushed
     * to zero by some instructions), the largest so far above it that a flush costs under u/16. */
    double smallest = ldexp(1.0, f->emin), max_y = 0;
    int subnormal_y = 0;
    for (size_t i = 0; i < D; i++) {
        double g = row->gamma ? ln_load(t, row->gamma, i) : 1, b = row->beta ? ln_load(t, row->beta, i) : 0;
        double ex = fabs(row->y_hi[i] + row->y_lo[i]);
        if ((g != 0 && fabs(g) < smallest) || (b != 0 && fabs(b) < smallest)) return 0;
        /* kernels may fold rstd into gamma first: that product must not underflow either */
        if (g != 0 && fabs(g) * st->rstd < ldexp(smallest, f->p + 4)) return 0;
        max_y = fmax(max_y, ex);
        subnormal_y |= ex != 0 && ex < smallest;
    }
    /* A normwise error relative to max|y| assumes beta does not cancel the row's scale: with
     * y_i = gamma_i xhat_i + beta_i ~ 0 wherever |gamma_i xhat_i| is large, every kernel's
     * u |gamma xhat| is many u of the small max|y|. The harness's draws keep this ratio >= 1/2. */
    if (max_y < max_gxhat / 4) return 0;
    return max_y >= ldexp(smallest, subnormal_y ? f->p + 4 : 4);
}
