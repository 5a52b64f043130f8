/* The 16-bit kernels against the MPFR reference, and the reference itself on f16/bf16 rows whose
 * correctly rounded outputs are known by hand (subnormal ties, overflow). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "half.h"
#include "tunables.h"

static int is16(const ln_kernel *k) { return k->dtype == LN_F16 || k->dtype == LN_BF16; }
/* The kernels that do their arithmetic in the 16-bit format itself, eps included. */
static int is_native(const ln_kernel *k) { return strstr(k->name, "-native-") != NULL; }
/* Statistics in fp32, epilogue in f16 arithmetic (a few u16 per output: not nearly correctly
 * rounded, see its bound). */
static int has_f16_epilogue(const ln_kernel *k) { return strstr(k->name, "-f16epi-") != NULL; }
/* The project's fp32-accumulating ones (not a peer library's). */
static int is_f32acc_own(const ln_kernel *k) { return !is_native(k) && strncmp(k->name, "ext-", 4) != 0; }
/* Kernels whose statistics are computed in 16-bit arithmetic: the native f16 ones, and PyTorch
 * 1.13's bf16 layer norm (its moments in Vectorized<BFloat16>, every op rounded to bf16). */
static int computes_in_16bit(const ln_kernel *k) { return is_native(k) || strcmp(k->name, "ext-torch-bf16") == 0; }

static size_t count16(void)
{
    size_t n = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) n += is16(ln_all_kernels[i]) && ln_kernel_available(ln_all_kernels[i]);
    return n;
}

static void prepare(ln_prepared *p, ln_dtype t, const char *dist, size_t D, size_t rows, double eps, int affine)
{
    ln_case c = {.dtype = t, .D = D, .rows = rows, .eps = eps, .seed = 11, .affine = affine};
    ln_dist_parse(dist, &c.dist);
    assert_int_equal(ln_prepare(&c, p), 0);
}

/* Every 16-bit kernel within its claimed normwise bound: every tail length up to three of the
 * widest vectors and one, 257, 768, and 4097 (past the AVX-512 kernels' row pipeline). */
static void test_within_claimed_bound(void **state)
{
    (void)state;
    assert_true(count16() >= 3);
    const char *dists[] = {"normal", "uniform", "shifted"};
    size_t dims[128], nd = 0, w = 1;
    for (size_t i = 0; i < ln_num_kernels; i++)
        if (is16(ln_all_kernels[i]) && ln_kernel_available(ln_all_kernels[i]) &&
            ln_kernel_vector_width(ln_all_kernels[i]) > w)
            w = ln_kernel_vector_width(ln_all_kernels[i]);
    for (size_t D = 1; D <= 3 * w + 1; D++) dims[nd++] = D;
    dims[nd++] = 257, dims[nd++] = 768, dims[nd++] = 4097;
    for (int t = LN_F16; t <= LN_BF16; t++)
        for (size_t di = 0; di < 3; di++)
            for (size_t ni = 0; ni < nd; ni++) {
                ln_prepared p;
                prepare(&p, (ln_dtype)t, dists[di], dims[ni], 3, 1e-5, 1);
                for (size_t i = 0; i < ln_num_kernels; i++) {
                    const ln_kernel *k = ln_all_kernels[i];
                    if (k->dtype != (ln_dtype)t || !ln_kernel_available(k)) continue;
                    ln_errors e;
                    ln_measure_kernel(k, &p, &e, NULL);
                    double b = k->bound(dims[ni], ln_kappa_max(&p));
                    if (e.nonfinite || !(e.max_norm <= b))
                        fail_msg("%s on %s D=%zu: max_norm %g u, bound %g u, %zu non-finite", k->name, dists[di],
                                 dims[ni], e.max_norm, b, e.nonfinite);
                }
                ln_prepared_free(&p);
            }
}

/* Widen, compute in fp32, round once: nearly always the correctly rounded result. Without
 * gamma and beta: with them, y = v gamma + beta cancels near its zero crossings, where the fp32
 * epilogue's absolute error (~2^-24) exceeds an ulp of the tiny f16 result (2^-24 for
 * subnormals), so any fp32 kernel shows ~1.6 ulp there (the normwise bound still holds). */
