/* The 16-bit conversions, exhaustively: kernels/half.h (float <-> f16/bf16) and common/dtype.c
 * (double <-> f16/bf16) against MPFR emulating each format (precision, exponent range,
 * subnormals), and against the hardware instructions where the CPU has them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "half.h"
#include "kernel.h"
#include "vl_repeat.h"

#if LN_X86
#include <immintrin.h>
#elif LN_ARM64
#include <arm_neon.h>
#endif
#include "simd/half-blocks.h"

typedef struct {
    ln_dtype t;
    uint16_t (*from_f32)(float);
    float (*to_f32)(uint16_t);
    uint16_t (*from_f64)(double);
    double (*to_f64)(uint16_t);
    uint16_t inf;   /* bit pattern of +Inf */
    uint16_t quiet; /* the quiet bit of a NaN */
} fmt16;

static uint16_t f16_from_f32(float f) { return ln_f32_to_f16(f); }
static float f16_to_f32(uint16_t h) { return ln_f16_to_f32(h); }
static uint16_t bf16_from_f32(float f) { return ln_f32_to_bf16(f); }
static float bf16_to_f32(uint16_t h) { return ln_bf16_to_f32(h); }

static const fmt16 F16 = {LN_F16, f16_from_f32, f16_to_f32, ln_f64_to_f16, ln_f16_to_f64, 0x7c00, 0x0200};
static const fmt16 BF16 = {LN_BF16, bf16_from_f32, bf16_to_f32, ln_f64_to_bf16, ln_bf16_to_f64, 0x7f80, 0x0040};

static int is_nan16(const fmt16 *f, uint16_t h) { return (h & 0x7fff) > f->inf; }

/* v rounded to nearest even in f's format by MPFR (precision p, emin/emax, subnormalize), as a
 * double (+-Inf on overflow, signed zero on underflow). */
static double oracle_round(const fmt16 *f, double v)
{
    const ln_format *lf = ln_fmt(f->t);
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(lf->emin - lf->p + 2); /* smallest subnormal 2^(emin - p + 1) = 0.5 * 2^this */
    mpfr_set_emax(lf->emax + 1);
    mpfr_t x;
    mpfr_init2(x, lf->p);
    int inex = mpfr_set_d(x, v, MPFR_RNDN);
    mpfr_subnormalize(x, inex, MPFR_RNDN);
    double r = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return r;
}

/* The exact value of bit pattern h, built by MPFR from the fields (not from the decoders). */
static int mpfr_decode_equals(const fmt16 *f, uint16_t h, double v)
{
    const ln_format *lf = ln_fmt(f->t);
    int fb = lf->p - 1, bias = (1 << (14 - fb)) - 1;
    unsigned e = (h & 0x7fff) >> fb, m = h & ((1u << fb) - 1);
    mpfr_t x;
    mpfr_init2(x, 64);
    if (e == 0) mpfr_set_ui_2exp(x, m, lf->emin - fb, MPFR_RNDN);
    else mpfr_set_ui_2exp(x, m | (1u << fb), (long)e - bias - fb, MPFR_RNDN);
    if (h & 0x8000) mpfr_neg(x, x, MPFR_RNDN);
    int eq = mpfr_cmp_d(x, v) == 0 && !signbit(v) == !(h & 0x8000);
    mpfr_clear(x);
    return eq;
}

static void check_decode(const fmt16 *f)
{
    for (uint32_t h = 0; h < 65536; h++) {
        float v = f->to_f32((uint16_t)h);
        double d = f->to_f64((uint16_t)h);
        if (is_nan16(f, (uint16_t)h)) {
            assert_true(isnan(v) && isnan(d));
            if (f->t == LN_F16) assert_true(ln_f32_bits(v) & 0x400000); /* comes back quiet */
        } else if ((h & 0x7fff) == f->inf) {
            assert_true(isinf(v) && isinf(d) && !signbit(v) == !(h & 0x8000));
        } else {
            assert_true(mpfr_decode_equals(f, (uint16_t)h, v));
            assert_true(mpfr_decode_equals(f, (uint16_t)h, d));
        }
    }
}

