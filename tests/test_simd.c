/* The fp32/fp64 SIMD kernels (every registered kernel of those dtypes with isa != 0 that this
 * CPU runs, found by a loop over the registry, no names; the 16-bit ones have test_lowp.c, and
 * share only the alignment and aliasing test here) against the MPFR reference: claimed bounds on every distribution
 * at every tail length, alignment and aliasing independence, agreement with the scalar sibling,
 * the ISA cap; and the oneDNN peer (bound, one thread). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "cpu.h"

static const char *all_dists[] = {"normal", "uniform", "offset:1e4", "shifted", "outlier:1000",
                                  "heavy",  "const",   "tiny",       "huge",    "exact"};
#define NDISTS (sizeof all_dists / sizeof all_dists[0])

/* Whether this CPU runs the first line of the ISA table (AVX2 on x86, NEON on aarch64), the one
 * every SIMD kernel family has a variant for: the tests that sweep SIMD kernels must then find some. */
static int base_simd_here(void) { return ln_num_isas && (ln_cpu_features() & ln_isas[0].bit); }

static int is_simd(const ln_kernel *k)
{
    return k->isa != 0 && ln_kernel_available(k) && (k->dtype == LN_F32 || k->dtype == LN_F64);
}

/* Any SIMD kernel this CPU runs, 16-bit ones included (for the checks that hold for every
 * kernel whatever its numerics). */
static int is_simd_any(const ln_kernel *k) { return k->isa != 0 && ln_kernel_available(k); }

static void prepare(ln_prepared *p, ln_dtype t, const char *dist, size_t D, size_t rows, int affine)
{
    ln_case c = {.dtype = t, .D = D, .rows = rows, .eps = 1e-5, .seed = 5, .affine = affine};
    ln_dist_parse(dist, &c.dist);
    assert_int_equal(ln_prepare(&c, p), 0);
}

/* k on p: never a fail verdict against its contract (ln_judge: within its bound inside its
 * domain), and at least finite everywhere; statistics, where k returns them, within the bound
 * too on cases it passes. */
static void check_kernel(const ln_kernel *k, const ln_prepared *p, const char *dist)
{
    ln_errors e;
    ln_verdict v;
    void *y = malloc(p->c.rows * p->c.D * ln_fmt(k->dtype)->size);
    assert_non_null(y);
    ln_measure_kernel(k, p, &e, y);
    ln_judge(k, p, y, &v);
    free(y);
    double u = ln_unit_roundoff(k->dtype), b = v.bound;
    if (e.nonfinite) fail_msg("%s on %s D=%zu: %zu non-finite outputs", k->name, dist, p->c.D, e.nonfinite);
    if (v.verdict == LN_FAIL)
        fail_msg("%s on %s D=%zu: max_norm %g u > claimed %g u (row %zu col %zu)", k->name, dist, p->c.D, e.max_norm, b,
                 v.row, v.col);
    if (v.verdict != LN_PASS) return;
    for (size_t r = 0; r < p->c.rows; r++)
        if (!isfinite(p->stats[r].var)) return; /* f64 huge: the reference's var overflows double */
    if (!isnan(e.mean_relerr) && !(e.mean_relerr <= b * u))
        fail_msg("%s on %s D=%zu: mean rel. error %g > %g", k->name, dist, p->c.D, e.mean_relerr, b * u);
    if (!isnan(e.rstd_relerr) && !(e.rstd_relerr <= b * u))
        fail_msg("%s on %s D=%zu: rstd rel. error %g > %g", k->name, dist, p->c.D, e.rstd_relerr, b * u);
}

/* Every tail length 1 .. 3W+1 of the widest vector, and 257 and 4097, on every distribution,
 * with gamma/beta (and without on normal, so the NULL paths run too). */
