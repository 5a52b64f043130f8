/* Tunables (kernel.h's ln_tunable): a kernel's tunables pick loop forms and distances, never the
 * output bits. Every kernel this CPU runs is run with every allowed value of each of its
 * tunables, one at a time, and must give the bits (y, mean, rstd; dx, dgamma, dbeta) of its defaults, on small
 * shapes in cache and on the same shapes through the streaming code (the streaming threshold
 * tunable set to 0, which is how small inputs reach it). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu.h"
#include "dtype.h"
#include "kernel.h"
#include "tunables.h"

/* D and rows: SIMD tails (257; 1032: whole vectors past the 64-byte lines that streaming kernels
 * store whole; 1043: whole vectors and a part past the unrolled loops, between two row-length
 * thresholds), short rows, and rows past each row-length threshold's defaults. The arrays start
 * on pages, so that rows a multiple of 4 KiB apart (1024, 4096: 16-bit 2048) and rows a little
 * short of it (1000, 16-bit 2000) reach the kernels' placements against 4K aliasing; and 16-bit
 * rows of 1000 do not all start on a 64-byte line. */
static const size_t shapes[][2] = {{257, 9},  {1000, 5}, {1024, 6}, {1032, 5}, {1043, 6},
                                   {2000, 4}, {4096, 5}, {8192, 4}, {16384, 3}};

static const ln_kernel *const *all(size_t *n, size_t which)
{
    *n = which ? ln_num_op_kernels : ln_num_kernels;
    return which ? ln_op_kernels : ln_all_kernels;
}

/* Every table well formed: lower-case unique names, a one-line description, values ascending,
 * the default among them. */
static void test_tables_well_formed(void **state)
{
    (void)state;
    size_t tables = 0;
    for (size_t which = 0; which < 2; which++) {
        size_t n;
        const ln_kernel *const *ks = all(&n, which);
        for (size_t i = 0; i < n; i++) {
            const ln_kernel *k = ks[i];
            assert_true(k->n_tunables == 0 || k->tunables != NULL);
            tables += k->n_tunables > 0;
            for (size_t t = 0; t < k->n_tunables; t++) {
                const ln_tunable *u = &k->tunables[t];
                int has_def = 0;
                assert_non_null(u->name);
                assert_non_null(u->what);
                assert_null(strchr(u->what, '\n'));
                for (const char *c = u->name; *c; c++) assert_true((*c >= 'a' && *c <= 'z') || *c == '_');
                for (size_t o = 0; o < t; o++) assert_string_not_equal(k->tunables[o].name, u->name);
                assert_true(u->n_values >= 2);
                for (size_t v = 0; v < u->n_values; v++) {
                    if (v) assert_true(u->values[v] > u->values[v - 1]);
                    has_def |= u->values[v] == u->def;
                }
                assert_true(has_def);
            }
        }
    }
    assert_true(tables > 0);
}

typedef struct {
    size_t rows, D, size;
    void *x, *y, *g, *b, *dy;
    double *mean, *rstd; /* a backward kernel's saved statistics (inputs) */
    void *r, *h;         /* the fused ops' residual and h = x + r (NULL for the other ops) */
} bufs;

/* k's outputs on the inputs of b, params p (NULL: defaults): y, or dx with dgamma and dbeta after
 * it (y holds rows x D + 2 D elements), and the statistics into mean, rstd (forward). */
static void run(const ln_kernel *k, const bufs *b, void *y, double *mean, double *rstd, const int *p)
{
    const int bwd = ln_op_is_backward(k->op);
    const size_t out = b->rows * b->D * b->size;
    ln_args a = {.rows = b->rows,
                 .D = b->D,
                 .x = b->x,
                 .y = bwd ? NULL : y,
                 .gamma = b->g,
                 .beta = bwd ? NULL : b->b,
                 .eps = 1e-5,
                 .mean = bwd ? b->mean : mean,
                 .rstd = bwd ? b->rstd : rstd,
                 .params = p,
                 .r = b->r,
                 .h = b->h,
                 .dy = bwd ? b->dy : NULL,
                 .dx = bwd ? y : NULL,
                 .dgamma = bwd ? (char *)y + out : NULL,
                 .dbeta = bwd ? (char *)y + out + b->D * b->size : NULL};
    memset(y, 0, out + (bwd ? 2 * b->D * b->size : 0));
    if (bwd) memset(mean, 0, 2 * b->rows * sizeof(double)); /* compared below: nothing returned */
    k->forward(&a);
}

/* Rows of normal-ish values about offsets that vary by row (some far from the first elements, so
 * the shifted kernels' fallbacks run too), gamma and beta drawn; for the backward ops dy drawn,
 * saved statistics, and a row 2 for the fp32 kernels' double row (in the middle of a row group). */