/* Both encoders on float v against MPFR; NaN stays a quiet NaN with its sign. */
static void check_encode_f32(const fmt16 *f, float v)
{
    uint16_t h = f->from_f32(v), hd = f->from_f64((double)v);
    if (isnan(v)) {
        assert_true(is_nan16(f, h) && (h & f->quiet) && !(h & 0x8000) == !signbit(v));
        assert_true(is_nan16(f, hd) && (hd & f->quiet));
        return;
    }
    double want = oracle_round(f, (double)v), got = f->to_f64(h);
    if (got != want || !signbit(got) != !signbit(want))
        fail_msg("%s(%a) = 0x%04x = %a, MPFR says %a", ln_fmt(f->t)->name, (double)v, h, got, want);
    assert_int_equal(h, hd); /* the double path agrees on every float */
}

/* The double encoder (dtype.c) on v against MPFR: checks a single rounding from double. */
static void check_encode_f64(const fmt16 *f, double v)
{
    double want = oracle_round(f, v), got = f->to_f64(f->from_f64(v));
    if (got != want || !signbit(got) != !signbit(want))
        fail_msg("%s(%a) from double = %a, MPFR says %a", ln_fmt(f->t)->name, v, got, want);
}

/* Around the positive finite value h of the format and the next one (2^(emax+1) past the
 * largest): the value, the midpoint, and their float neighbours, both signs (12 floats). */
static size_t neighbours(const fmt16 *f, uint32_t h, float *c, double *mids)
{
    const ln_format *lf = ln_fmt(f->t);
    double a = f->to_f64((uint16_t)h);
    double b = h + 1 == f->inf ? ldexp(1.0, lf->emax + 1) : f->to_f64((uint16_t)(h + 1));
    double mid = (a + b) / 2; /* exact: p + 1 bits */
    size_t n = 0;
    for (int s = 0; s < 2; s++) {
        float fa = (float)(s ? -a : a), fm = (float)(s ? -mid : mid); /* exact */
        mids[s] = s ? -mid : mid;
        c[n++] = fa, c[n++] = nextafterf(fa, -INFINITY), c[n++] = nextafterf(fa, INFINITY);
        c[n++] = fm, c[n++] = nextafterf(fm, -INFINITY), c[n++] = nextafterf(fm, INFINITY);
    }
    return n;
}

