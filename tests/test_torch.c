/* PyTorch's layer norm as a peer (ext-torch-*; built where libtorch-dev is installed, skipped
 * elsewhere): it runs on one thread, agrees with the MPFR reference within its claimed bound,
 * computes what the public operator computes, and leaves the floating-point environment of the
 * rest of the process alone (libtorch loaded and called must not turn on flush-to-zero). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"

#if LN_HAVE_TORCH
#include "ext/torch.h"
#if LN_X86
#include <xmmintrin.h>
#endif

static const ln_kernel *torch_f32(void)
{
    const ln_kernel *k = ln_kernel_find("ext-torch-f32");
    assert_non_null(k);
    assert_true(ln_kernel_available(k));
    return k;
}

static void prepare(ln_prepared *p, const char *dist, size_t D, size_t rows)
{
    ln_case c = {.dtype = LN_F32, .D = D, .rows = rows, .eps = 1e-5, .seed = 5, .affine = 1};
    ln_dist_parse(dist, &c.dist);
    assert_int_equal(ln_prepare(&c, p), 0);
}

static size_t threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* One intra-op thread: ATen's thread count is 1, and its first calls (the usable() probe, then
 * 64 rows, which at::parallel_for would split across a team) start no thread: libgomp keeps a
 * team's threads alive after a parallel region, so a call that had used more would leave them
 * in /proc/self/task. The first test, so that no libtorch call precedes the count. */
static void test_one_thread(void **state)
{
    (void)state;
    ln_prepared p;
    prepare(&p, "normal", 4096, 64);
    size_t before = threads_now();
    const ln_kernel *k = torch_f32();
    ln_errors e;
    ln_measure_kernel(k, &p, &e, NULL);
    assert_int_equal(ln_torch_num_threads(), 1);
    if (before) assert_int_equal(threads_now(), before);
    ln_prepared_free(&p);
}

/* Within the claimed bound on benign, ill-conditioned and outlier rows, at lengths below one
 * vector's lanes, around a chunk and past the cascade; with the statistics out in range. */
static void test_within_bound(void **state)
{
    (void)state;
    const ln_kernel *k = torch_f32();
    const char *dists[] = {"normal", "offset:1e4", "outlier:1000"};
    const size_t dims[] = {1, 15, 17, 255, 257, 768, 4096, 16385};
    for (size_t di = 0; di < 3; di++)
        for (size_t ni = 0; ni < sizeof dims / sizeof dims[0]; ni++) {
            ln_prepared p;
            prepare(&p, dists[di], dims[ni], 3);
            ln_errors e;
            ln_measure_kernel(k, &p, &e, NULL);
            double b = k->bound(dims[ni], ln_kappa_max(&p));
            if (e.nonfinite || !(e.max_norm <= b))
                fail_msg("ext-torch-f32 on %s D=%zu: normwise %g u > bound %g u (%zu non-finite)", dists[di], dims[ni],
                         e.max_norm, b, e.nonfinite);
            if (!(e.mean_relerr <= b * 0x1p-24 && e.rstd_relerr <= b * 0x1p-24))
                fail_msg("ext-torch-f32 on %s D=%zu: mean/rstd error %g/%g u > %g u", dists[di], dims[ni],
                         e.mean_relerr / 0x1p-24, e.rstd_relerr / 0x1p-24, b);
            ln_prepared_free(&p);
        }
}

/* The kernel called directly computes what at::layer_norm computes: the same bits. */
static void test_same_as_operator(void **state)
{
    (void)state;
    const ln_kernel *k = torch_f32(), *op = ln_kernel_find("ext-torchop-f32");
    assert_non_null(op);
    ln_prepared p;
    prepare(&p, "offset:1e4", 1000, 5);
    float *y = malloc(5 * 1000 * sizeof *y), *yop = malloc(5 * 1000 * sizeof *yop);
    ln_errors e;
    ln_measure_kernel(k, &p, &e, y);
    ln_measure_kernel(op, &p, &e, yop);
    assert_memory_equal(y, yop, 5 * 1000 * sizeof *y);
    free(y);
    free(yop);
    ln_prepared_free(&p);
}