static void test_fp32_accumulating_nearly_correctly_rounded(void **state)
{
    (void)state;
    for (int t = LN_F16; t <= LN_BF16; t++) {
        ln_prepared p;
        prepare(&p, (ln_dtype)t, "normal", 768, 32, 1e-5, 0);
        for (size_t i = 0; i < ln_num_kernels; i++) {
            const ln_kernel *k = ln_all_kernels[i];
            if (k->dtype != (ln_dtype)t || !ln_kernel_available(k) || computes_in_16bit(k) || has_f16_epilogue(k))
                continue;
            ln_errors e;
            ln_measure_kernel(k, &p, &e, NULL);
            if (!(e.cr_frac >= 0.99 && e.max_ulp <= 1.0))
                fail_msg("%s: cr_frac %g, max_ulp %g", k->name, e.cr_frac, e.max_ulp);
        }
        ln_prepared_free(&p);
    }
}

/* Zero rows with eps = 1e-12: the exact result is beta (0 without affine). Kernels that keep eps
 * in fp32 return exactly that. The native f16 kernels round eps to f16, where 1e-12 is 0, so
 * var + eps = 0, rstd = 1/sqrt(0) = Inf and (x - mean) * rstd = 0 * Inf = NaN on every element:
 * the realistic failure this project exists to show. With eps = 1e-5 (a f16 subnormal, 168 *
 * 2^-24) they are fine again. */
static void test_eps_on_zero_rows(void **state)
{
    (void)state;
    const double epss[] = {1e-12, 1e-5};
    for (int t = LN_F16; t <= LN_BF16; t++)
        for (int affine = 0; affine < 2; affine++)
            for (int ei = 0; ei < 2; ei++) {
                ln_prepared p;
                prepare(&p, (ln_dtype)t, "zero", 33, 2, epss[ei], affine);
                const uint16_t *ref = p.y_ref, *beta = p.beta;
                for (size_t j = 0; j < 2 * 33; j++) /* the reference: beta, or +-0 */
                    assert_int_equal(ref[j] & (affine ? 0xffff : 0x7fff), affine ? beta[j % 33] : 0);
                uint16_t y[2 * 33];
                for (size_t i = 0; i < ln_num_kernels; i++) {
                    const ln_kernel *k = ln_all_kernels[i];
                    if (k->dtype != (ln_dtype)t || !ln_kernel_available(k)) continue;
                    ln_errors e;
                    ln_measure_kernel(k, &p, &e, y);
                    if (is_native(k) && ei == 0) {
                        for (size_t j = 0; j < 2 * 33; j++) assert_true(isnan(ln_load(k->dtype, y, j)));
                        assert_int_equal(e.nonfinite, 2 * 33);
                    } else {
                        if (e.nonfinite) fail_msg("%s: %zu non-finite on zero rows", k->name, e.nonfinite);
                        for (size_t j = 0; j < 2 * 33; j++)
                            assert_true(ln_load(k->dtype, y, j) == ln_load(k->dtype, ref, j));
                    }
                }
                ln_prepared_free(&p);
            }
}

/* Constant rows: the two-pass forms x - mean = 0 exactly and returns 0; the mulbias epilogue
 * fma(x, rstd, -fl(mean rstd)) returns the rounding error of mean * rstd instead. */
static void test_mulbias_on_constant_rows(void **state)
{
    (void)state;
    const ln_kernel *mb = ln_kernel_find("bf16-f32acc-mulbias-avx512bf16");
    const ln_kernel *tp = ln_kernel_find("bf16-f32acc-twopass-avx512bf16");
    if (!mb || !tp || !ln_kernel_available(mb)) skip();
    ln_prepared p;
    prepare(&p, LN_BF16, "const", 64, 8, 1e-5, 0);
    uint16_t y[8 * 64];
    ln_errors e;
    ln_measure_kernel(tp, &p, &e, y);
    for (size_t j = 0; j < 8 * 64; j++) assert_true(ln_bf16_to_f32(y[j]) == 0.0f);
    ln_measure_kernel(mb, &p, &e, y);
    size_t nonzero = 0;
    for (size_t j = 0; j < 8 * 64; j++) nonzero += ln_bf16_to_f32(y[j]) != 0.0f;
    assert_true(nonzero > 0);
    ln_prepared_free(&p);
}

/* Rows whose statistics leave fp32's range, for every fp32-accumulating 16-bit kernel of the
 * project (the native ones promise nothing there; oneDNN's output is beta on huge rows, see
 * test_simd.c): bf16 `huge` rows, whose squares (and their sums)
 * overflow fp32, and `tiny` rows with eps = 0, whose squares underflow, within the claimed
 * bound; and rows {-a, a} with eps = 0, exactly {-1, 1}, for a whose square is 0 in fp32
 * (bf16 1e-25 and the subnormal 2^-130), a coarse fp32 subnormal (3 2^-76: 9 2^-152 rounds to
 * 2^-149, 11% off, so a kernel trusting its fp32 variance returns 0.945) or fits (f16 2^-24). */
