/* Input distributions. Every number comes from our own generator (xoshiro256** seeded through
 * splitmix64) and only IEEE-exact operations (+ - * / sqrt, correctly rounded on every machine)
 * plus a log built from them, so a seed gives the same bits everywhere, whatever the libm. */
#include "dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"

const char ln_dist_names[] =
    "normal, uniform, offset:M, shifted, outlier:S, heavy, const, zero, tiny, huge, exact, file:PATH";

static const struct {
    const char *name;
    ln_dist_kind kind;
    int has_param;
} kinds[] = {
    {"normal", LN_DIST_NORMAL, 0},   {"uniform", LN_DIST_UNIFORM, 0}, {"offset", LN_DIST_OFFSET, 1},
    {"shifted", LN_DIST_SHIFTED, 0}, {"outlier", LN_DIST_OUTLIER, 1}, {"heavy", LN_DIST_HEAVY, 0},
    {"const", LN_DIST_CONST, 0},     {"zero", LN_DIST_ZERO, 0},       {"tiny", LN_DIST_TINY, 0},
    {"huge", LN_DIST_HUGE, 0},       {"exact", LN_DIST_EXACT, 0},     {"file", LN_DIST_FILE, 1},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* ---- generator ---- */

typedef struct {
    uint64_t s[4];
    int has_spare;
    double spare;
} rng;

static uint64_t mix64(uint64_t z) /* splitmix64's finalizer: a bijection that scrambles bits */
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A stream key from the seed and what the stream is for: a tag, a parameter, D and rows. */
static uint64_t stream_key(uint64_t seed, const char *tag, double param, size_t D, size_t rows)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a of the tag */
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++) h = (h ^ *p) * 0x100000001b3u;
    uint64_t pbits;
    memcpy(&pbits, &param, sizeof pbits);
    h = mix64(h ^ seed);
    h = mix64(h ^ pbits);
    h = mix64(h ^ (uint64_t)D);
    return mix64(h ^ (uint64_t)rows);
}