static void test_within_claimed_bound(void **state)
{
    (void)state;
    size_t simd = 0;
    for (int t = 0; t < LN_NDTYPES; t++) {
        size_t maxw = 0;
        for (size_t i = 0; i < ln_num_kernels; i++)
            if (ln_all_kernels[i]->dtype == (ln_dtype)t && is_simd(ln_all_kernels[i]) &&
                ln_kernel_vector_width(ln_all_kernels[i]) > maxw)
                maxw = ln_kernel_vector_width(ln_all_kernels[i]);
        if (!maxw) continue;
        size_t dims[64], nd = 0;
        for (size_t D = 1; D <= 3 * maxw + 1; D++) dims[nd++] = D;
        dims[nd++] = 257;
        dims[nd++] = 4097;
        for (size_t di = 0; di < NDISTS; di++)
            for (size_t ni = 0; ni < nd; ni++)
                for (int affine = 1; affine >= (di == 0 ? 0 : 1); affine--) {
                    ln_prepared p;
                    prepare(&p, (ln_dtype)t, all_dists[di], dims[ni], 2, affine);
                    for (size_t i = 0; i < ln_num_kernels; i++) {
                        const ln_kernel *k = ln_all_kernels[i];
                        if (k->dtype != (ln_dtype)t || !is_simd(k)) continue;
                        check_kernel(k, &p, all_dists[di]);
                        simd++;
                    }
                    ln_prepared_free(&p);
                }
    }
    if (base_simd_here()) assert_true(simd > 0);
}

/* x, y, gamma, beta each 4 bytes past a 64-byte boundary, and y = x: the same bits as the
 * aligned out-of-place run (the kernels' arithmetic must not depend on where a vector starts);
 * every dtype's SIMD kernels. */
static void test_alignment_and_in_place(void **state)
{
    (void)state;
    const size_t dims[] = {7, 49, 257, 1000};
    for (int t = 0; t < LN_NDTYPES; t++)
        for (size_t ni = 0; ni < 4; ni++) {
            const size_t D = dims[ni], rows = 3, es = ln_fmt((ln_dtype)t)->size, bytes = rows * D * es;
            ln_prepared p;
            prepare(&p, (ln_dtype)t, "shifted", D, rows, 1);
            size_t total = (3 * bytes + 4 * D * es + 512 + 63) / 64 * 64; /* aligned_alloc: a multiple of 64 */
            unsigned char *y0 = malloc(bytes), *buf = aligned_alloc(64, total);
            unsigned char *x = buf + 4, *y = x + bytes + 60, *g = y + bytes + 60, *b = g + D * es + 60;
            unsigned char *xi = b + D * es + 60; /* in place: y = x */
            for (size_t i = 0; i < ln_num_kernels; i++) {
                const ln_kernel *k = ln_all_kernels[i];
                if (k->dtype != (ln_dtype)t || !is_simd_any(k)) continue;
                ln_errors e;
                ln_measure_kernel(k, &p, &e, y0);
                memcpy(x, p.x, bytes);
                memcpy(xi, p.x, bytes);
                memcpy(g, p.gamma, D * es);
                memcpy(b, p.beta, D * es);
                ln_args a = {.rows = rows, .D = D, .x = x, .y = y, .gamma = g, .beta = b, .eps = p.c.eps};
                k->forward(&a);
                if (memcmp(y, y0, bytes)) fail_msg("%s D=%zu: misaligned output differs", k->name, D);
                a.x = a.y = xi;
                k->forward(&a);
                if (memcmp(xi, y0, bytes)) fail_msg("%s D=%zu: in-place output differs", k->name, D);
            }
            free(y0);
            free(buf);
            ln_prepared_free(&p);
        }
}

/* Each SIMD kernel and the scalar kernel of the same dtype and algorithm, where there is one:
 * per row, max|y_simd - y_scalar| <= (bound_simd + bound_scalar) u max|y_exact|. */
static void test_agrees_with_scalar_sibling(void **state)
{
    (void)state;
    const char *dists[] = {"normal", "shifted", "offset:1e4", "outlier:1000"};
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!is_simd(k)) continue;
        char name[128];
        size_t stem = (size_t)(ln_kernel_isa_name(k) - k->name);
        snprintf(name, sizeof name, "%.*sscalar", (int)stem, k->name);
        const ln_kernel *s = ln_kernel_find(name);
        if (!s) continue;
        for (size_t di = 0; di < 4; di++) {
            const size_t D = 3 * ln_kernel_vector_width(k) + 5, rows = 3;
            ln_prepared p;
            prepare(&p, k->dtype, dists[di], D, rows, 1);
            void *ys = malloc(rows * D * 8), *yk = malloc(rows * D * 8);
            ln_errors e;
            ln_measure_kernel(s, &p, &e, ys);
            ln_measure_kernel(k, &p, &e, yk);
            for (size_t r = 0; r < rows; r++) {
                double diff = 0, ymax = 0, kappa = p.stats[r].kappa;
                for (size_t j = 0; j < D; j++) {
                    diff = fmax(diff, fabs(ln_load(k->dtype, yk, r * D + j) - ln_load(k->dtype, ys, r * D + j)));
                    ymax = fmax(ymax, fabs(p.y_hi[r * D + j]));
                }
                double allowed = (k->bound(D, kappa) + s->bound(D, kappa)) * ln_unit_roundoff(k->dtype) * ymax;
                if (!(diff <= allowed))
                    fail_msg("%s vs %s on %s row %zu: differ by %g > %g", k->name, s->name, dists[di], r, diff,
                             allowed);
            }
            free(ys);
            free(yk);
            ln_prepared_free(&p);
        }
    }
}