static void fill(bufs *b, ln_dtype t, int bwd)
{
    uint32_t s = 7;
    for (size_t i = 0; i < b->rows * b->D; i++) {
        s = s * 1664525u + 1013904223u;
        double off = (i / b->D) % 3 == 1 ? 100.0 : (i / b->D) % 3 == 2 && i % b->D < 64 ? 50.0 : 0.0;
        ln_store(t, b->x, i, (double)(s >> 8) * 0x1p-23 - 0.5 + off);
        ln_store(t, b->dy, i, (double)(s & 0xffff) * 0x1p-15 - 1.0);
    }
    for (size_t i = 0; i < b->D; i++) {
        ln_store(t, b->g, i, 1.0 + 0.25 * (double)(i % 5) / 4);
        ln_store(t, b->b, i, 0.25 * (double)(i % 3) / 2);
    }
    for (size_t r = 0; r < b->rows; r++) {
        b->mean[r] = r % 3 == 1 ? 100.0 : r % 3 == 2 ? 50.0 * 64 / (double)b->D : 0.0;
        b->rstd[r] = 3.4 + 0.1 * (double)r;
    }
    if (!bwd) return;
    /* row 2: x within 2^-128 of its mean 0 and rstd 2^129 (beyond fp32), so that its xhat, and
     * what it adds to dgamma, are ordinary numbers a changed bit shows in */
    b->mean[2] = 0, b->rstd[2] = 0x1p129;
    for (size_t i = 0; i < b->D; i++) ln_store(t, b->x, 2 * b->D + i, ((double)(i % 7) - 3) * 0x1p-130);
}

static void test_values_keep_bits(void **state)
{
    (void)state;
    size_t runs = 0, kernels = 0;
    for (size_t which = 0; which < 2; which++) {
        size_t n;
        const ln_kernel *const *ks = all(&n, which);
        for (size_t i = 0; i < n; i++) {
            const ln_kernel *k = ks[i];
            if (!k->n_tunables || !ln_kernel_available(k) || k->external) continue;
            kernels++;
            const long stream = ln_tunable_index(k, "stream_min_bytes");
            int *p = malloc(k->n_tunables * sizeof *p);
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                bufs b = {.rows = shapes[s][1], .D = shapes[s][0], .size = ln_fmt(k->dtype)->size};
                /* y, or dx and dgamma, dbeta; aligned_alloc wants a multiple of the alignment */
                const size_t bytes = ((b.rows + 2) * b.D * b.size + 64 + 4095) / 4096 * 4096;
                b.x = aligned_alloc(4096, bytes), b.g = malloc(b.D * b.size), b.b = malloc(b.D * b.size);
                b.dy = aligned_alloc(4096, bytes), b.mean = malloc(2 * b.rows * sizeof(double)),
                b.rstd = b.mean + b.rows;
                char *y0 = aligned_alloc(4096, bytes), *y1 = aligned_alloc(4096, bytes);
                double *m0 = malloc(2 * b.rows * sizeof(double)), *r0 = m0 + b.rows;
                double *m1 = malloc(2 * b.rows * sizeof(double)), *r1 = m1 + b.rows;
                fill(&b, k->dtype, ln_op_is_backward(k->op));
                /* the fused ops: r the rows of x in reverse order, and h, whose bits must not
                 * change either */
                const int fused = !strcmp(ln_ops[k->op].roles[1].name, "r");
                char *h0 = fused ? aligned_alloc(4096, bytes) : NULL;
                if (fused) {
                    b.r = aligned_alloc(4096, bytes), b.h = aligned_alloc(4096, bytes);
                    for (size_t e = 0; e < b.rows * b.D; e++)
                        memcpy((char *)b.r + e * b.size, (char *)b.x + (b.rows * b.D - 1 - e) * b.size, b.size);
                }
                /* y one element past a vector boundary on odd shapes: a lead of ordinary stores */
                char *ya = y0 + (s % 2) * b.size, *yb = y1 + (s % 2) * b.size;
                run(k, &b, ya, m0, r0, NULL);
                if (fused) memcpy(h0, b.h, b.rows * b.D * b.size);
                for (int regime = 0; regime < (stream >= 0 ? 2 : 1); regime++) {
                    for (size_t t = 0; t < k->n_tunables; t++) {
                        for (size_t v = 0; v < k->tunables[t].n_values; v++) {
                            for (size_t o = 0; o < k->n_tunables; o++) p[o] = k->tunables[o].def;
                            if (regime) p[stream] = 0; /* every call streams */
                            p[t] = k->tunables[t].values[v];
                            run(k, &b, yb, m1, r1, p);
                            runs++;
                            const size_t out = (b.rows + 2 * ln_op_is_backward(k->op)) * b.D * b.size;
                            if (memcmp(ya, yb, out) || memcmp(m0, m1, 2 * b.rows * sizeof(double)) ||
                                (fused && memcmp(h0, b.h, b.rows * b.D * b.size)))
                                fail_msg("%s D %zu rows %zu: %s = %d (%s) changed the outputs", k->name, b.D, b.rows,
                                         k->tunables[t].name, p[t], regime ? "streaming" : "defaults otherwise");
                        }
                    }
                }
                free(b.x), free(b.g), free(b.b), free(b.dy), free(b.mean), free(y0), free(y1), free(m0), free(m1);
                free(b.r), free(b.h), free(h0);
            }
            free(p);
        }
    }
#if LN_X86 /* every CPU with AVX2 runs the AVX2 kernels with tunables */
    if (ln_cpu_features() & LN_ISA_AVX2) assert_true(kernels >= 8 && runs > 0); /* the backward ones too */
#endif
    (void)runs, (void)kernels;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_well_formed),
        cmocka_unit_test(test_values_keep_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
