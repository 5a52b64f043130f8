/* The search behind `lnbench hunt` (see hunt.h for what it does and why). */
#include "hunt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accuracy.h"
#include "cli.h"
#include "dd.h"
#include "dist.h"
#include "reference.h"

const char ln_hunt_start_dists[] =
    "normal,uniform,shifted,heavy,offset:1e2,offset:1e4,offset:1e6,outlier:1000,tiny,huge,exact,const,zero";

#define START_ROWS 16 /* rows per built-in distribution, as `lnbench accuracy` draws them */
#define POOL 4        /* best rows kept per objective: the starts begin from them in turn */

enum { OBJ_RATIO, OBJ_ULP, NOBJ };

/* ---- a small generator of our own (splitmix64): the search's moves, not the inputs ---- */

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t below(uint64_t *s, size_t n) { return n ? (size_t)(next_u64(s) % n) : 0; }
static int coin(uint64_t *s) { return (int)(next_u64(s) >> 63); }

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- scoring ---- */

typedef struct {
    double max_norm, max_ulp, kappa, bound, ratio;
    size_t nonfinite;
    int in_domain;
} score;

typedef struct {
    const ln_hunt_config *c;
    ln_dtype t;
    size_t D, es;
    /* A searched row is the op's rows x D inputs of one row side by side (x, then dy, ...: the
     * order of its roles in ops.def), n_in x D elements; in_role their role indices. */
    unsigned n_in;
    int in_role[LN_MAX_ROLES];
    /* each input's format in the kernel's case: the dtype, or for the RESID inputs of a
     * mixed-format kernel (fp32 r beside 16-bit x) its wider residual format; the search keeps
     * every input on the dtype's grid, and a wider one takes its values exactly */
    ln_dtype in_fmt[LN_MAX_ROLES];
    /* the inputs summed into the normalised tensor (SUMMED roles: x and r of h = x + r), by their
     * index among the n_in; n_summed < 2 where the op sums none */
    unsigned n_summed, summed[LN_MAX_ROLES];
    size_t row_bytes;
    ln_prepared p;     /* the one-row case every candidate is scored on, its inputs replaced */
    ln_ref_op *screen; /* the op's cheap reference (ln_op_screen) */
    int near_ties;     /* the first output is x normalised (a forward op): steer_to_tie applies */
    int centres;
    const void *gamma, *beta; /* p's, NULL where the op has none */
    void *y;                  /* the kernel's output on a confirmed row, for ln_judge */
    uint64_t evals, rng;
    double t0, last_report;
    double eps;       /* the eps rows are scored at now: the run's, or 0 for rows that came from it */
    score best[NOBJ]; /* the best row of each objective so far */
    double best_o[NOBJ], found_after[NOBJ], best_eps[NOBJ];
    void *best_x[NOBJ];
} hunt;

/* Runs the kernel on row (the op's inputs, n_in x D) and scores its first output against the
 * screen (exact = 0) or the MPFR reference (exact = 1; the kernel's output then in h->y). */
static void evaluate(hunt *h, const void *row, int exact, score *s)
{
    ln_prepared *p = &h->p;
    size_t seg = h->D * h->es;
    for (unsigned k = 0; k < h->n_in; k++) {
        const char *src = (const char *)row + k * seg;
        void *dst = p->role[h->in_role[k]].data;
        if (h->in_fmt[k] == h->t) memcpy(dst, src, seg);
        else
            for (size_t i = 0; i < h->D; i++) ln_store(h->in_fmt[k], dst, i, ln_load(h->t, src, i));
    }
    p->c.eps = h->eps;
    p->c.screen = exact ? NULL : h->screen;
    if (ln_prepared_update(p) != 0) ln_die("hunt: no reference for a row of %s", h->c->k->name);
    ln_errors e;
    ln_measure_kernel(h->c->k, p, &e, exact ? h->y : NULL);
    h->evals++;
    s->max_norm = e.max_norm;
    s->max_ulp = e.max_ulp;
    s->nonfinite = e.nonfinite;
    s->kappa = p->stats[0].kappa;
    const char *dom = ln_row_contract(h->c->k, p, 0, &s->bound); /* the kernel's contract */
    s->in_domain = dom == NULL;
    /* no claim at this kappa (the bound is infinite): no ratio, even for NaN outputs */
    if (h->c->k->bound && isnan(s->bound)) s->ratio = NAN;
    else s->ratio = e.nonfinite ? INFINITY : !h->c->k->bound ? e.max_norm : e.max_norm / s->bound;
}

/* What a search maximises; -1 for rows outside the bound's domain or, for the ratio, where the
 * kernel claims no bound (not comparable). A kernel that claims none anywhere is searched for
 * its largest normwise error instead (see evaluate: ratio = max_norm there). */
static double objective(int obj, const score *s)
{
    if (!s->in_domain || (obj == OBJ_RATIO && isnan(s->ratio))) return -1;
    if (s->nonfinite) return INFINITY;
    double v = obj == OBJ_ULP ? s->max_ulp : s->ratio;
    return isnan(v) ? -1 : v;
}

static const char *verdict(const ln_kernel *k, const score *s)
{
    if (!k->bound) return "none";
    if (!s->in_domain) return "outside";
    if (isnan(s->bound)) return "none";
    return s->nonfinite || !(s->max_norm <= s->bound) ? "fail" : "pass";
}

/* ---- moves ---- */