static void rng_init(rng *r, uint64_t key)
{
    for (int i = 0; i < 4; i++) r->s[i] = mix64(key += 0x9e3779b97f4a7c15u);
    r->has_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_u64(rng *r) /* xoshiro256** (Blackman & Vigna) */
{
    uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

static double uniform01(rng *r) { return (double)(next_u64(r) >> 11) * 0x1p-53; } /* [0, 1) */

static size_t below(rng *r, size_t n) { return (size_t)(uniform01(r) * (double)n); } /* [0, n) */

/* ln(x) for finite x > 0 with + - * / only: x = m 2^e, m in [sqrt(1/2), sqrt(2)), and
 * ln m = 2 atanh(t), t = (m - 1)/(m + 1), |t| < 0.172, by its series to t^25 (error < 1e-17).
 * Accurate to a few ulps; what matters here is that it gives the same bits everywhere. */
static double portable_log(double x)
{
    int e;
    double m = frexp(x, &e); /* exact */
    if (m < 0.70710678118654752) m *= 2, e--;
    double t = (m - 1) / (m + 1), t2 = t * t, s = 0;
    for (int k = 25; k >= 3; k -= 2) s = (s + 1.0 / k) * t2;
    return 2 * t * (1 + s) + e * 0.69314718055994531;
}

static double normal(rng *r) /* Marsaglia's polar method: two N(0,1) per accepted pair */
{
    if (r->has_spare) return r->has_spare = 0, r->spare;
    double u, v, s;
    do {
        u = 2 * uniform01(r) - 1;
        v = 2 * uniform01(r) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double f = sqrt(-2 * portable_log(s) / s);
    r->spare = v * f, r->has_spare = 1;
    return u * f;
}

/* Student's t with 3 degrees of freedom: heavy tails (P(|t| > k) ~ k^-3) but a finite variance
 * (3), so rows have occasional elements of 10 to 100 sigma. */
static double student_t3(rng *r)
{
    double z = normal(r), a = normal(r), b = normal(r), c = normal(r);
    return z / sqrt((a * a + b * b + c * c) / 3);
}

/* ---- parsing ---- */

void ln_dist_parse(const char *spec, ln_dist *d)
{
    memset(d, 0, sizeof *d);
    if (strlen(spec) >= sizeof d->spec) ln_die_usage("--dist: '%.40s...' is too long", spec);
    strcpy(d->spec, spec);
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    size_t k = 0;
    while (k < NKINDS && !(strlen(kinds[k].name) == nlen && !strncmp(spec, kinds[k].name, nlen))) k++;
    if (k == NKINDS) {
        const char *names[NKINDS];
        for (size_t i = 0; i < NKINDS; i++) names[i] = kinds[i].name;
        char family[64];
        snprintf(family, sizeof family, "%.*s", (int)(nlen < sizeof family ? nlen : sizeof family - 1), spec);
        const char *near = ln_did_you_mean(family, names, NKINDS);
        if (near)
            ln_die_usage("--dist: unknown distribution '%s'; did you mean '%s%s'?", spec, near, colon ? colon : "");
        ln_die_usage("--dist: unknown distribution '%s'; valid: %s", spec, ln_dist_names);
    }
    d->kind = kinds[k].kind;
    if (kinds[k].has_param && (!colon || !colon[1]))
        ln_die_usage("--dist: '%s' needs a parameter (%s:...); valid: %s", spec, kinds[k].name, ln_dist_names);
    if (!kinds[k].has_param && colon) ln_die_usage("--dist: '%s' takes no parameter; valid: %s", spec, ln_dist_names);
    if (d->kind == LN_DIST_FILE) {
        char *path = strdup(colon + 1);
        if (!path) ln_die("out of memory");
        ln_npy_array a;
        const char *err = ln_npy_read(path, &a);
        if (err) ln_die_usage("--dist %s: file '%s': %s", spec, path, err);
        d->path = path;
        d->data = a.data;
        d->file_rows = a.rows;
        d->file_D = a.cols;
    } else if (colon) {
        char what[300];
        snprintf(what, sizeof what, "--dist %s", spec);
        d->param = ln_parse_double(colon + 1, what);
    }
}

void ln_dist_free(ln_dist *d)
{
    free((char *)d->path);
    free(d->data);
    d->path = NULL;
    d->data = NULL;
}

/* ---- fills ---- */

/* The oneDNN-style exact row, as multiples k_i of 2^s around an integer mean M (|M| <= 8):
 *   D = 1: {0};  D = 3: {2, -1, -1};  D even: pairs {2, -2};  D odd >= 5: {3, -3, 1, -1, 0} and
 *   pairs {2, -2}; shuffled.
 * So sum k_i = 0 and sum k_i^2 = 4 D (6 for D = 3): the mean is M 2^s and the variance 4^(s+1)
 * (2 4^s for D = 3, 0 for D = 1), exact in every format, and sigma = 2^(s+1) too. Every value
 * (M + k_i) 2^s has at most 4 significant bits. For D <= 2^17 every partial sum, in any order,
 * of x_i (|.| <= 11 D 2^s), of x_i^2 (<= 121 D 4^s) and of (x_i - mean)^2 is an integer multiple
 * of 2^s or 4^s below 2^24 of them: exact in f32 and f64, so a kernel whose other steps are exact
 * (the division by D, for one) returns the mean and variance exactly. In f16/bf16 the values,
 * mean and variance are exact; the sums are exact only in a wider accumulator. */
static void exact_row(rng *r, size_t D, double *row)
{
    double M = (double)below(r, 17) - 8, scale = ldexp(1.0, (int)below(r, 7) - 3);
    size_t i = 0;
    if (D == 1) {
        row[i++] = 0;
    } else if (D == 3) {
        row[0] = 2, row[1] = -1, row[2] = -1;
        i = 3;
    } else if (D % 2) {
        static const double five[5] = {3, -3, 1, -1, 0};
        for (; i < 5; i++) row[i] = five[i];
    }
    for (; i < D; i += 2) row[i] = 2, row[i + 1] = -2; /* D - i is even here */
    for (size_t j = D - 1; j > 0; j--) {               /* Fisher-Yates */
        size_t k = below(r, j + 1);
        double tmp = row[j];
        row[j] = row[k], row[k] = tmp;
    }
    for (size_t j = 0; j < D; j++) row[j] = (M + row[j]) * scale;
}

/* ~1% of the channels (at least one), the same in every row: massive activations live in a few
 * fixed feature dimensions. */
static unsigned char *outlier_channels(uint64_t seed, size_t D)
{
    unsigned char *is = calloc(D, 1);
    size_t *idx = malloc(D * sizeof *idx);
    if (!is || !idx) ln_die("out of memory");
    rng r;
    rng_init(&r, stream_key(seed, "outlier-channels", 0, D, 0));
    size_t count = (D + 50) / 100 ? (D + 50) / 100 : 1;
    for (size_t i = 0; i < D; i++) idx[i] = i;
    for (size_t i = 0; i < count; i++) { /* partial Fisher-Yates */
        size_t k = i + below(&r, D - i), tmp = idx[i];
        idx[i] = idx[k], idx[k] = tmp;
        is[idx[i]] = 1;
    }
    free(idx);
    return is;
}

void ln_dist_draw(const ln_dist *d, ln_dtype t, size_t rows, size_t D, uint64_t seed, double *x)
{
    if (d->kind == LN_DIST_FILE) {
        if (D != d->file_D) ln_die("%s holds rows of %zu values, not %zu", d->path, d->file_D, D);
        for (size_t i = 0; i < rows * D; i++) x[i] = d->data[i % (d->file_rows * D)];
        return;
    }
    const ln_format *f = ln_fmt(t);
    /* The tag is the distribution's name, not the spec as typed, and the parameter enters by
     * value, so "offset:1e4" and "offset:10000" are the same data. */
    const char *tag = "";
    for (size_t k = 0; k < NKINDS; k++)
        if (kinds[k].kind == d->kind) tag = kinds[k].name;
    rng r;
    rng_init(&r, stream_key(seed, tag, d->param, D, rows));
    unsigned char *outlier = d->kind == LN_DIST_OUTLIER ? outlier_channels(seed, D) : NULL;
    /* tiny: about 2^(emin+4), so a sixteenth of the values are subnormal and every square
     * underflows; huge: about 2^(emax/2+2), so squares (and their sums) overflow. */
    double tiny = ldexp(1.0, f->emin + 4), huge = ldexp(1.0, f->emax / 2 + 2);
    for (size_t rr = 0; rr < rows; rr++) {
        double *row = x + rr * D;
        double c = d->kind == LN_DIST_CONST ? normal(&r) : 0; /* const: one value per row */
        if (d->kind == LN_DIST_EXACT) exact_row(&r, D, row);
        for (size_t i = 0; i < D && d->kind != LN_DIST_EXACT; i++) {
            switch (d->kind) {
            case LN_DIST_NORMAL: row[i] = normal(&r); break;
            case LN_DIST_UNIFORM: row[i] = uniform01(&r); break;
            case LN_DIST_OFFSET: row[i] = d->param + normal(&r); break;
            case LN_DIST_SHIFTED: row[i] = -2.3 + 0.5 * normal(&r); break;
            case LN_DIST_OUTLIER: row[i] = normal(&r) * (outlier[i] ? d->param : 1.0); break;
            case LN_DIST_HEAVY: row[i] = student_t3(&r); break;
            case LN_DIST_CONST: row[i] = c; break;
            case LN_DIST_ZERO: row[i] = 0; break;
            case LN_DIST_TINY: row[i] = normal(&r) * tiny; break;
            case LN_DIST_HUGE: row[i] = normal(&r) * huge; break;
            default: row[i] = NAN;
            }
        }
    }
    free(outlier);
}

void ln_dist_fill(const ln_dist *d, ln_dtype t, size_t rows, size_t D, uint64_t seed, void *x)
{
    double *drawn = malloc(rows * D * sizeof *drawn);
    if (!drawn) ln_die("out of memory");
    ln_dist_draw(d, t, rows, D, seed, drawn);
    for (size_t i = 0; i < rows * D; i++) ln_store(t, x, i, drawn[i]);
    free(drawn);
}

void ln_affine_fill(ln_dtype t, size_t D, uint64_t seed, void *gamma, void *beta)
{
    rng r;
    rng_init(&r, stream_key(seed, "affine", 0, D, 0));
    for (size_t i = 0; i < D; i++) {
        double g = 1 + 0.25 * (2 * uniform01(&r) - 1), b = 0.25 * (2 * uniform01(&r) - 1);
        if (gamma) ln_store(t, gamma, i, g);
        if (beta) ln_store(t, beta, i, b);
    }
}