static void test_statistics_beyond_fp32(void **state)
{
    (void)state;
    const char *dists[] = {"huge", "tiny"};
    const size_t dims[] = {2, 7, 33, 100, 768, 4097};
    for (int t = LN_F16; t <= LN_BF16; t++)
        for (size_t di = 0; di < 2; di++)
            for (size_t ni = 0; ni < sizeof dims / sizeof *dims; ni++)
                for (int ei = 0; ei < 2; ei++) {
                    ln_prepared p;
                    prepare(&p, (ln_dtype)t, dists[di], dims[ni], 3, ei ? 1e-5 : 0.0, 1);
                    for (size_t i = 0; i < ln_num_kernels; i++) {
                        const ln_kernel *k = ln_all_kernels[i];
                        if (k->dtype != (ln_dtype)t || !ln_kernel_available(k) || !is_f32acc_own(k)) continue;
                        ln_errors e;
                        ln_measure_kernel(k, &p, &e, NULL);
                        double b = k->bound(dims[ni], ln_kappa_max(&p));
                        if (e.nonfinite || !(e.max_norm <= b))
                            fail_msg("%s on %s D=%zu eps=%g: max_norm %g u, bound %g u, %zu non-finite", k->name,
                                     dists[di], dims[ni], ei ? 1e-5 : 0.0, e.max_norm, b, e.nonfinite);
                    }
                    ln_prepared_free(&p);
                }
    const double tiny[2][3] = {{0x1p-24, 0x3p-20, 0x1p-14}, {1e-25, 0x1p-130, 0x3p-76}};
    for (int t = LN_F16; t <= LN_BF16; t++)
        for (int ai = 0; ai < 3; ai++) {
            uint16_t x[6], y[6];
            for (int j = 0; j < 6; j++)
                ln_store((ln_dtype)t, x, (size_t)j, j % 2 ? tiny[t - LN_F16][ai] : -tiny[t - LN_F16][ai]);
            for (size_t i = 0; i < ln_num_kernels; i++) {
                const ln_kernel *k = ln_all_kernels[i];
                if (k->dtype != (ln_dtype)t || !ln_kernel_available(k) || !is_f32acc_own(k)) continue;
                ln_args a = {.rows = 3, .D = 2, .x = x, .y = y, .eps = 0.0};
                k->forward(&a);
                for (int j = 0; j < 6; j++)
                    if (ln_load((ln_dtype)t, y, (size_t)j) != (j % 2 ? 1.0 : -1.0))
                        fail_msg("%s on {-a, a}, a = %a, eps 0: y[%d] = %g, want %g", k->name, tiny[t - LN_F16][ai], j,
                                 ln_load((ln_dtype)t, y, (size_t)j), j % 2 ? 1.0 : -1.0);
            }
        }
}

/* The reference on rows worked out by hand: x = {3, -3}, eps = 7, so mean = 0, var = 9,
 * xhat = +-3/4 exactly; then y = gamma xhat + beta with gamma, beta chosen to land on ties. */
static void ref_case(ln_dtype t, double gamma, double beta, double eps, double x0, double want0, double want1)
{
    uint16_t x[2], g[2], b[2], y[2];
    ln_store(t, x, 0, x0);
    ln_store(t, x, 1, -x0);
    for (int i = 0; i < 2; i++) ln_store(t, g, i, gamma), ln_store(t, b, i, beta);
    assert_true(ln_load(t, g, 0) == gamma && ln_load(t, b, 0) == beta && ln_load(t, x, 0) == x0);
    ln_ref_row(t, 2, x, g, b, eps, y, NULL, NULL, NULL);
    double y0 = ln_load(t, y, 0), y1 = ln_load(t, y, 1);
    if (!(y0 == want0 && !signbit(y0) == !signbit(want0) && y1 == want1 && !signbit(y1) == !signbit(want1)))
        fail_msg("%s gamma %a beta %a: y = {%a, %a}, want {%a, %a}", ln_fmt(t)->name, gamma, beta, y0, y1, want0,
                 want1);
}