/* A "fused" kernel reorders f32-twopass's work (pipelined rows, prefetch, streaming stores) but
 * claims the same arithmetic term for term: its outputs and statistics must be the same bits as
 * the two-pass kernel of its dtype and ISA, on short rows (pipeline) and long ones. */
static void test_fused_is_twopass_reordered(void **state)
{
    (void)state;
    const size_t dims[] = {33, 770, 3001};
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        char alg[32], name[128];
        if (!is_simd(k) || strcmp(ln_kernel_algorithm(k, alg, sizeof alg), "fused") != 0) continue;
        snprintf(name, sizeof name, "%s-twopass-%s", ln_fmt(k->dtype)->name, ln_kernel_isa_name(k));
        const ln_kernel *tp = ln_kernel_find(name);
        assert_non_null(tp);
        for (size_t ni = 0; ni < 3; ni++) {
            const size_t D = dims[ni], rows = 5, bytes = rows * D * ln_fmt(k->dtype)->size;
            ln_prepared p;
            prepare(&p, k->dtype, "outlier:1000", D, rows, ni != 1);
            void *y1 = malloc(bytes), *y2 = malloc(bytes);
            ln_errors e1, e2;
            ln_measure_kernel(tp, &p, &e1, y1);
            ln_measure_kernel(k, &p, &e2, y2);
            if (memcmp(y1, y2, bytes)) fail_msg("%s and %s differ at D=%zu", k->name, tp->name, D);
            assert_true(e1.mean_relerr == e2.mean_relerr && e1.rstd_relerr == e2.rstd_relerr);
            free(y1);
            free(y2);
            ln_prepared_free(&p);
        }
    }
}

/* A "shifted" kernel takes its statistics about a shift from the row's first elements, and must
 * redo a row by its two-pass sibling's code (the same name with "twopass" for "shifted") when
 * the shift is far from the mean: on rows whose first 32 elements sit 100 above the rest, its
 * outputs and statistics are the two-pass kernel's bits. Short rows (the pipeline), long ones
 * (row groups) and rows of 8200 (the 16-bit kernels' row pairs in cache on AVX-512), the bad
 * rows mixed among good ones; every dtype. */
static void test_shifted_redoes_bad_shifts(void **state)
{
    (void)state;
    const size_t dims[] = {300, 2100, 8200}, rows = 11;
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        const char *at = strstr(k->name, "-shifted-");
        char name[128];
        if (!is_simd_any(k) || !at) continue;
        snprintf(name, sizeof name, "%.*s-twopass-%s", (int)(at - k->name), k->name, at + 9);
        const ln_kernel *tp = ln_kernel_find(name);
        assert_non_null(tp);
        const ln_dtype t = k->dtype;
        const size_t es = ln_fmt(t)->size;
        for (size_t ni = 0; ni < 3; ni++) {
            const size_t D = dims[ni];
            void *x = malloc(rows * D * es), *y1 = malloc(rows * D * es), *y2 = malloc(rows * D * es);
            void *g = malloc(D * es), *b = malloc(D * es);
            double m1[11], r1[11], m2[11], r2[11];
            uint32_t seed = 12345;
            for (size_t j = 0; j < rows * D; j++) {
                seed = seed * 1664525u + 1013904223u;
                ln_store(t, x, j, (double)(seed >> 8) * 0x1p-23 - 1.0 + ((j / D) % 4 == 1 && j % D < 32 ? 100.0 : 0.0));
            }
            for (size_t j = 0; j < D; j++)
                ln_store(t, g, j, 1.0 + 0.25 * (double)(j % 5) / 4), ln_store(t, b, j, 0.25 * (double)(j % 3) / 2);
            ln_args a = {
                .rows = rows, .D = D, .x = x, .y = y1, .gamma = g, .beta = b, .eps = 1e-5, .mean = m1, .rstd = r1};
            tp->forward(&a);
            a.y = y2, a.mean = m2, a.rstd = r2;
            k->forward(&a);
            for (size_t r = 1; r < rows; r += 4) {
                if (memcmp((char *)y1 + r * D * es, (char *)y2 + r * D * es, D * es) || m1[r] != m2[r] ||
                    r1[r] != r2[r])
                    fail_msg("%s D=%zu row %zu: a bad shift was not redone as %s", k->name, D, r, tp->name);
                checked++;
            }
            free(x), free(y1), free(y2), free(g), free(b);
        }
    }
    char shifted[64];
    snprintf(shifted, sizeof shifted, "f32-shifted-%s", ln_num_isas ? ln_isas[0].name : "none");
    if (base_simd_here() && ln_kernel_find(shifted)) assert_true(checked > 0);
}

