/* Differential fuzzing of every available kernel against the MPFR reference.
 *
 * The input bytes become a LayerNorm problem (any dtype, D <= 300, up to 3 rows, any values
 * including NaN, Inf, subnormals and huge ones, any eps including 0 and subnormal, gamma/beta
 * absent, harness-like or raw), every available kernel of that dtype runs on it, and the run
 * aborts with a message naming kernel, D, eps and the element when a kernel breaks a promise:
 *
 *  1. its contract (kernel.h), judged row by row as `lnbench accuracy` judges a case
 *     (ln_judge): inside the kernel's domain, its bound(D, kappa) times the row's affine factor
 *     (any finite gamma and beta) and no non-finite output; outside it, kernels that claim
 *     agrees_nonfinite still give an output non-finite exactly where the reference's is;
 *  2. non-finite inputs propagate: where an output's inputs hold a NaN or Inf and the reference
 *     output is NaN/Inf, the kernel's is too (every kernel: nothing may "repair" a NaN);
 *  3. (part of 1: what agrees_nonfinite promises);
 *  4. the ABI: the same y whether y aliases x (in place) or not, and whether mean/rstd are
 *     requested or not; x untouched; nothing written outside y (AddressSanitizer checks that,
 *     the buffers have exactly rows * D elements); misaligned rows work.
 * The naive kernel's NaN from a negative variance is its documented failure, not a fuzz
 * failure: its bound is infinite there (verdict outside).
 *
 * Built by `make fuzz` (libFuzzer); tests/test_edge.c replays tests/regress/fuzz_kernels/ and the
 * seed corpus through ln_fuzz_kernels_check() below. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "fuzz.h"
#include "kernel.h"
#include "reference.h"
#include "replay.h"
#include "replay_check.h"

#define FUZZ_MAX_D LN_REPLAY_MAX_SHORT_D
#define FUZZ_MAX_ROWS LN_REPLAY_MAX_ROWS

/* Reads bytes cyclically, so that short inputs still fill long rows (a one-byte tail makes a
 * constant row); zeros when there is no data at all. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} byte_source;

static uint8_t next_byte(byte_source *s)
{
    if (s->n == 0) return 0;
    uint8_t b = s->p[s->at % s->n];
    s->at++;
    return b;
}

static void next_bytes(byte_source *s, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) ((uint8_t *)out)[i] = next_byte(s);
}

/* How a buffer's values are drawn. */
enum { VAL_RAW, VAL_OFFSET };

/* Fills n elements of format t: raw bit patterns (every NaN, Inf, subnormal), or
 * offset + scale * int8 with offset and scale powers of two over the format's whole range
 * (ill-conditioned, huge, tiny and constant rows). */
static void fill_values(ln_dtype t, void *buf, size_t n, int mode, byte_source *s)
{
    const ln_format *f = ln_fmt(t);
    if (mode == VAL_RAW) {
        next_bytes(s, buf, n * f->size);
        return;
    }
    int span = f->emax - f->emin + f->p + 2;
    int e_off = f->emin - f->p + (int)(next_byte(s) % span);
    int e_scale = f->emin - f->p + (int)(next_byte(s) % span);
    double offset = (next_byte(s) & 1) ? 0.0 : ldexp(1.0, e_off) * (next_byte(s) & 1 ? -1 : 1);
    double scale = ldexp(1.0, e_scale);
    for (size_t i = 0; i < n; i++) ln_store(t, buf, i, offset + scale * (int8_t)next_byte(s));
}

/* Like the harness's draws: gamma ~ 1 + 0.25 U(-1,1), beta ~ 0.25 U(-1,1). */
static void fill_affine_like_harness(ln_dtype t, void *gamma, void *beta, size_t D, byte_source *s)
{
    for (size_t i = 0; i < D; i++) {
        ln_store(t, gamma, i, 1.0 + 0.25 * (int8_t)next_byte(s) / 128.0);
        ln_store(t, beta, i, 0.25 * (int8_t)next_byte(s) / 128.0);
    }
}

typedef struct {
    ln_dtype t;
    size_t D, rows;
    double eps;
    int affine;   /* 0 none, 1 harness-like, 2 raw values */
    int in_place; /* second run with y aliasing x */
    int misalign; /* x and y start one element past an allocation's start */
    int stats;    /* second run asks for mean and rstd */
    void *x, *gamma, *beta;
} fuzz_problem;

static const double eps_table[] = {0.0, 1e-12, 1e-6, 1e-5, 1e-3, 1.0, 0x1p-1074, 1e-40, 1e-300, 0x1p-149};

/* Decodes the bytes into p (buffers malloc'ed; x holds one spare element in front when
 * misaligned). Layout (replay.h): flags, eps selector [8 bytes of eps], D (2 bytes), rows, then
 * values. */