static void test_reference_known_rows(void **state)
{
    (void)state;
    for (int t = LN_F16; t <= LN_BF16; t++) {
        const ln_format *f = ln_fmt((ln_dtype)t);
        double s = ldexp(1.0, f->emin - f->p + 1); /* the smallest subnormal */
        ref_case(t, 1, 0, 7, 3, 0.75, -0.75);
        ref_case(t, s, 0, 7, 3, s, -s);                                     /* 0.75 units: 1 */
        ref_case(t, 2 * s, 0, 7, 3, 2 * s, -2 * s);                         /* 1.5 units: tie to even, 2 */
        ref_case(t, 3 * s, 0, 7, 3, 2 * s, -2 * s);                         /* 2.25 units: 2 */
        ref_case(t, 5 * s, 0, 7, 3, 4 * s, -4 * s);                         /* 3.75 units: 4 */
        ref_case(t, 2 * s, s, 7, 3, 2 * s, -0.0);                           /* 2.5 -> 2 and -0.5 -> -0 (ties to even) */
        double ulp = ldexp(1.0, -f->p);                                     /* ulp of 0.75 */
        ref_case(t, 1 + 2 * ulp, 0, 7, 3, 0.75 + 2 * ulp, -0.75 - 2 * ulp); /* 0.75 + 1.5 ulp: even */
        /* overflow: gamma = max, x = {1, -1}, eps = 0: y = +-max + beta */
        double max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax), half_ulp = ldexp(1.0, f->emax - f->p);
        ref_case(t, max, half_ulp, 0, 1, INFINITY, -max + 2 * half_ulp); /* ties: odd max loses */
        ref_case(t, max, half_ulp / 2, 0, 1, max, -max);
    }
}

/* The 16-bit SIMD backward kernels (norm-bwd.h) do the fp32 pipelined kernel's arithmetic on the
 * widened rows, sum for sum: their dx, dgamma and dbeta are that kernel's fp32 results rounded
 * once to 16 bits, bit for bit. f16 blocks put element i in the lane the fp32 kernel does, so any
 * D; bf16 blocks hold a block's even elements in one vector and its odd ones in the other, so the
 * fp32 kernel runs on rows whose every block of 2 W is laid out that way (D a multiple of the
 * block). Rows of several groups (1 .. 9 rows), with and without gamma, streaming or not. */
static uint32_t lcg_state;
static double lcg_normal(void)
{
    double s = 0;
    for (int k = 0; k < 12; k++) lcg_state = lcg_state * 1664525u + 1013904223u, s += (lcg_state >> 8) * 0x1p-24;
    return s - 6.0;
}

/* Where element i of a row sits in the fp32 kernel's row: within each block of hb elements,
 * bf16's even elements first, then its odd ones. */
static size_t bwd_lane(ln_dtype t, size_t hb, size_t i)
{
    const size_t k = i % hb;
    return t == LN_F16 ? i : i - k + (k % 2) * (hb / 2) + k / 2;
}