/* An fp32 SIMD kernel of the "accurate" algorithm. */
static int is_simd_accurate(const ln_kernel *k)
{
    char alg[32];
    return is_simd(k) && k->dtype == LN_F32 && strcmp(ln_kernel_algorithm(k, alg, sizeof alg), "accurate") == 0;
}

/* An "accurate" fp32 kernel that takes its sums about a shift from the row's first elements
 * must sum a row again when that shift is far from the mean: on rows whose first 32 elements sit
 * 100 above the rest, or whose first 16 are centred on 0 (a zero shift) while the rest sit at
 * 1000 (among good rows, themselves centred: the loops without the subtraction), its outputs are the scalar accurate kernel's (the
 * correctly rounded ones but for rare ties: >= 99.9% the same bits, none more than 1 ulp off)
 * and its statistics agree to 1e-12. At these lengths the sums about the bad shift are still
 * that close (a kernel that never redoes passes too): test_accurate_long_bad_shifts_within_bound
 * is the one that needs the redo. */
static void test_accurate_redoes_bad_shifts(void **state)
{
    (void)state;
    const ln_kernel *sc = ln_kernel_find("f32-accurate-scalar");
    assert_non_null(sc);
    const size_t dims[] = {300, 2100, 4100}, rows = 11; /* 4100: long rows, in pairs */
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!is_simd_accurate(k)) continue;
        for (size_t ni = 0; ni < 3; ni++) {
            const size_t D = dims[ni];
            float *x = malloc(rows * D * 4), *y1 = malloc(rows * D * 4), *y2 = malloc(rows * D * 4);
            float *g = malloc(D * 4), *b = malloc(D * 4);
            double m1[11], r1[11], m2[11], r2[11];
            uint32_t seed = 777;
            for (size_t j = 0; j < rows * D; j++) {
                seed = seed * 1664525u + 1013904223u;
                const size_t kind = (j / D) % 4;
                x[j] = (float)((double)(seed >> 8) * 0x1p-23 - 1.0 + (kind == 1 && j % D < 32 ? 100.0 : 0.0) +
                               (kind == 3 && j % D >= 16 ? 1000.0 : 0.0));
            }
            for (size_t j = 0; j < D; j++) g[j] = 1.0f + 0.25f * (float)(j % 5) / 4, b[j] = 0.25f * (float)(j % 3) / 2;
            ln_args a = {
                .rows = rows, .D = D, .x = x, .y = y1, .gamma = g, .beta = b, .eps = 1e-5, .mean = m1, .rstd = r1};
            sc->forward(&a);
            a.y = y2, a.mean = m2, a.rstd = r2;
            k->forward(&a);
            size_t same = 0;
            for (size_t j = 0; j < rows * D; j++) {
                same += y1[j] == y2[j];
                if (!(fabsf(y1[j] - y2[j]) <= nextafterf(fabsf(y1[j]), INFINITY) - fabsf(y1[j])))
                    fail_msg("%s D=%zu element %zu: %.9g against %.9g (%s)", k->name, D, j, y2[j], y1[j], sc->name);
            }
            if (same < 0.999 * (double)(rows * D))
                fail_msg("%s D=%zu: only %zu of %zu outputs correctly rounded", k->name, D, same, rows * D);
            for (size_t r = 0; r < rows; r++)
                if (!(fabs(m1[r] - m2[r]) <= 1e-12 / r1[r] && fabs(r1[r] - r2[r]) <= 1e-12 * r1[r]))
                    fail_msg("%s D=%zu row %zu: mean %.17g rstd %.17g, %s %.17g %.17g", k->name, D, r, m2[r], r2[r],
                             sc->name, m1[r], r1[r]);
            checked++;
            free(x), free(y1), free(y2), free(g), free(b);
        }
    }
    if (base_simd_here()) assert_true(checked > 0);
}