/* v moved by n units in the last place of format t (n small; a binade boundary only changes
 * the step). */
static double step_ulps(ln_dtype t, double v, double n) { return v + n * ln_ulp(t, v); }

static double row_mean(const hunt *h, const void *x)
{
    double s = 0;
    for (size_t i = 0; i < h->D; i++) s += ln_load(h->t, x, i);
    return s / (double)h->D;
}

static double row_sigma(const hunt *h, const void *x, double mean)
{
    double s = 0;
    for (size_t i = 0; i < h->D; i++) {
        double d = ln_load(h->t, x, i) - mean;
        s += d * d;
    }
    return sqrt(s / (double)h->D);
}

static void swap_elements(hunt *h, void *x, size_t i, size_t j)
{
    char tmp[8];
    char *a = (char *)x + i * h->es, *b = (char *)x + j * h->es;
    memcpy(tmp, a, h->es);
    memcpy(a, b, h->es);
    memcpy(b, tmp, h->es);
}

/* A range of row's summed inputs (h = x + r) folded: the first input holds their sum rounded once,
 * the others 0. h is unchanged and the add exact: a kernel that takes a shortcut on a zero input,
 * or normalises something other than the stored h, shows it. */
static void fold_summed(hunt *h, void *row, size_t a, size_t len)
{
    size_t seg = h->D * h->es;
    for (size_t i = a; i < a + len; i++) {
        double sum = 0; /* in double: exact for two inputs of a narrower format */
        for (unsigned k = 0; k < h->n_summed; k++) {
            char *in = (char *)row + h->summed[k] * seg;
            sum += ln_load(h->t, in, i);
            ln_store(h->t, in, i, 0);
        }
        ln_store(h->t, (char *)row + h->summed[0] * seg, i, sum);
    }
}

/* A move between the inputs summed into the normalised tensor (the op's SUMMED roles): on a range
 * (the whole row half the time) either folded (fold_summed) or one input shifted by S and another
 * by -S, S = 2^j max|h| (j < p + 3): h stays about the same while the add cancels, so h keeps only
 * the bits of x + r above ulp(S), and a kernel that adds in another precision or order than one
 * rounding of the exact sum, or normalises x + r unrounded, errs by up to S's ulp relative to h. */
static void residual_move(hunt *h, void *row)
{
    ln_dtype t = h->t;
    size_t D = h->D, seg = D * h->es, a = below(&h->rng, D), len = 1 + below(&h->rng, D);
    if (coin(&h->rng)) a = 0, len = D;
    if (a + len > D) len = D - a;
    if (coin(&h->rng)) {
        fold_summed(h, row, a, len);
        return;
    }
    unsigned i0 = (unsigned)below(&h->rng, h->n_summed);
    unsigned i1 = (i0 + 1 + (unsigned)below(&h->rng, h->n_summed - 1)) % h->n_summed;
    char *up = (char *)row + h->summed[i0] * seg, *down = (char *)row + h->summed[i1] * seg;
    double top = 0;
    for (size_t i = 0; i < D; i++) top = fmax(top, fabs(ln_load(t, up, i) + ln_load(t, down, i)));
    double S = ldexp(top > 0 ? top : 1, (int)below(&h->rng, (size_t)ln_fmt(t)->p + 3));
    for (size_t i = a; i < a + len; i++) {
        double u = ln_load(t, up, i), d = ln_load(t, down, i);
        ln_store(t, up, i, u + S);
        ln_store(t, down, i, d - S);
        if (!isfinite(ln_load(t, up, i)) || !isfinite(ln_load(t, down, i))) /* beyond the format's range */
            ln_store(t, up, i, u), ln_store(t, down, i, d);
    }
}

/* One random local move on one of row's inputs (x, or dy, ...), or, for an op that sums inputs,
 * a move between them one time in four; other is another good row (for crossover). */