/* The add-layernorm composite (ext-torch-addln-f32): judged by the fused op's contract (h correctly
 * rounded, y within ext-torch-f32's bound on the stored h) on benign, ill-conditioned and outlier
 * rows; and the two operators it stands for: h bit-equal to x + r added in C, y bit-equal to
 * ext-torch-f32's on that h. */
static void test_add_layernorm_composite(void **state)
{
    (void)state;
    const ln_kernel *k = ln_kernel_find("ext-torch-addln-f32"), *plain = torch_f32();
    assert_non_null(k);
    const char *dists[] = {"normal", "offset:1e4", "outlier:1000"};
    const size_t dims[] = {15, 768, 4097};
    for (size_t di = 0; di < 3; di++)
        for (size_t ni = 0; ni < 3; ni++) {
            const size_t D = dims[ni], rows = 4;
            ln_case c = {
                .dtype = LN_F32, .D = D, .rows = rows, .eps = 1e-5, .seed = 9, .affine = 1, .op = LN_OP_ADD_LAYERNORM};
            ln_dist_parse(dists[di], &c.dist);
            ln_prepared p;
            assert_int_equal(ln_prepare(&c, &p), 0);
            float *y = malloc(rows * D * sizeof *y);
            ln_errors e;
            ln_verdict v;
            ln_measure_kernel(k, &p, &e, y);
            ln_judge(k, &p, y, &v);
            if (v.verdict != LN_PASS)
                fail_msg("ext-torch-addln-f32 on %s D=%zu: %s on %s (%g u, bound %g u)", dists[di], D,
                         ln_verdict_names[v.verdict], v.failed_on, v.error, v.bound);
            free(y);
            ln_prepared_free(&p);
            ln_dist_free(&c.dist);
        }
    const size_t rows = 3, D = 1000;
    float *x = malloc(rows * D * sizeof *x), *r = malloc(rows * D * sizeof *r), *h = malloc(rows * D * sizeof *h),
          *y = malloc(rows * D * sizeof *y), *y_plain = malloc(rows * D * sizeof *y_plain);
    for (size_t i = 0; i < rows * D; i++) {
        x[i] = 1e4f + (float)(i % 97) * 0.37f;
        r[i] = -1e4f + (float)(i % 89) * 0.0113f;
    }
    ln_args a = {.rows = rows, .D = D, .x = x, .r = r, .h = h, .y = y, .eps = 1e-5};
    k->forward(&a);
    for (size_t i = 0; i < rows * D; i++)
        if (h[i] != x[i] + r[i]) fail_msg("h[%zu] = %a, x + r = %a", i, h[i], x[i] + r[i]);
    ln_args b = {.rows = rows, .D = D, .x = h, .y = y_plain, .eps = 1e-5};
    plain->forward(&b);
    assert_memory_equal(y, y_plain, rows * D * sizeof *y);
    free(x), free(r), free(h), free(y), free(y_plain);
}

/* libtorch loaded and run leaves MXCSR's flush-to-zero and denormals-are-zero off, so the other
 * kernels' subnormal results stay as they are measured without it. */
static void test_no_flush_to_zero(void **state)
{
    (void)state;
#if LN_X86
    const ln_kernel *k = torch_f32();
    ln_prepared p;
    prepare(&p, "tiny", 64, 2);
    ln_errors e;
    ln_measure_kernel(k, &p, &e, NULL);
    assert_int_equal(_mm_getcsr() & 0x8040u, 0); /* FTZ is bit 15, DAZ bit 6 */
    ln_prepared_free(&p);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),       cmocka_unit_test(test_within_bound),
        cmocka_unit_test(test_same_as_operator), cmocka_unit_test(test_add_layernorm_composite),
        cmocka_unit_test(test_no_flush_to_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void test_not_built(void **state)
{
    (void)state;
    skip(); /* libtorch-dev not installed: no ext-torch-* kernels in this build */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_not_built)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