static void check_neighbourhoods(const fmt16 *f)
{
    for (uint32_t h = 0; h < f->inf; h++) {
        float c[12];
        double mids[2];
        size_t n = neighbours(f, h, c, mids);
        for (size_t i = 0; i < n; i++) check_encode_f32(f, c[i]);
        for (int s = 0; s < 2; s++) {
            assert_true((double)(float)mids[s] == mids[s]);
            check_encode_f64(f, mids[s]);
            check_encode_f64(f, nextafter(mids[s], -INFINITY));
            check_encode_f64(f, nextafter(mids[s], INFINITY));
        }
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_random_and_special(const fmt16 *f)
{
    for (int i = 0; i < 400000; i++) {
        check_encode_f32(f, ln_f32_from_bits((uint32_t)next64()));
        double d;
        uint64_t u = next64();
        memcpy(&d, &u, sizeof d);
        if (isnan(d)) continue;
        check_encode_f64(f, ldexp(d, -ilogb(d) + (int)(u % 300) - 150)); /* the format's range */
    }
    const uint32_t special[] = {0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff,
                                0x7f800000, 0xff800000, 0x00000001, 0x80000001, 0x007fffff,
                                0x00800000, 0x7f7fffff, 0xff7fffff, 0x00000000, 0x80000000};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) check_encode_f32(f, ln_f32_from_bits(special[i]));
}

static void test_f16_decode(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    check_decode(&F16);
}
static void test_bf16_decode(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    check_decode(&BF16);
}
static void test_f16_encode(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    check_neighbourhoods(&F16);
    check_random_and_special(&F16);
}
static void test_bf16_encode(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    check_neighbourhoods(&BF16);
    check_random_and_special(&BF16);
}

/* Textbook values, independent of MPFR: they pin the emulation itself. */
static void test_known_values(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    assert_int_equal(ln_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(ln_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(ln_f32_to_f16(65519.99f), 0x7bff);
    assert_int_equal(ln_f32_to_f16(65520.0f), 0x7c00); /* tie to even overflows */
    assert_int_equal(ln_f32_to_f16(0x1p-24f), 0x0001);
    assert_int_equal(ln_f32_to_f16(0x1p-25f), 0x0000); /* tie to even: 0 */
    assert_int_equal(ln_f32_to_f16(0x1.000002p-25f), 0x0001);
    assert_int_equal(ln_f32_to_f16(0x3p-25f), 0x0002); /* 1.5 units: tie to even 2 */
    assert_int_equal(ln_f32_to_f16(1e-12f), 0x0000);   /* eps = 1e-12 vanishes in f16 */
    assert_int_equal(ln_f64_to_f16(1e-12), 0x0000);
    assert_int_equal(ln_f64_to_f16(1e-5), 0x00a8); /* 168 * 2^-24, a subnormal */
    assert_int_equal(ln_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(ln_f32_to_bf16(0x1.01p0f), 0x3f80);                    /* tie to even (down) */
    assert_int_equal(ln_f32_to_bf16(0x1.03p0f), 0x3f82);                    /* tie to even (up) */
    assert_int_equal(ln_f32_to_bf16(0x1p-133f), 0x0001);                    /* bf16 subnormals are kept */
    assert_int_equal(ln_f32_to_bf16(3.4e38f), 0x7f80);                      /* above max + ulp/2: Inf */
    assert_int_equal(ln_f32_to_bf16(ln_f32_from_bits(0x7f800001)), 0x7fc0); /* sNaN -> qNaN */
}

#if LN_X86 || LN_ARM64
#if LN_X86
__attribute__((target("avx2,f16c"))) static void hw_f32_to_f16(const float *in, uint16_t *out)
{
    _mm_storeu_si128((__m128i *)out,
                     _mm256_cvtps_ph(_mm256_loadu_ps(in), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

__attribute__((target("avx2,f16c"))) static void hw_f16_to_f32(const uint16_t *in, float *out)
{
    _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)in)));
}

__attribute__((target("avx512f,avx512bf16"))) static void hw_f32_to_bf16(const float *in, uint16_t *out)
{
    _mm256_storeu_si256((__m256i *)out, (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(in)));
}
#endif

/* The hardware is checked on the neighbourhoods of both formats and on random floats: fills
 * c[0..n) for round k, n a multiple of 16, 0 when done. */
static size_t hw_candidates(uint32_t k, float *c)
{
    const uint32_t rounds = F16.inf + BF16.inf, random_rounds = 100000;
    if (k >= rounds + random_rounds) return 0;
    if (k >= rounds) {
        for (int j = 0; j < 16; j++) c[j] = ln_f32_from_bits((uint32_t)next64());
        return 16;
    }
    double mids[2];
    size_t n = k < F16.inf ? neighbours(&F16, k, c, mids) : neighbours(&BF16, k - F16.inf, c, mids);
    for (; n < 16; n++) c[n] = ln_f32_from_bits((uint32_t)next64());
    return n;
}

#if LN_ARM64
/* FCVTN / FCVTL (ARMv8 baseline), eight at a time as the x86 pair below. */
static void hw_f32_to_f16(const float *in, uint16_t *out)
{
    vst1q_u16(out, vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(in)), vld1q_f32(in + 4))));
}

static void hw_f16_to_f32(const uint16_t *in, float *out)
{
    float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(in));
    vst1q_f32(out, vcvt_f32_f16(vget_low_f16(h)));
    vst1q_f32(out + 4, vcvt_high_f32_f16(h));
}
#endif

/* The hardware's f16 conversions (F16C vcvtps2ph / vcvtph2ps on x86, FCVTN / FCVTL on aarch64):
 * bit-identical to half.h everywhere, NaNs included. */
static void test_f16c_hardware(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
#if LN_X86
    if (!(ln_cpu_features() & LN_ISA_AVX2)) skip(); /* F16C comes with the AVX2 line */
#endif
    for (uint32_t h = 0; h < 65536; h += 8) {
        uint16_t in[8];
        float out[8];
        for (int j = 0; j < 8; j++) in[j] = (uint16_t)(h + j);
        hw_f16_to_f32(in, out);
        for (int j = 0; j < 8; j++) assert_int_equal(ln_f32_bits(out[j]), ln_f32_bits(ln_f16_to_f32(in[j])));
    }
    float in[16];
    for (uint32_t k = 0; hw_candidates(k, in); k++) {
        uint16_t out[16];
        hw_f32_to_f16(in, out);
        hw_f32_to_f16(in + 8, out + 8);
        for (int j = 0; j < 16; j++)
            if (out[j] != ln_f32_to_f16(in[j]))
                fail_msg("vcvtps2ph(%a) = 0x%04x, half.h 0x%04x", (double)in[j], out[j], ln_f32_to_f16(in[j]));
    }
}