static void random_move(hunt *h, void *row, const void *other_row)
{
    if (h->n_summed >= 2 && below(&h->rng, 4) == 0) {
        residual_move(h, row);
        return;
    }
    size_t seg = h->n_in > 1 ? below(&h->rng, h->n_in) * h->D * h->es : 0;
    char *x = (char *)row + seg;
    const char *other = (const char *)other_row + seg;
    ln_dtype t = h->t;
    size_t D = h->D, a = below(&h->rng, D), len = 1 + below(&h->rng, D / 8 + 1);
    if (a + len > D) len = D - a;
    double mean = row_mean(h, x);
    switch (below(&h->rng, 10)) {
    case 0: /* one element by a few ulps */
        ln_store(t, x, a, step_ulps(t, ln_load(t, x, a), (double)(1 + below(&h->rng, 4)) * (coin(&h->rng) ? 1 : -1)));
        break;
    case 1: /* a range, each element by one ulp either way */
        for (size_t i = a; i < a + len; i++) ln_store(t, x, i, step_ulps(t, ln_load(t, x, i), coin(&h->rng) ? 1 : -1));
        break;
    case 2: { /* a range's deviations from the mean scaled by 2 or 1/2 (its exponents) */
        double f = coin(&h->rng) ? 2.0 : 0.5;
        for (size_t i = a; i < a + len; i++) ln_store(t, x, i, mean + (ln_load(t, x, i) - mean) * f);
        break;
    }
    case 3: /* a range reflected about the mean (signs of its deviations) */
        for (size_t i = a; i < a + len; i++) ln_store(t, x, i, 2 * mean - ln_load(t, x, i));
        break;
    case 4: { /* the mean offset: every element shifted by sigma * 2^j */
        double sigma = row_sigma(h, x, mean), shift = ldexp(sigma > 0 ? sigma : 1, (int)below(&h->rng, 31) - 10);
        if (coin(&h->rng)) shift = -shift;
        for (size_t i = 0; i < D; i++) ln_store(t, x, i, ln_load(t, x, i) + shift);
        break;
    }
    case 5: /* element order: a range reversed, or two elements swapped */
        if (coin(&h->rng))
            for (size_t i = 0; i < len / 2; i++) swap_elements(h, x, a + i, a + len - 1 - i);
        else swap_elements(h, x, a, below(&h->rng, D));
        break;
    case 6: { /* toward the edges of the format: the whole row scaled by 2^j */
        int j = 1 + (int)below(&h->rng, ln_fmt(t)->emax / 4 + 1);
        for (size_t i = 0; i < D; i++) ln_store(t, x, i, ldexp(ln_load(t, x, i), coin(&h->rng) ? j : -j));
        break;
    }
    case 7: { /* a cancelling pair: +B and about -B, B beyond the row's largest value, so that a
               * sum of the row passes through large partial results that absorb the others'
               * low bits (a sum whose condition number sum|x| / |sum x| is large) */
        double big = 0;
        for (size_t i = 0; i < D; i++) big = fmax(big, fabs(ln_load(t, x, i)));
        big = ldexp(big > 0 ? big : 1, 1 + (int)below(&h->rng, 8)) * (coin(&h->rng) ? 1 : -1);
        size_t b = below(&h->rng, D);
        ln_store(t, x, a, big);
        ln_store(t, x, b, step_ulps(t, -ln_load(t, x, a), (double)below(&h->rng, 64) - 32));
        break;
    }
    case 8: { /* the tails clipped: deviations beyond c sigma pulled in to c sigma, which lowers
               * max|y| and so raises every normwise error (the worst rows have |xhat| ~ 1) */
        double sigma = row_sigma(h, x, mean), lim = sigma * (1.0 + (double)below(&h->rng, 16) / 8.0);
        for (size_t i = 0; i < D; i++) {
            double d = ln_load(t, x, i) - mean;
            if (fabs(d) > lim) ln_store(t, x, i, mean + copysign(lim, d));
        }
        break;
    }
    default: /* a range copied from another good row */
        memcpy((char *)x + a * h->es, (const char *)other + a * h->es, len * h->es);
        break;
    }
}

/* ---- constructions ---- */

/* y_j from the row's sums S1 = sum x and S2 = sum x^2 (double-double, updated in O(1) when one
 * element changes): accurate to about kappa^2 2^-106, ample for steering toward a midpoint. An op
 * that does not centre takes the mean as 0. */
static dd output_from_sums(const hunt *h, size_t j, double xj, dd s1, dd s2)
{
    double n = (double)h->D;
    dd m = h->centres ? dd_div_d(s1, n) : (dd){0, 0};
    dd var = dd_add(dd_div_d(s2, n), dd_neg(dd_mul(m, m)));
    dd y = dd_mul(dd_add(dd_from(xj), dd_neg(m)), dd_rsqrt(dd_add(var, dd_from(h->eps))));
    if (h->gamma) y = dd_mul(y, dd_from(ln_load(h->t, h->gamma, j)));
    if (h->beta) y = dd_add(y, dd_from(ln_load(h->t, h->beta, j)));
    return y;
}

/* Steers output j to within 2^-34 ulp of a rounding midpoint, on the side given, through the
 * row's mean and variance. A step delta of element k moves y_j by about delta / (D sigma) times
 * (1 + xhat_j xhat_k): in ulps of y_j, 2^(m - a) / D for a step of 2^m ulps of an element of
 * magnitude 2^-a sigma. So a few elements are made "knobs" at magnitudes 2^-6, 2^-18, 2^-30
 * sigma (more for wider formats) whose steps of 1 to 2^12 ulps together reach any position to
 * 2^-36 ulp; other elements move too, alone or in pairs by opposite amounts. A move is kept when
 * it brings y_j closer (its value from the row's sums, updated in O(1)). A kernel that computes
 * y_j in a wider format and rounds once then misrounds it whenever its own error, a few 2^-30
 * ulp, points the other way: about half of the attempts. */