/* Sums about a bad shift lose what the redo of test_accurate_redoes_bad_shifts is for only
 * on long rows: |mean - K| <= sqrt(2 n/W) sigma whatever the shift (acc_shift), so the variance
 * about K is off by ~n u_d (mean - K)^2 / sigma^2 <= 2 n^2/W u_d relative, and with the double
 * sums of fp32 data often exact, below the kernel's stated slack unless n is large. Rows of
 * 2^18 whose first 16 elements alternate -A, +A (they look centred: the shift is 0) while the
 * rest sit at A (1e6 with noise, 1.3 constant): without the redo their rstd is 14-25 times the
 * stated slack off. Between them, centred rows (no redo), so the pipeline and the row pairs
 * mix both. Against the MPFR reference, each row within what the kernel claims: outputs within
 * bound(D, kappa) u normwise, and the mean (to sigma) and rstd (relative) within the bound's
 * part other than the final rounding, (bound - 1) u, which covers each of their errors
 * (bounds.h: the mean's and the variance's terms carry gains >= 1); the mean as returned is
 * also rounded once to double. */
static void test_accurate_long_bad_shifts_within_bound(void **state)
{
    (void)state;
    const size_t D = (size_t)1 << 18, rows = 4;
    float *x = malloc(rows * D * 4), *y = malloc(rows * D * 4), *yr = malloc(rows * D * 4), *g = malloc(D * 4),
          *b = malloc(D * 4);
    double *hi = malloc(rows * D * sizeof *hi), *lo = malloc(rows * D * sizeof *lo);
    assert_true(x && y && yr && g && b && hi && lo);
    const double offset[] = {0.0, 1e6, 1.3, 0.0}, noise[] = {1.0, 1.0, 0.0, 1.0};
    uint32_t seed = 4242;
    for (size_t j = 0; j < rows * D; j++) {
        seed = seed * 1664525u + 1013904223u;
        const size_t r = j / D, c = j % D;
        const double u = (double)(seed >> 8) * 0x1p-23 - 1.0, a = offset[r];
        x[j] = (float)(c < 16 ? (c % 2 ? a : -a) + u : a + noise[r] * u);
    }
    for (size_t j = 0; j < D; j++) g[j] = 1.0f + 0.25f * (float)(j % 5) / 4, b[j] = 0.25f * (float)(j % 3) / 2;
    ln_ref_stats st[4];
    for (size_t r = 0; r < rows; r++)
        ln_ref_row(LN_F32, D, x + r * D, g, b, 1e-5, yr + r * D, hi + r * D, lo + r * D, &st[r]);
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!is_simd_accurate(k)) continue;
        double m[4], rs[4];
        ln_args a = {.rows = rows, .D = D, .x = x, .y = y, .gamma = g, .beta = b, .eps = 1e-5, .mean = m, .rstd = rs};
        k->forward(&a);
        for (size_t r = 0; r < rows; r++) {
            const double bound = k->bound(D, st[r].kappa), slack = (bound - 1.0) * 0x1p-24, sigma = sqrt(st[r].var);
            double err = 0, ymax = 0;
            for (size_t j = r * D; j < (r + 1) * D; j++) {
                err = fmax(err, fabs(((double)y[j] - hi[j]) - lo[j]));
                ymax = fmax(ymax, fabs(hi[j]));
            }
            if (!(err <= bound * 0x1p-24 * ymax))
                fail_msg("%s row %zu: normwise error %g u > bound %g u", k->name, r, err / ymax * 0x1p24, bound);
            if (!(fabs(m[r] - st[r].mean) <= slack * sigma + 0x1p-53 * fabs(st[r].mean)))
                fail_msg("%s row %zu: mean %.17g, exact %.17g: off by %g sigma > %g", k->name, r, m[r], st[r].mean,
                         fabs(m[r] - st[r].mean) / sigma, slack);
            if (!(fabs(rs[r] - st[r].rstd) <= slack * st[r].rstd))
                fail_msg("%s row %zu: rstd %.17g, exact %.17g: relative error %g > %g", k->name, r, rs[r], st[r].rstd,
                         fabs(rs[r] - st[r].rstd) / st[r].rstd, slack);
        }
        checked++;
    }
    free(x), free(y), free(yr), free(g), free(b), free(hi), free(lo);
    if (base_simd_here()) assert_true(checked > 0);
}