#if LN_X86
/* vcvtneps2bf16 (AVX512-BF16): bit-identical to half.h, NaNs included, except that it treats
 * fp32 subnormal inputs as zero (documented in the Intel SDM: DAZ and FTZ, MXCSR ignored), where
 * half.h rounds them to bf16 subnormals. */
static void test_bf16_hardware(void **s)
{
    (void)s;
    if (!(ln_cpu_features() & LN_ISA_AVX512BF16)) skip();
    size_t flushed = 0;
    float in[16];
    for (uint32_t k = 0; hw_candidates(k, in); k++) {
        uint16_t out[16];
        hw_f32_to_bf16(in, out);
        for (int j = 0; j < 16; j++) {
            uint32_t bits = ln_f32_bits(in[j]);
            if ((bits & 0x7f800000) == 0 && (bits & 0x7fffff)) { /* fp32 subnormal */
                assert_int_equal(out[j], (bits >> 16) & 0x8000);
                flushed += ln_f32_to_bf16(in[j]) != out[j];
                continue;
            }
            if (out[j] != ln_f32_to_bf16(in[j]))
                fail_msg("vcvtneps2bf16(%a) = 0x%04x, half.h 0x%04x", (double)in[j], out[j], ln_f32_to_bf16(in[j]));
        }
    }
    assert_true(flushed > 0); /* the candidates do reach the subnormals */
}
#endif

/* The 16-bit vector kernels' own block conversions (half-vec.h: F16C for f16; for bf16 the
 * even/odd lane layout, and integer rounding on AVX2 and plain AVX-512, vcvtne2ps2bf16 and an
 * interleave with AVX512-BF16): bit-identical to half.h, NaNs included, on every 16-bit pattern
 * (widening) and on the candidates above (rounding); except that vcvtne2ps2bf16 treats fp32
 * subnormal inputs as zero, as test_bf16_hardware documents. */
static void check_kernel_blocks(void (*load)(ln_dtype, const uint16_t *, float *),
                                void (*store)(ln_dtype, const float *, uint16_t *), int daz)
{
    const fmt16 *fs[] = {&F16, &BF16};
    for (int fi = 0; fi < 2; fi++) {
        const fmt16 *f = fs[fi];
        for (uint32_t h = 0; h < 65536; h += LN_HALF_BLOCK) {
            uint16_t in[LN_HALF_BLOCK];
            float out[LN_HALF_BLOCK];
            for (int j = 0; j < LN_HALF_BLOCK; j++) in[j] = (uint16_t)(h + j);
            load(f->t, in, out);
            for (int j = 0; j < LN_HALF_BLOCK; j++)
                assert_int_equal(ln_f32_bits(out[j]), ln_f32_bits(f->to_f32(in[j])));
        }
        float in[LN_HALF_BLOCK];
        size_t nans = 0;
        for (uint32_t k = 0; hw_candidates(k, in) && hw_candidates(k + 1, in + 16); k += 2) {
            uint16_t out[LN_HALF_BLOCK];
            store(f->t, in, out);
            for (int j = 0; j < LN_HALF_BLOCK; j++) {
                uint32_t bits = ln_f32_bits(in[j]);
                uint16_t want = f->from_f32(in[j]);
                if (daz && f->t == LN_BF16 && (bits & 0x7f800000) == 0) want = (uint16_t)((bits >> 16) & 0x8000);
                if (out[j] != want)
                    fail_msg("%s block store of %a = 0x%04x, want 0x%04x", ln_fmt(f->t)->name, (double)in[j], out[j],
                             want);
                nans += isnan(in[j]);
            }
        }
        assert_true(nans > 0); /* the NaN path ran */
    }
}

static void test_kernel_blocks(void **s)
{
    (void)s;
    SKIP_ON_VL_REPEAT();
    unsigned cpu = ln_cpu_features();
#if LN_X86
    if (!(cpu & LN_ISA_AVX2)) skip();
    check_kernel_blocks(ln_half_block_load_avx2, ln_half_block_store_avx2, 0);
    if (cpu & LN_ISA_AVX512) check_kernel_blocks(ln_half_block_load_avx512, ln_half_block_store_avx512, 0);
    if ((cpu & LN_ISA_AVX512) && (cpu & LN_ISA_AVX512BF16))
        check_kernel_blocks(ln_half_block_load_avx512bf16, ln_half_block_store_avx512bf16, 1);
#elif LN_ARM64
    if (!(cpu & LN_ISA_NEON)) skip();
    check_kernel_blocks(ln_half_block_load_neon, ln_half_block_store_neon, 0);
#endif
}