static void steer_to_tie(hunt *h, void *x, size_t trials)
{
    ln_dtype t = h->t;
    enum { MAX_KNOBS = 6 };
    size_t D = h->D, j = below(&h->rng, D), knob[MAX_KNOBS];
    int nknobs = (ln_fmt(t)->p + 12) / 12;
    if (D < (size_t)nknobs + 2) return;
    double mean = row_mean(h, x), sigma = row_sigma(h, x, mean);
    if (!(sigma > 0)) return;
    for (int i = 0; i < nknobs; i++) {
        do knob[i] = below(&h->rng, D);
        while (knob[i] == j);
        double v = ldexp(sigma * (1.0 + (double)below(&h->rng, 1024) / 1024), -6 - 12 * i);
        ln_store(t, x, knob[i], coin(&h->rng) ? v : -v);
    }
    dd s1 = {0, 0}, s2 = {0, 0};
    for (size_t i = 0; i < D; i++) {
        double v = ln_load(t, x, i);
        s1 = dd_add(s1, dd_from(v));
        s2 = dd_add(s2, dd_mul(dd_from(v), dd_from(v)));
    }
    double xj = ln_load(t, x, j);
    dd y = output_from_sums(h, j, xj, s1, s2);
    if (!isfinite(y.hi) || y.hi == 0) return;
    double q = ln_ulp(t, y.hi), mid = floor(y.hi / q) * q + q / 2;
    double target = (coin(&h->rng) ? 1 : -1) * 0x1p-34;
    /* distance to the target in ulps of y_j's format */
#define TIE_COST(yy) fabs(((yy).hi - mid) / q + (yy).lo / q - target)
    double cost = TIE_COST(y);
    for (size_t it = 0; it < trials && cost > 0x1p-37; it++) {
        size_t k = coin(&h->rng) ? knob[below(&h->rng, (size_t)nknobs)] : below(&h->rng, D);
        size_t l = coin(&h->rng) ? below(&h->rng, D) : D; /* l = D: k alone */
        if (k == j || l == j || l == k) continue;
        double old_k = ln_load(t, x, k), old_l = l < D ? ln_load(t, x, l) : 0;
        double unit = l < D ? fmax(ln_ulp(t, old_k), ln_ulp(t, old_l)) : ln_ulp(t, old_k);
        double delta = ldexp(coin(&h->rng) ? unit : -unit, (int)below(&h->rng, 13));
        double v_k = old_k + delta, v_l = old_l - delta;
        ln_store(t, x, k, v_k);
        if (l < D) ln_store(t, x, l, v_l);
        if (ln_load(t, x, k) != v_k || (l < D && ln_load(t, x, l) != v_l)) { /* not representable */
            ln_store(t, x, k, old_k);
            if (l < D) ln_store(t, x, l, old_l);
            continue;
        }
        dd n1 = dd_add(s1, dd_add(dd_from(v_k), dd_from(-old_k)));
        dd n2 = dd_add(s2, dd_add(dd_mul(dd_from(v_k), dd_from(v_k)), dd_neg(dd_mul(dd_from(old_k), dd_from(old_k)))));
        if (l < D) {
            n1 = dd_add(n1, dd_add(dd_from(v_l), dd_from(-old_l)));
            n2 = dd_add(n2, dd_add(dd_mul(dd_from(v_l), dd_from(v_l)), dd_neg(dd_mul(dd_from(old_l), dd_from(old_l)))));
        }
        dd ny = output_from_sums(h, j, xj, n1, n2);
        double c = TIE_COST(ny);
        if (c < cost && fabs(ny.hi - mid) < q) {
            cost = c, s1 = n1, s2 = n2;
        } else {
            ln_store(t, x, k, old_k);
            if (l < D) ln_store(t, x, l, old_l);
        }
    }
#undef TIE_COST
}

/* ---- the search ---- */

typedef struct {
    void *x;
    score s;
    double o;
    double eps; /* the eps it was scored at */
    char dist[256];
} entry;

/* Keeps in pool (POOL entries, best first) the best rows, at most one per distribution so that
 * the starts differ; returns 1 if x entered. */
static int pool_offer(hunt *h, entry *pool, int obj, const void *x, const score *s, const char *dist)
{
    double o = objective(obj, s);
    if (o < 0) return 0;
    int last = POOL - 1;
    for (int i = 0; i < POOL; i++)
        if (pool[i].o >= 0 && !strcmp(pool[i].dist, dist)) {
            if (!(o > pool[i].o)) return 0;
            last = i; /* this distribution's row is the one replaced */
            break;
        }
    if (!(o > pool[last].o)) return 0;
    int at = last;
    void *spare = pool[last].x;
    while (at > 0 && o > pool[at - 1].o) {
        pool[at] = pool[at - 1];
        at--;
    }
    pool[at].x = spare;
    memcpy(pool[at].x, x, h->row_bytes);
    pool[at].s = *s;
    pool[at].o = o;
    pool[at].eps = h->eps;
    snprintf(pool[at].dist, sizeof pool[at].dist, "%s", dist);
    return 1;
}

static void report_progress(hunt *h, unsigned start, int force)
{
    double now = now_seconds();
    if (!h->c->progress || (!force && now - h->last_report < 1.0)) return;
    h->last_report = now;
    fprintf(stderr,
            "hunt %s D=%zu: start %u, %llu evaluations (%.0f/s), worst ratio %.4g (max_norm %.4g u), "
            "worst max_ulp %.10g\n",
            h->c->k->name, h->D, start, (unsigned long long)h->evals, (double)h->evals / fmax(now - h->t0, 1e-9),
            h->best[OBJ_RATIO].ratio, h->best[OBJ_RATIO].max_norm, h->best[OBJ_ULP].max_ulp);
}

/* end - now, 0 once now has passed end: a budget's remainder never wraps around (a start's
 * offset rows alone may spend more than a small --evals share). */
static uint64_t evals_left(uint64_t now, uint64_t end) { return end > now ? end - now : 0; }

static int out_of_budget(const hunt *h, uint64_t evals_end, double deadline)
{
    if (h->c->evals && h->evals >= evals_end) return 1;
    return h->c->seconds > 0 && now_seconds() >= deadline;
}