static void check_half_bwd_matches_f32(const ln_kernel *k, const ln_kernel *f, size_t D, size_t rows, int affine,
                                       int stream)
{
    const ln_dtype t = k->dtype;
    const size_t hb = ln_kernel_vector_width(k), n = rows * D, bytes = (n * 4 + 63) / 64 * 64;
    uint16_t *x = malloc(n * 2), *dy = malloc(n * 2), *dx = aligned_alloc(64, bytes), g[4096], dg[4096], db[4096];
    float *xf = malloc(n * 4), *dyf = malloc(n * 4), *dxf = aligned_alloc(64, bytes), gf[4096], dgf[4096], dbf[4096];
    double mean[9], rstd[9];
    assert_true(x && dy && dx && xf && dyf && dxf && D <= 4096 && rows <= 9);
    lcg_state = (uint32_t)(D * 31 + rows * 7 + (size_t)affine);
    for (size_t i = 0; i < D; i++) ln_store(t, g, i, 1.0 + 0.5 * lcg_normal());
    for (size_t i = 0; i < n; i++) ln_store(t, x, i, 3.0 + lcg_normal()), ln_store(t, dy, i, lcg_normal());
    for (size_t i = 0; i < n; i++) { /* the widened rows in the fp32 kernel's lanes */
        const size_t o = i / D * D, l = o + bwd_lane(t, hb, i % D);
        xf[l] = (float)ln_load(t, x, i), dyf[l] = (float)ln_load(t, dy, i);
    }
    for (size_t i = 0; i < D; i++) gf[bwd_lane(t, hb, i)] = (float)ln_load(t, g, i);
    for (size_t r = 0; r < rows; r++) { /* statistics of the stored rows */
        double m = 0, v = 0;
        for (size_t i = 0; i < D; i++) m += xf[r * D + i];
        m = k->op == LN_OP_LAYERNORM_BWD ? m / (double)D : 0.0;
        for (size_t i = 0; i < D; i++) v += (xf[r * D + i] - m) * (xf[r * D + i] - m);
        mean[r] = m, rstd[r] = 1.0 / sqrt(v / (double)D + 1e-5);
    }
    int pk[8], pf[8];
    assert_true(k->n_tunables == f->n_tunables && k->n_tunables <= 8 && k->n_tunables > 0);
    for (size_t i = 0; i < k->n_tunables; i++) pk[i] = k->tunables[i].def, pf[i] = f->tunables[i].def;
    const long st = ln_tunable_index(k, "stream_min_bytes"); /* 0 streams every call */
    assert_true(st >= 0 && ln_tunable_index(f, "stream_min_bytes") == st);
    if (stream) pk[st] = pf[st] = 0;
    ln_args a = {.rows = rows,
                 .D = D,
                 .x = x,
                 .gamma = affine ? g : NULL,
                 .eps = 1e-5,
                 .mean = mean,
                 .rstd = rstd,
                 .dy = dy,
                 .dx = dx,
                 .dgamma = dg,
                 .dbeta = db,
                 .params = pk};
    ln_args af = a;
    af.x = xf, af.gamma = affine ? gf : NULL, af.dy = dyf, af.dx = dxf, af.dgamma = dgf, af.dbeta = dbf, af.params = pf;
    k->forward(&a);
    f->forward(&af);
    for (size_t i = 0; i < n + 2 * D; i++) {
        const size_t j = i < n ? i : (i - n) % D, l = (i < n ? j / D * D : 0) + bwd_lane(t, hb, j % D);
        const uint16_t *got = i < n ? dx : i < n + D ? dg : db;
        const float *want = i < n ? dxf : i < n + D ? dgf : dbf;
        uint16_t w;
        ln_store(t, &w, 0, want[l]);
        if (got[j] != w)
            fail_msg("%s D=%zu rows=%zu affine=%d stream=%d: %s[%zu] = %#x, %s's rounded %#x", k->name, D, rows, affine,
                     stream,
                     i < n       ? "dx"
                     : i < n + D ? "dgamma"
                                 : "dbeta",
                     j, got[j], f->name, w);
    }
    free(x), free(dy), free(dx), free(xf), free(dyf), free(dxf);
}

static void test_half_bwd_is_f32_pipelined_rounded(void **state)
{
    (void)state;
    const size_t dims[] = {1, 7, 31, 33, 64, 100, 257, 1024, 4096}, nrows[] = {1, 2, 3, 5, 9};
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        const char *isa = strrchr(k->name, '-');
        if (!is16(k) || !ln_op_is_backward(k->op) || !strcmp(isa, "-scalar") || !ln_kernel_available(k)) continue;
        char fname[64];
        snprintf(fname, sizeof fname, "f32-%s-pipelined%s", k->op == LN_OP_LAYERNORM_BWD ? "lnbwd" : "rmsbwd", isa);
        const ln_kernel *f = ln_kernel_find(fname);
        assert_non_null(f);
        for (size_t di = 0; di < sizeof dims / sizeof *dims; di++) {
            if (k->dtype == LN_BF16 && dims[di] % ln_kernel_vector_width(k)) continue;
            for (size_t ri = 0; ri < sizeof nrows / sizeof *nrows; ri++)
                for (int affine = 0; affine < 2; affine++)
                    for (int stream = 0; stream < 2; stream++)
                        check_half_bwd_matches_f32(k, f, dims[di], nrows[ri], affine, stream), checked++;
        }
    }
#if LN_X86 || LN_ARM64
    assert_true(checked > 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_known_rows),
        cmocka_unit_test(test_within_claimed_bound),
        cmocka_unit_test(test_fp32_accumulating_nearly_correctly_rounded),
        cmocka_unit_test(test_eps_on_zero_rows),
        cmocka_unit_test(test_mulbias_on_constant_rows),
        cmocka_unit_test(test_statistics_beyond_fp32),
        cmocka_unit_test(test_half_bwd_is_f32_pipelined_rounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