/* Outputs of 32 MiB and more go out with non-temporal stores and, in some kernels, through
 * other row schedules (prefetching pipelines, row by row, two rows in alternating chunks): every
 * fp32 SIMD kernel must give the rows of such a call the bits of the same rows computed alone (in
 * cache), bad shifts (the first 32 elements 100 above the rest, every fourth row) included. */
static void test_streaming_rows_match(void **state)
{
    (void)state;
    const size_t dims[] = {1024, 4096, 16384}, bytes = (size_t)33 << 20;
    for (size_t ni = 0; ni < 3; ni++) {
        const size_t D = dims[ni], rows = bytes / 4 / D,
                     check[] = {0, 1, 2, rows / 2, rows / 2 + 1, rows - 2, rows - 1};
        float *x = malloc(rows * D * 4), *y = malloc(rows * D * 4), *y1 = malloc(D * 4), *g = malloc(D * 4),
              *b = malloc(D * 4);
        double *m = malloc(rows * sizeof *m), *r5 = malloc(rows * sizeof *r5), m1, r1;
        uint32_t seed = 99;
        for (size_t j = 0; j < rows * D; j++) {
            seed = seed * 1664525u + 1013904223u;
            x[j] = (float)((double)(seed >> 8) * 0x1p-23 - 1.0 + ((j / D) % 4 == 1 && j % D < 32 ? 100.0 : 0.0));
        }
        for (size_t j = 0; j < D; j++) g[j] = 1.0f + 0.25f * (float)(j % 5) / 4, b[j] = 0.25f * (float)(j % 3) / 2;
        for (size_t i = 0; i < ln_num_kernels; i++) {
            const ln_kernel *k = ln_all_kernels[i];
            if (!is_simd(k) || k->dtype != LN_F32) continue;
            ln_args a = {
                .rows = rows, .D = D, .x = x, .y = y, .gamma = g, .beta = b, .eps = 1e-5, .mean = m, .rstd = r5};
            k->forward(&a);
            for (size_t c = 0; c < sizeof check / sizeof *check; c++) {
                const size_t r = check[c];
                ln_args one = {.rows = 1,
                               .D = D,
                               .x = x + r * D,
                               .y = y1,
                               .gamma = g,
                               .beta = b,
                               .eps = 1e-5,
                               .mean = &m1,
                               .rstd = &r1};
                k->forward(&one);
                if (memcmp(y + r * D, y1, D * 4) || m[r] != m1 || r5[r] != r1)
                    fail_msg("%s D=%zu: row %zu of a %zu-row call differs from the same row alone", k->name, D, r,
                             rows);
            }
        }
        free(x), free(y), free(y1), free(g), free(b), free(m), free(r5);
    }
}

/* Every SIMD kernel of dtype t on rows of D: each row's outputs and statistics are the bits of
 * a call on that row alone (y there aligned), with y yoff elements past a 64-byte boundary. */
static void check_rows_alone(ln_dtype t, size_t D, size_t rows, size_t yoff)
{
    const size_t es = ln_fmt(t)->size, bytes = D * es;
    ln_prepared p;
    prepare(&p, t, "shifted", D, rows, 1);
    unsigned char *buf = aligned_alloc(64, (rows * bytes + yoff * es + 63) / 64 * 64), *y = buf + yoff * es;
    unsigned char *y1 = aligned_alloc(64, (bytes + 63) / 64 * 64);
    double *m = malloc(rows * sizeof *m), *rs = malloc(rows * sizeof *rs), m1, r1;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (k->dtype != t || !is_simd_any(k)) continue;
        ln_args a = {.rows = rows,
                     .D = D,
                     .x = p.x,
                     .y = y,
                     .gamma = p.gamma,
                     .beta = p.beta,
                     .eps = p.c.eps,
                     .mean = m,
                     .rstd = rs};
        k->forward(&a);
        for (size_t r = 0; r < rows; r++) {
            ln_args one = a;
            one.rows = 1, one.x = (const unsigned char *)p.x + r * bytes, one.y = y1, one.mean = &m1, one.rstd = &r1;
            k->forward(&one);
            if (memcmp(y + r * bytes, y1, bytes) || !(m[r] == m1 || (isnan(m[r]) && isnan(m1))) ||
                !(rs[r] == r1 || (isnan(rs[r]) && isnan(r1))))
                fail_msg("%s D=%zu: row %zu of %zu (y %zu elements past a line) differs from the same row alone",
                         k->name, D, r, rows, yoff);
        }
    }
    free(buf), free(y1), free(m), free(rs);
    ln_prepared_free(&p);
}