/* A start at a large mean offset: x_i = 2^j sigma + sigma xhat_i (kappa about 2^j). Each
 * partial sum of a fp32 accumulator is then about k 2^j sigma and may round by up to half its
 * ulp, k times an element's half-ulp, all toward one side: the error of the mean grows with the
 * length of the accumulator's chain, relative to a bound that grows with kappa (docs/hunt.md).
 * That error moves every y_i by gamma_i times the same amount, and the normwise error divides it
 * by max|y|: so xhat_i = -sign(beta_i) (c + |beta_i|) / gamma_i, which makes every |y_i| = c, with
 * c from mean(xhat^2) = 1 (about 0.84 for the harness's gamma and beta, against max|y| about 1.5
 * for xhat_i = +-1); where beta_i = 0 the sign of the row's deviation. */
static void offset_binary_row(hunt *h, void *x, int j)
{
    ln_dtype t = h->t;
    size_t D = h->D;
    double mean = row_mean(h, x), sigma = row_sigma(h, x, mean);
    if (!(sigma > 0)) sigma = 1;
    /* mean(((c + |b|) / g)^2) = 1: A c^2 + 2 B c + C = 1 */
    double A = 0, B = 0, C = 0;
    for (size_t i = 0; i < D; i++) {
        double g = h->gamma ? ln_load(t, h->gamma, i) : 1, b = h->beta ? fabs(ln_load(t, h->beta, i)) : 0;
        if (g == 0) g = 1;
        A += 1 / (g * g), B += b / (g * g), C += b * b / (g * g);
    }
    A /= (double)D, B /= (double)D, C /= (double)D;
    double c = C < 1 ? (-B + sqrt(B * B + A * (1 - C))) / A : 0;
    for (size_t i = 0; i < D; i++) {
        double g = h->gamma ? ln_load(t, h->gamma, i) : 1, b = h->beta ? ln_load(t, h->beta, i) : 0;
        double side = b != 0 ? -copysign(1, b) : copysign(1, ln_load(t, x, i) - mean);
        double xhat = g != 0 ? side * (c + fabs(b)) / g : side;
        ln_store(t, x, i, ldexp(sigma, j) + sigma * xhat);
    }
}

static double round_to(ln_dtype t, double v)
{
    char b[8];
    ln_store(t, b, 0, v);
    return ln_load(t, b, 0);
}

/* The accumulator whose roundings align_chains lines up: a running sum (s += x: the two-pass
 * and shifted kernels' sums) or Welford's running mean (m += (x - m) / k). */
enum { CHAIN_SUM, CHAIN_WELFORD, NCHAINS };

static double chain_update(int model, double acc, double v, size_t k)
{
    return model == CHAIN_SUM ? acc + v : acc + (v - acc) / (double)k;
}

/* Makes every rounding of a model of the kernel's accumulators point one way, on an offset row
 * (where each one is up to half an ulp of a partial result about k times an element): the chains
 * are the elements c, c + lanes, c + 2 lanes, ... (a vector kernel's lanes), restarted every
 * `chunk` of their elements (Welford chunks); the k-th element of a chain moves by up to min(k,
 * ALIGN_ULPS) ulps (about the number of its positions against the accumulator's grid: a sum k
 * times an element, or a mean updated by 1/k of one) to the value whose update of its chain's
 * accumulator, in the format's arithmetic, rounds down the most. Random rows make these roundings
 * a random walk, and the sweep sees them only when enough line up to move an output's rounding;
 * built this way, the error of the mean grows linearly along every chain from the start. */
enum { ALIGN_ULPS = 64 };

static void align_chains(hunt *h, void *x, int model, size_t lanes, size_t chunk)
{
    ln_dtype t = h->t;
    for (size_t c = 0; c < lanes && c < h->D; c++) {
        double acc = 0;
        size_t k = 0;
        for (size_t i = c; i < h->D; i += lanes) {
            if (k == chunk) acc = 0, k = 0;
            k++;
            double v = ln_load(t, x, i), unit = ln_ulp(t, v), best_v = v, best_err = -INFINITY;
            /* about k positions of the k-th update against the accumulator's grid: +-k ulps reach them */
            int reach = k < ALIGN_ULPS ? (int)k : ALIGN_ULPS;
            for (int a = 0; a <= 2 * reach; a++) { /* steps 0, -1, 1, -2, 2, ...: the smallest wins ties */
                double nv = round_to(t, v + (a & 1 ? -(a + 1) / 2 : a / 2) * unit);
                double exact = chain_update(model, acc, nv, k), err = exact - round_to(t, exact);
                if (err > best_err) best_err = err, best_v = nv;
            }
            ln_store(t, x, i, best_v);
            acc = round_to(t, chain_update(model, acc, best_v, k));
        }
    }
}

/* One search's current row for objective obj. */
typedef struct {
    int obj;
    void *x;
    score s;
    double o;
    int chain;           /* the chain model its offset start was aligned with, or -1 */
    size_t lanes, chunk; /* and that model's geometry */
} walker;

/* Makes cand, scored ns, w's row if it is not worse (a move that ties is taken: the search
 * drifts along plateaus); the overall best row follows. */
static void take(hunt *h, walker *w, const void *cand, const score *ns)
{
    double no = objective(w->obj, ns);
    if (!(no >= w->o)) return;
    if (cand != w->x) memcpy(w->x, cand, h->row_bytes);
    w->s = *ns, w->o = no;
    if (no > h->best_o[w->obj]) {
        h->best_o[w->obj] = no, h->best[w->obj] = *ns, h->best_eps[w->obj] = h->eps;
        memcpy(h->best_x[w->obj], cand, h->row_bytes);
        h->found_after[w->obj] = now_seconds() - h->t0;
    }
}