/* Every 16-bit SIMD kernel gives each row of a call the bits (and statistics) of the same row
 * computed alone, whatever row schedule the call took: rows two by two (long rows, in cache and
 * streamed), gamma and beta widened once per call (shorter rows in cache; a row alone converts
 * them block by block), pairs broken by a rejected shift (the first 32 elements of every fourth
 * row 100 above the rest), an odd last row, tails (D not a multiple of the block), outputs of
 * 33 MiB (non-temporal stores: whole lines for short rows, halves for long ones). Under
 * emulation (LNBENCH_RUN set: a cross build's tests) two of the 33 MiB shapes, D 1024 and 4100, a
 * short and a long row with a tail, stand for the five: each costs minutes there. */
static void test_rows_match_alone(void **s)
{
    (void)s;
    const size_t big = (size_t)33 << 20;
    const int emulated = getenv("LNBENCH_RUN") && *getenv("LNBENCH_RUN");
    const struct {
        size_t D, rows;
    } cases[] = {{1000, 9},
                 {1024, 9},
                 {4096, 5},
                 {8192, 7},
                 {8200, 7},
                 {16384, 6},
                 {768, big / 2 / 768},
                 {1024, big / 2 / 1024},
                 {4096, big / 2 / 4096},
                 {4100, big / 2 / 4100},
                 {16384, big / 2 / 16384}};
    size_t checked = 0;
    for (int t = LN_F16; t <= LN_BF16; t++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            const size_t D = cases[c].D, rows = cases[c].rows;
            if (emulated && rows * D * 2 >= big && D != 1024 && D != 4100) continue;
            const size_t pick[] = {0, 1, 2, 3, 4, rows / 2, rows / 2 + 1, rows - 2, rows - 1};
            uint16_t *x = malloc(rows * D * 2), *y = malloc(rows * D * 2), *y1 = malloc(D * 2), *g = malloc(D * 2),
                     *b = malloc(D * 2);
            double *m = malloc(rows * sizeof *m), *r5 = malloc(rows * sizeof *r5), m1, r1;
            uint32_t seed = 7;
            for (size_t j = 0; j < rows * D; j++) {
                seed = seed * 1664525u + 1013904223u;
                float v = (float)((double)(seed >> 8) * 0x1p-23 - 1.0);
                ln_half_store((ln_dtype)t, x, j, v + ((j / D) % 4 == 1 && j % D < 32 ? 100.0f : 0.0f));
            }
            for (size_t j = 0; j < D; j++) {
                ln_half_store((ln_dtype)t, g, j, 1.0f + 0.25f * (float)(j % 5) / 4);
                ln_half_store((ln_dtype)t, b, j, 0.25f * (float)(j % 3) / 2);
            }
            for (size_t i = 0; i < ln_num_kernels; i++) {
                const ln_kernel *k = ln_all_kernels[i];
                if (k->dtype != (ln_dtype)t || k->isa == 0 || k->op != LN_OP_LAYERNORM || !ln_kernel_available(k))
                    continue;
                ln_args a = {
                    .rows = rows, .D = D, .x = x, .y = y, .gamma = g, .beta = b, .eps = 1e-5, .mean = m, .rstd = r5};
                k->forward(&a);
                for (size_t q = 0; q < sizeof pick / sizeof *pick; q++) {
                    const size_t r = pick[q];
                    ln_args one = a;
                    one.rows = 1, one.x = x + r * D, one.y = y1, one.mean = &m1, one.rstd = &r1;
                    k->forward(&one);
                    if (memcmp(y + r * D, y1, D * 2) || m[r] != m1 || r5[r] != r1)
                        fail_msg("%s D=%zu: row %zu of a %zu-row call differs from the same row alone", k->name, D, r,
                                 rows);
                }
                checked++;
            }
            free(x), free(y), free(y1), free(g), free(b), free(m), free(r5);
        }
    if (ln_num_isas && (ln_cpu_features() & ln_isas[0].bit)) assert_true(checked > 0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_f16_decode),
        cmocka_unit_test(test_bf16_decode),
        cmocka_unit_test(test_f16_encode),
        cmocka_unit_test(test_bf16_encode),
#if LN_X86 || LN_ARM64
        cmocka_unit_test(test_f16c_hardware),
#if LN_X86
        cmocka_unit_test(test_bf16_hardware),
#endif
        cmocka_unit_test(test_kernel_blocks),
        cmocka_unit_test(test_rows_match_alone),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