/* A row's outputs and statistics do not depend on its neighbours: kernels that pipeline rows
 * or group them give each row the same bits as a call on that row alone. Short rows, rows past
 * the pipelines' limits, every dtype. */
static void test_rows_are_independent(void **state)
{
    (void)state;
    const size_t dims[] = {7, 300, 2100, 4100};
    for (int t = 0; t < LN_NDTYPES; t++)
        for (size_t ni = 0; ni < 4; ni++) check_rows_alone((ln_dtype)t, dims[ni], 5, 0);
}

/* Long rows in cache go in groups of rows normalized while the next group is summed, block by
 * block (f32-shifted's row groups, the 16-bit kernels' row pairs): 11 rows (groups of 4 leave
 * 3, pairs leave 1), D a multiple of the blocks and not (5000: a short last block, sums with a
 * tail), y 1 element past a line (its first and last lines partial). Every row the bits of the
 * row alone. */
static void test_row_groups_match_rows_alone(void **state)
{
    (void)state;
    const size_t dims[] = {4096, 5000};
    for (int t = 0; t < LN_NDTYPES; t++)
        for (size_t ni = 0; ni < 2; ni++) check_rows_alone((ln_dtype)t, dims[ni], 11, 1);
}

/* rows = 0 or D = 0 write nothing. */
static void test_empty_is_noop(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4}, y[4] = {-7, -7, -7, -7}, mean = -7, rstd = -7;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!is_simd(k)) continue;
        ln_args a = {.rows = 0, .D = 2, .x = x, .y = y, .eps = 1e-5, .mean = &mean, .rstd = &rstd};
        k->forward(&a);
        a.rows = 2;
        a.D = 0;
        k->forward(&a);
        for (int j = 0; j < 4; j++)
            if (y[j] != -7) fail_msg("%s wrote y on an empty call", k->name);
        if (mean != -7 || rstd != -7) fail_msg("%s wrote mean/rstd on an empty call", k->name);
    }
}

static void set_cap(const char *word)
{
    unsigned mask;
    assert_int_equal(ln_cpu_cap_from_name(word, &mask), 0);
    ln_cpu_set_cap(mask);
}

/* The ISA cap hides the kernels it excludes: capped at the first line of the ISA table (AVX2,
 * NEON), every kernel that needs a later line is gone. */
static void test_isa_cap_hides_kernels(void **state)
{
    (void)state;
    if (ln_num_isas) {
        set_cap(ln_isas[0].name);
        for (size_t i = 0; i < ln_num_kernels; i++)
            if (ln_all_kernels[i]->isa & ~ln_isas[0].bit) assert_false(ln_kernel_available(ln_all_kernels[i]));
    }
    set_cap("scalar");
    for (size_t i = 0; i < ln_num_kernels; i++)
        if (!ln_all_kernels[i]->usable)
            assert_int_equal(ln_kernel_available(ln_all_kernels[i]), ln_all_kernels[i]->isa == 0);
        else if (ln_all_kernels[i]->isa) assert_false(ln_kernel_available(ln_all_kernels[i]));
    set_cap("native");
}

static size_t thread_count(void)
{
    size_t n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The oneDNN peers (one per dtype, where oneDNN has one for this CPU): within their claimed bound (except on huge rows, whose fp32
 * squares overflow inside oneDNN: its output is beta there, as its `how` says), and on the
 * calling thread only. */
static void test_onednn_peer(void **state)
{
    (void)state;
    size_t before = thread_count(), peers = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (strncmp(k->name, "ext-onednn", 10) != 0) continue;
        /* oneDNN 2.6 has fp32 layer normalization on every x86-64, bf16 only with AVX-512 */
        if (!ln_kernel_available(k)) {
            assert_int_not_equal(k->dtype, LN_F32);
            continue;
        }
        peers++;
        const size_t dims[] = {1, 17, 257, 1024};
        for (size_t di = 0; di < NDISTS; di++)
            for (size_t ni = 0; ni < 4; ni++) {
                if (strcmp(all_dists[di], "huge") == 0) continue;
                ln_prepared p;
                prepare(&p, k->dtype, all_dists[di], dims[ni], 3, di != 1);
                check_kernel(k, &p, all_dists[di]);
                ln_prepared_free(&p);
            }
    }
    if (!peers) skip();
    if (before) assert_int_equal(thread_count(), before);
}