/* The offset start (j = 10 or 5): the plain offset row and its chain-aligned versions for each
 * accumulator model and geometry (sequential, Welford chunks of 16, 8 to 64 lanes), each scored
 * through the kernel, so the kernel itself picks the model that fits its summation order (13
 * evaluations). The best in the domain becomes w's row, and w keeps its model and geometry to
 * line the chains up again after random moves. */
static void offset_start(hunt *h, walker *w, void *cand, void *offset, int j)
{
    static const size_t geometry[][2] = {{1, (size_t)-1},  {1, 16},          {8, (size_t)-1},
                                         {16, (size_t)-1}, {32, (size_t)-1}, {64, (size_t)-1}};
    size_t bytes = h->row_bytes;
    memcpy(offset, w->x, bytes);
    offset_binary_row(h, offset, j);
    int taken = 0;
    for (int m = -1; m < NCHAINS; m++)
        for (size_t g = 0; g < (m < 0 ? 1 : sizeof geometry / sizeof geometry[0]); g++) {
            memcpy(cand, offset, bytes);
            if (m >= 0) align_chains(h, cand, m, geometry[g][0], geometry[g][1]);
            score ns;
            evaluate(h, cand, 0, &ns);
            double o = objective(w->obj, &ns);
            if (o < 0) continue;
            if (!taken) w->o = -INFINITY; /* the first in the domain replaces the pool row */
            taken = 1;
            if (o >= w->o) w->chain = m, w->lanes = geometry[g][0], w->chunk = geometry[g][1];
            take(h, w, cand, &ns);
        }
}

/* The coordinate sweep: every element in turn, in index order or lane by lane (lanes = the
 * stride of a vector kernel's accumulators), is tried at +-2^k ulps (k < SWEEP_STEPS) and the
 * best of those is kept if the objective does not decrease. Each trial runs the kernel, so the
 * sweep aligns the rounding errors of whatever order the kernel sums in (sequential, strided
 * lanes, chunks, trees) without a model of it: an element visited after the ones before it in
 * its accumulator's order sets the rounding of that partial sum to the side that adds to the
 * error so far, and the rounding errors pile up linearly instead of cancelling like a random
 * walk. The steps reach a partial sum's half-ulp while it is at most 2^(SWEEP_STEPS - 1) times
 * the element's size. */
enum { SWEEP_STEPS = 4 };

static void sweep(hunt *h, walker *w, size_t lanes, uint64_t evals_end, double deadline)
{
    size_t D = h->D * h->n_in, per_lane = (D + lanes - 1) / lanes; /* every input of the row */
    for (size_t p = 0; p < lanes * per_lane; p++) {
        size_t i = (p % per_lane) * lanes + p / per_lane; /* lane p / per_lane, its (p % per_lane)-th element */
        if (i >= D) continue;
        double v = ln_load(h->t, w->x, i), best_v = v, best_o = -INFINITY;
        score best_s;
        for (int k = 0; k < 2 * SWEEP_STEPS && !out_of_budget(h, evals_end, deadline); k++) {
            double nv = step_ulps(h->t, v, ldexp(k & 1 ? -1.0 : 1.0, k / 2));
            ln_store(h->t, w->x, i, nv);
            if (ln_load(h->t, w->x, i) == nv) { /* else beyond the format's range */
                score ns;
                evaluate(h, w->x, 0, &ns);
                double no = objective(w->obj, &ns);
                if (no > best_o) best_o = no, best_v = nv, best_s = ns;
            }
            ln_store(h->t, w->x, i, v);
        }
        if (best_v != v && best_o >= w->o) {
            ln_store(h->t, w->x, i, best_v);
            take(h, w, w->x, &best_s);
        }
        report_progress(h, 0, 0);
        if (out_of_budget(h, evals_end, deadline)) return;
    }
}

/* Confirms a row, scored at eps, with the MPFR reference into f (x copied). */
static void confirm(hunt *h, const void *x, double eps, ln_hunt_find *f)
{
    f->eps = h->eps = eps;
    if (!x) {
        f->verdict = "none";
        f->max_norm = f->max_ulp = f->kappa = f->bound = f->ratio = NAN;
        return;
    }
    score s;
    evaluate(h, x, 1, &s);
    f->x = malloc(h->row_bytes);
    if (!f->x) ln_die("out of memory");
    memcpy(f->x, x, h->row_bytes);
    f->max_norm = s.max_norm, f->max_ulp = s.max_ulp, f->kappa = s.kappa, f->nonfinite = s.nonfinite;
    f->bound = s.bound, f->ratio = h->c->k->bound ? s.ratio : NAN;
    f->verdict = verdict(h->c->k, &s);
    /* what `lnbench accuracy` would say beyond the first output: returned statistics held to the
     * bound, a const input written */
    ln_verdict v;
    ln_judge(h->c->k, &h->p, h->y, &v);
    if (v.verdict == LN_FAIL) f->verdict = "fail";
}

/* The one-row case of k's op every candidate is scored on (h->p, its inputs replaced by each
 * candidate's), and the search's view of the op's inputs. */