static void decode(const uint8_t *data, size_t size, fuzz_problem *p)
{
    byte_source hdr = {data, size < 5 ? size : 5, 0};
    uint8_t flags = next_byte(&hdr), eps_sel = next_byte(&hdr);
    p->t = (ln_dtype)(flags & 3);
    p->affine = (flags >> 2) & 3;
    if (p->affine == 3) p->affine = 1;
    p->in_place = (flags >> 4) & 1;
    p->misalign = (flags >> 5) & 1;
    p->stats = (flags >> 6) & 1;
    int mode = (flags >> 7) ? VAL_OFFSET : VAL_RAW;
    size_t d_lo = next_byte(&hdr), d_hi = next_byte(&hdr);
    uint8_t rows_byte = next_byte(&hdr);
    p->D = d_lo | d_hi << 8;
    if ((rows_byte & 0xfc) != LN_REPLAY_LONG_ROW) p->D %= FUZZ_MAX_D + 1; /* long rows: replay.h */
    p->rows = rows_byte % (FUZZ_MAX_ROWS + 1);
    size_t used = 5;
    if (eps_sel < 2 * sizeof eps_table / sizeof eps_table[0]) {
        p->eps = eps_table[eps_sel % (sizeof eps_table / sizeof eps_table[0])];
    } else {
        /* any non-negative finite double (NaN/Inf/negative eps is not a LayerNorm) */
        uint64_t bits = 0;
        for (int i = 0; i < 8 && used < size; i++) bits |= (uint64_t)data[used++] << (8 * i);
        memcpy(&p->eps, &bits, sizeof p->eps);
        p->eps = fabs(p->eps);
        if (!isfinite(p->eps)) p->eps = 0.0;
    }
    byte_source s = {data + (used < size ? used : size), used < size ? size - used : 0, 0};
    size_t es = ln_fmt(p->t)->size, n = p->rows * p->D;
    p->x = calloc(n + (size_t)p->misalign, es); /* exactly: AddressSanitizer sees any overrun */
    fill_values(p->t, (char *)p->x + (p->misalign ? es : 0), n, mode, &s);
    p->gamma = p->beta = NULL;
    if (p->affine) {
        p->gamma = malloc(p->D * es);
        p->beta = malloc(p->D * es);
        if (p->affine == 1) {
            fill_affine_like_harness(p->t, p->gamma, p->beta, p->D, &s);
        } else {
            fill_values(p->t, p->gamma, p->D, VAL_RAW, &s);
            fill_values(p->t, p->beta, p->D, VAL_RAW, &s);
        }
    }
}

static const void *x_of(const fuzz_problem *p) { return (const char *)p->x + (p->misalign ? ln_fmt(p->t)->size : 0); }

/* The reference for every row, as a prepared case (so accuracy.h's metrics apply). */
static void reference(const fuzz_problem *p, ln_prepared *ref)
{
    size_t n = p->rows * p->D, es = ln_fmt(p->t)->size;
    memset(ref, 0, sizeof *ref);
    ref->c.dtype = p->t;
    ref->c.D = p->D;
    ref->c.rows = p->rows;
    ref->c.eps = p->eps;
    ref->c.affine = p->affine != 0;
    ref->x = (void *)x_of(p);
    ref->gamma = p->gamma;
    ref->beta = p->beta;
    ref->y_ref = malloc(n * es + 1);
    ref->y_hi = malloc(n * sizeof(double) + 1);
    ref->y_lo = malloc(n * sizeof(double) + 1);
    ref->stats = malloc(p->rows * sizeof(ln_ref_stats) + 1);
    for (size_t r = 0; r < p->rows && p->D > 0; r++)
        ln_ref_row(p->t, p->D, (const char *)ref->x + r * p->D * es, p->gamma, p->beta, p->eps,
                   (char *)ref->y_ref + r * p->D * es, ref->y_hi + r * p->D, ref->y_lo + r * p->D, &ref->stats[r]);
}

/* Frees the reference (whose inputs are the problem's) and the problem. */
static void problem_free(fuzz_problem *p, ln_prepared *ref)
{
    ref->x = ref->gamma = ref->beta = NULL;
    ln_prepared_free(ref);
    free(p->x);
    free(p->gamma);
    free(p->beta);
}

/* Row r of a prepared case as a one-row case of its own. */
static ln_prepared row_view(const ln_prepared *all, size_t r)
{
    ln_prepared v = *all;
    size_t off = r * all->c.D, es = ln_fmt(all->c.dtype)->size;
    v.c.rows = 1;
    v.x = (char *)all->x + off * es;
    v.y_ref = (char *)all->y_ref + off * es;
    v.y_hi = all->y_hi + off;
    v.y_lo = all->y_lo + off;
    v.stats = all->stats + r;
    return v;
}

static int all_finite(ln_dtype t, const void *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (!isfinite(ln_load(t, v, i))) return 0;
    return 1;
}

static int failf(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* Bitwise equality, any NaN equal to any NaN. */
static int same_outputs(ln_dtype t, const void *a, const void *b, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++) {
        double u = ln_load(t, a, i), v = ln_load(t, b, i);
        if (!(isnan(u) && isnan(v)) &&
            memcmp((const char *)a + i * ln_fmt(t)->size, (const char *)b + i * ln_fmt(t)->size, ln_fmt(t)->size)) {
            *at = i;
            return 0;
        }
    }
    return 1;
}