/* Two threads calling one peer (oneDNN, libtorch) at once, each on its own half of the rows with
 * the same shape (so a primitive cache shared by the process would hand both the same memory
 * objects: verified to fail so): every call gives the bits of a one-thread call on those rows,
 * and the library starts no thread of its own. */
#define PEER_THREADS 2
#define PEER_CALLS 5000

typedef struct {
    const ln_kernel *k;
    ln_args a;
    const unsigned char *expect; /* this half's rows of the one-thread output */
    size_t bytes;
    atomic_int *arrived; /* every call starts in both threads at once (a spinning barrier) */
    int mismatches;
} peer_share;

static void *call_peer(void *arg)
{
    peer_share *s = arg;
    for (int i = 0; i < PEER_CALLS; i++) {
        memset(s->a.y, 0xff, s->bytes);
        atomic_fetch_add(s->arrived, 1);
        while (atomic_load(s->arrived) < (i + 1) * PEER_THREADS) sched_yield();
        s->k->forward(&s->a);
        s->mismatches += memcmp(s->a.y, s->expect, s->bytes) != 0;
    }
    return NULL;
}

static void test_peers_from_threads(void **state)
{
    (void)state;
    size_t peers = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!k->external || k->op != LN_OP_LAYERNORM || !ln_kernel_available(k)) continue;
        peers++;
        ln_prepared p;
        prepare(&p, k->dtype, "normal", 17, PEER_THREADS, 1);
        size_t esize = ln_fmt(k->dtype)->size, half = p.c.rows / PEER_THREADS * p.c.D * esize;
        unsigned char *whole = malloc(p.c.rows * p.c.D * esize), *ys = malloc(p.c.rows * p.c.D * esize);
        assert_non_null(whole), assert_non_null(ys);
        ln_args a = {
            .rows = p.c.rows, .D = p.c.D, .x = p.x, .y = whole, .gamma = p.gamma, .beta = p.beta, .eps = p.c.eps};
        k->forward(&a);
        size_t before = thread_count();
        peer_share s[PEER_THREADS];
        pthread_t th[PEER_THREADS];
        atomic_int arrived = 0;
        for (int t = 0; t < PEER_THREADS; t++) {
            s[t] = (peer_share){.k = k, .a = a, .expect = whole + t * half, .bytes = half, .arrived = &arrived};
            s[t].a.rows = p.c.rows / PEER_THREADS;
            s[t].a.x = (const unsigned char *)p.x + t * half;
            s[t].a.y = ys + t * half;
            assert_int_equal(pthread_create(&th[t], NULL, call_peer, &s[t]), 0);
        }
        for (int t = 0; t < PEER_THREADS; t++) pthread_join(th[t], NULL);
        if (before) assert_int_equal(thread_count(), before);
        for (int t = 0; t < PEER_THREADS; t++)
            if (s[t].mismatches)
                fail_msg("%s: %d of %d calls of thread %d differ", k->name, s[t].mismatches, PEER_CALLS, t);
        free(whole), free(ys);
        ln_prepared_free(&p);
    }
    if (!peers) skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_claimed_bound),
        cmocka_unit_test(test_alignment_and_in_place),
        cmocka_unit_test(test_agrees_with_scalar_sibling),
        cmocka_unit_test(test_fused_is_twopass_reordered),
        cmocka_unit_test(test_shifted_redoes_bad_shifts),
        cmocka_unit_test(test_accurate_redoes_bad_shifts),
        cmocka_unit_test(test_accurate_long_bad_shifts_within_bound),
        cmocka_unit_test(test_rows_are_independent),
        cmocka_unit_test(test_row_groups_match_rows_alone),
        cmocka_unit_test(test_streaming_rows_match),
        cmocka_unit_test(test_empty_is_noop),
        cmocka_unit_test(test_isa_cap_hides_kernels),
        cmocka_unit_test(test_onednn_peer),
        cmocka_unit_test(test_peers_from_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