static void hunt_setup(hunt *h, const ln_hunt_config *c)
{
    const ln_op_info *op = &ln_ops[c->k->op];
    ln_case hc = {.dtype = h->t,
                  .resid = c->k->resid,
                  .D = c->D,
                  .rows = 1,
                  .eps = c->eps,
                  .seed = c->seed,
                  .affine = 1,
                  .op = c->k->op};
    ln_dist_parse("normal", &hc.dist);
    h->screen = hc.screen = ln_op_screen(c->k->op);
    if (ln_prepare(&hc, &h->p) != 0) ln_die("hunt: cannot prepare a case of %s", op->name);
    free(h->p.input); /* every candidate is a row as stored: judged as given */
    h->p.input = NULL;
    for (size_t i = 0; i < op->n_roles; i++)
        if (op->roles[i].kind == LN_ROLE_IN && op->roles[i].shape == LN_SHAPE_ROWS_D) {
            if (op->roles[i].flags & LN_ROLE_SUMMED) h->summed[h->n_summed++] = h->n_in;
            h->in_fmt[h->n_in] = ln_role_format(op->roles[i].flags, c->k->dtype, c->k->resid);
            h->in_role[h->n_in++] = (int)i;
        }
    h->row_bytes = h->n_in * c->D * h->es;
    h->gamma = h->p.gamma, h->beta = h->p.beta;
    h->near_ties = op->forward == c->k->op;
    h->centres = op->centres;
    h->y = malloc(c->D * h->es);
    if (!h->y) ln_die("out of memory");
}

/* A copy of an input vector of D elements (NULL stays NULL). */
static void *copy_vector(const hunt *h, const void *v)
{
    if (!v) return NULL;
    void *out = malloc(h->D * h->es);
    if (!out) ln_die("out of memory");
    return memcpy(out, v, h->D * h->es);
}