/* Runs kernel k on p and checks 1-4; returns 0, or 1 with a message in msg. */
static int check_kernel(const ln_kernel *k, const fuzz_problem *p, const ln_prepared *ref, char *msg, size_t len)
{
    size_t n = p->rows * p->D, es = ln_fmt(p->t)->size, D = p->D;
    const char *x = x_of(p);
    char head[160];
    snprintf(head, sizeof head, "kernel %s, %s, D=%zu, rows=%zu, eps=%a, affine=%d", k->name, ln_fmt(p->t)->name, D,
             p->rows, p->eps, p->affine);

    /* out of place, no statistics; x copied to check it stays untouched */
    char *x_copy = malloc(n * es), *y_buf = malloc((n + (size_t)p->misalign) * es);
    char *y = y_buf + (p->misalign ? es : 0);
    memcpy(x_copy, x, n * es);
    ln_args a = {.rows = p->rows, .D = D, .x = x, .y = y, .gamma = p->gamma, .beta = p->beta, .eps = p->eps};
    k->forward(&a);
    int bad = 0;
    size_t at;
    if (memcmp(x_copy, x, n * es)) bad = failf(msg, len, "%s: modified its input x", head);

    /* second run: in place and/or with statistics, must give the same y */
    char *y2_buf = NULL;
    double *mean = NULL, *rstd = NULL;
    if (!bad && (p->in_place || p->stats)) {
        y2_buf = malloc((n + (size_t)p->misalign) * es);
        char *y2 = y2_buf + (p->misalign ? es : 0);
        memcpy(y2, x, n * es);
        ln_args b = a;
        if (p->in_place) b.x = b.y = y2;
        else b.y = y2;
        if (p->stats) {
            mean = malloc(p->rows * sizeof *mean);
            rstd = malloc(p->rows * sizeof *rstd);
            b.mean = mean;
            b.rstd = rstd;
        }
        k->forward(&b);
        if (!same_outputs(p->t, y, y2, n, &at))
            bad =
                failf(msg, len, "%s: y differs when run %s (element %zu: %a vs %a)", head,
                      p->in_place ? "in place" : "with mean/rstd out", at, ln_load(p->t, y, at), ln_load(p->t, y2, at));
    }

    for (size_t r = 0; r < p->rows && !bad; r++) {
        ln_prepared row = row_view(ref, r);
        const char *xr = x + r * D * es, *yr = y + r * D * es;
        const ln_ref_stats *st = row.stats;
        int row_finite = all_finite(p->t, xr, D);
        for (size_t i = 0; i < D && !bad; i++) {
            /* the correctly rounded reference: Inf where the exact value overflows the format */
            double yi = ln_load(p->t, yr, i), ex = ln_load(p->t, row.y_ref, i);
            int inputs_finite = row_finite && (!p->gamma || isfinite(ln_load(p->t, p->gamma, i))) &&
                                (!p->beta || isfinite(ln_load(p->t, p->beta, i)));
            if (!inputs_finite && !isfinite(ex) && isfinite(yi))
                bad = failf(msg, len, "%s: row %zu col %zu: non-finite input gives finite %a (reference %a)", head, r,
                            i, yi, ex);
        }
        if (bad) continue;
        ln_verdict v;
        ln_judge(k, &row, yr, &v);
        if (v.verdict == LN_FAIL && !k->external) /* a peer's failure is a finding, not ours to fix */
            bad = failf(msg, len,
                        "%s: row %zu breaks its contract (domain %s): normwise error %g u, bound %g u (kappa %g, "
                        "var %a, mean %a); worst col %zu: x=%a y=%a exact=%a",
                        head, r, v.domain, v.error, v.bound, st->kappa, st->var, st->mean, v.col,
                        ln_load(p->t, xr, v.col), ln_load(p->t, yr, v.col), row.y_hi[v.col] + row.y_lo[v.col]);
    }
    free(x_copy);
    free(y_buf);
    free(y2_buf);
    free(mean);
    free(rstd);
    return bad;
}

/* Every available kernel of the input's dtype on the problem the bytes describe. Returns 0, or
 * 1 with a message naming kernel, D, eps and element in msg. */
int ln_fuzz_kernels_check(const uint8_t *data, size_t size, char *msg, size_t len);
int ln_fuzz_kernels_check(const uint8_t *data, size_t size, char *msg, size_t len)
{
    /* a row of another op, written by hunt: replayed against that op's kernels and reference */
    if (ln_replay_has_op(data, size)) return ln_replay_check(data, size, msg, len) > 0;
    fuzz_problem p;
    decode(data, size, &p);
    ln_prepared ref;
    reference(&p, &ref);
    int bad = 0;
    for (size_t i = 0; i < ln_num_kernels && !bad; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (k->dtype == p.t && ln_kernel_available(k)) bad = check_kernel(k, &p, &ref, msg, len);
    }
    problem_free(&p, &ref);
    return bad;
}

LN_FUZZ_ENTRY("fuzz_kernels", ln_fuzz_kernels_check)