void ln_hunt_run(const ln_hunt_config *c, ln_hunt_result *r)
{
    memset(r, 0, sizeof *r);
    hunt h = {.c = c, .t = c->k->dtype, .D = c->D, .es = ln_fmt(c->k->dtype)->size, .t0 = now_seconds()};
    h.last_report = h.t0;
    hunt_setup(&h, c);
    size_t D = c->D, bytes = h.row_bytes, seg = D * h.es;
    entry pool[NOBJ][POOL];
    void *cand = malloc(bytes), *offset = malloc(bytes);
    if (!cand || !offset) ln_die("out of memory");
    for (int o = 0; o < NOBJ; o++) {
        h.best_x[o] = malloc(bytes);
        for (int i = 0; i < POOL; i++) {
            pool[o][i] = (entry){.x = malloc(bytes), .o = -1};
            if (!pool[o][i].x || !h.best_x[o]) ln_die("out of memory");
        }
        h.best[o].ratio = h.best[o].max_norm = h.best[o].max_ulp = NAN;
    }

    /* 1. the built-in distributions, each at the run's eps and at eps 0 (the other value every
     * sweep of lnbench accuracy is asked for): every row scored; the best kept as starts and as
     * the baseline, with the eps they were scored at. The rows are `lnbench accuracy --op OP
     * --rows 16`'s: x of the distribution, the further inputs (dy) its normal draws. */
    size_t ndist;
    char **dists = ln_split_list(ln_hunt_start_dists, "dists", &ndist);
    const double epss[2] = {c->eps, 0};
    for (int e = 0; e < (c->eps != 0 ? 2 : 1); e++) {
        h.eps = epss[e];
        for (size_t di = 0; di < ndist; di++) {
            ln_case sc = {.dtype = h.t,
                          .D = D,
                          .rows = START_ROWS,
                          .eps = h.eps,
                          .seed = c->seed,
                          .affine = 1,
                          .op = c->k->op,
                          .screen = h.screen};
            ln_dist_parse(dists[di], &sc.dist);
            ln_prepared sp;
            if (ln_prepare(&sc, &sp) != 0) ln_die("hunt: cannot draw the %s rows", dists[di]);
            char label[sizeof((entry *)0)->dist];
            snprintf(label, sizeof label, e ? "%s at eps 0" : "%s", sc.dist.spec);
            for (size_t row = 0; row < START_ROWS; row++) {
                for (unsigned k = 0; k < h.n_in; k++)
                    memcpy((char *)cand + k * seg, (const char *)sp.role[h.in_role[k]].data + row * seg, seg);
                score s;
                evaluate(&h, cand, 0, &s);
                for (int o = 0; o < NOBJ; o++) pool_offer(&h, pool[o], o, cand, &s, label);
            }
            ln_prepared_free(&sp);
            ln_dist_free(&sc.dist);
        }
    }
    free(dists);
    entry builtin[NOBJ];
    for (int o = 0; o < NOBJ; o++) {
        builtin[o] = pool[o][0];
        builtin[o].x = pool[o][0].o >= 0 ? malloc(bytes) : NULL;
        if (builtin[o].x) memcpy(builtin[o].x, pool[o][0].x, bytes);
        memcpy(h.best_x[o], pool[o][0].x, bytes);
        h.best[o] = pool[o][0].s;
        h.best_o[o] = pool[o][0].o;
        h.best_eps[o] = pool[o][0].o >= 0 ? pool[o][0].eps : c->eps;
        h.found_after[o] = now_seconds() - h.t0;
    }

    /* 2. the starts this shard runs, each with an equal share of the budget */
    unsigned mine = 0;
    for (unsigned s = 0; s < c->starts; s++) mine += ln_shard_takes(c->shard, s);
    double t_search = now_seconds();
    walker w = {.x = malloc(bytes)};
    if (!w.x) ln_die("out of memory");
    for (unsigned s = 0, done = 0; s < c->starts; s++) {
        if (!ln_shard_takes(c->shard, s)) continue;
        h.rng = c->seed * 0x9e3779b97f4a7c15u + s;
        uint64_t evals_end = h.evals + (c->evals ? c->evals / c->starts : 0);
        double deadline = t_search + c->seconds * (double)(done + 1) / (double)mine;
        done++;
        for (int o = 0; o < NOBJ; o++) {
            entry *from = &pool[o][s % POOL];
            if (from->o < 0) from = &pool[o][0];
            if (from->o < 0) continue; /* no built-in row inside the domain */
            memcpy(w.x, from->x, bytes);
            w.obj = o, w.s = from->s, w.o = from->o, w.chain = -1;
            h.eps = from->eps;                  /* the search stays at the eps its start row was found at */
            if (o == OBJ_RATIO && s % 2 == 1) { /* every other start at a large mean offset, if in the domain */
                offset_start(&h, &w, cand, offset, s % 4 == 1 ? 10 : 5);
            }
            /* half of the budget of each objective; the rest to the other */
            double obj_deadline = o == OBJ_RATIO ? deadline - (deadline - now_seconds()) / 2 : deadline;
            uint64_t obj_evals_end = o == OBJ_RATIO ? h.evals + evals_left(h.evals, evals_end) / 2 : evals_end;
            uint64_t obj_start_evals = h.evals;
            double obj_start_t = now_seconds();
            while (!out_of_budget(&h, obj_evals_end, obj_deadline) && !(c->evals == 0 && c->seconds <= 0)) {
                /* the last third of the ratio's budget: coordinate sweeps polish the row */
                int polish = c->evals ? h.evals >= obj_evals_end - evals_left(obj_start_evals, obj_evals_end) / 3
                                      : now_seconds() >= obj_deadline - (obj_deadline - obj_start_t) / 3;
                if (o == OBJ_RATIO && polish) {
                    static const size_t lanes[] = {1, 8, 16, 32, 64};
                    sweep(&h, &w, lanes[below(&h.rng, sizeof lanes / sizeof lanes[0])], obj_evals_end, obj_deadline);
                    continue;
                }
                memcpy(cand, w.x, bytes);
                /* near-ties matter only to a kernel whose outputs are (almost) correctly rounded */
                if (o == OBJ_ULP && w.o < 1 && h.near_ties && below(&h.rng, 4) == 0) {
                    /* steered through one input's statistics: exact once it holds the whole sum
                     * of the summed inputs (x = h, r = 0) */
                    size_t tie = 0;
                    if (h.n_summed >= 2) fold_summed(&h, cand, 0, D), tie = h.summed[0] * seg;
                    steer_to_tie(&h, (char *)cand + tie, 20000);
                } else {
                    const entry *other = &pool[o][below(&h.rng, POOL)];
                    random_move(&h, cand, other->o >= 0 ? other->x : w.x);
                    /* a move upsets the roundings after it along its chain: half the time they are
                     * lined up again, so moves explore rows that stay aligned */
                    if (w.chain >= 0 && coin(&h.rng)) align_chains(&h, cand, w.chain, w.lanes, w.chunk);
                }
                score ns;
                evaluate(&h, cand, 0, &ns);
                take(&h, &w, cand, &ns);
                report_progress(&h, s, 0);
            }
        }
        report_progress(&h, s, 1);
    }
    free(w.x);

    /* 3. the MPFR reference on the rows reported */
    r->gamma = copy_vector(&h, h.gamma), r->beta = copy_vector(&h, h.beta);
    r->n_in = h.n_in;
    for (unsigned k = 0; k < h.n_in; k++) r->in_name[k] = ln_ops[c->k->op].roles[h.in_role[k]].name;
    confirm(&h, h.best_o[OBJ_RATIO] >= 0 ? h.best_x[OBJ_RATIO] : NULL, h.best_eps[OBJ_RATIO], &r->worst_ratio);
    confirm(&h, h.best_o[OBJ_ULP] >= 0 ? h.best_x[OBJ_ULP] : NULL, h.best_eps[OBJ_ULP], &r->worst_ulp);
    r->worst_ratio.found_after = h.found_after[OBJ_RATIO];
    r->worst_ulp.found_after = h.found_after[OBJ_ULP];
    confirm(&h, builtin[OBJ_RATIO].x, builtin[OBJ_RATIO].eps, &r->builtin_ratio);
    confirm(&h, builtin[OBJ_ULP].x, builtin[OBJ_ULP].eps, &r->builtin_ulp);
    snprintf(r->builtin_ratio_dist, sizeof r->builtin_ratio_dist, "%s", builtin[OBJ_RATIO].dist);
    snprintf(r->builtin_ulp_dist, sizeof r->builtin_ulp_dist, "%s", builtin[OBJ_ULP].dist);
    r->evals = h.evals;
    r->seconds = now_seconds() - h.t0;

    for (int o = 0; o < NOBJ; o++) {
        free(builtin[o].x);
        free(h.best_x[o]);
        for (int i = 0; i < POOL; i++) free(pool[o][i].x);
    }
    free(cand), free(offset), free(h.y);
    ln_dist_free(&h.p.c.dist);
    ln_prepared_free(&h.p);
}

void ln_hunt_result_free(ln_hunt_result *r)
{
    free(r->worst_ratio.x), free(r->worst_ulp.x), free(r->builtin_ratio.x), free(r->builtin_ulp.x);
    free(r->gamma), free(r->beta);
    memset(r, 0, sizeof *r);
}
