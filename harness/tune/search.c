#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_plan.h"
#include "cli.h"
#include "gbench.h"
#include "stats.h"

/* Min time per sample: the budget spread over the samples a search expects, within these. */
#define MIN_TIME_LO 0.002
#define MIN_TIME_HI 0.05
#define MAX_PASSES 3     /* coordinate descent: passes over the tunables at most */
#define SIGNIFICANT 0.05 /* Mann-Whitney p below which a move (and the final choice) is taken */

double ln_tune_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int v[LN_TUNING_MAXP];
} combo;

/* A setting already checked against the default's output bits. */
typedef struct {
    combo c;
    int ok;
} checked;

typedef struct {
    ln_bench_pool *pool;
    const ln_tune_options *o;
    const ln_tune_task *t;
    const ln_kernel *k;
    size_t nt;          /* tunables */
    ln_bench_case base; /* the kernel case as `lnbench bench` plans it, defaults (params NULL) */
    uint64_t default_hash;
    checked *seen;
    size_t nseen, capseen;
    int refused, timed, round;
    double min_time, start;
    ln_tuning_entry *e;         /* its timed[]: every setting's rate over the defaults' */
    double sum[LN_TUNING_MAXT]; /* of the ratios of timed[i], over count[i] rounds */
    int count[LN_TUNING_MAXT];
} search;

static int same(const search *s, const combo *a, const combo *b)
{
    return memcmp(a->v, b->v, s->nt * sizeof a->v[0]) == 0;
}

static void show(const search *s, const char *what)
{
    if (!s->o->progress || !isatty(STDERR_FILENO)) return;
    double left = s->o->deadline - ln_tune_now();
    fprintf(stderr, "\r\033[K%s %s D %zu %s: %s; %.0f s left", s->t->label, s->k->name, s->t->D,
            ln_bench_regime(s->t->bytes), what, left > 0 ? left : 0);
    fflush(stderr);
}

/* "a=1;b=2" */
static const char *text(const search *s, const combo *c, char *buf, size_t n)
{
    return ln_params_format(s->k, c->v, buf, n);
}

/* Whether c gives the default's output bits (checked once per setting); a refusal is said on
 * stderr whatever --quiet says: it is a bug in the kernel. */
static int output_ok(search *s, const combo *c)
{
    for (size_t i = 0; i < s->nseen; i++)
        if (same(s, &s->seen[i].c, c)) return s->seen[i].ok;
    ln_bench_case cc = s->base;
    cc.params = c->v;
    int ok = ln_bench_output_hash(s->pool, &cc) == s->default_hash;
    if (!ok) {
        char p[512];
        if (s->o->progress && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
        fprintf(stderr,
                "lnbench tune: REFUSED %s with %s at D %zu, %zu rows: its output bits differ from the defaults' "
                "(a tunable must never change the output: a bug in the kernel); not timed\n",
                s->k->name, text(s, c, p, sizeof p), s->base.D, s->base.rows);
        s->refused++;
    }
    if (s->nseen == s->capseen) {
        s->capseen = s->capseen ? 2 * s->capseen : 16;
        if (!(s->seen = realloc(s->seen, s->capseen * sizeof *s->seen))) ln_die("out of memory");
    }
    s->seen[s->nseen++] = (checked){*c, ok};
    return ok;
}

static double median_of(const double *v, int n);
static void note_timed(search *s, const combo *c, double ratio);

/* GB/s of the run of case c from CPU time per thread (bench.csv's gbps_cpu): the time other
 * processes take the CPU away is not in it, so a search on a shared machine is not steered by
 * them; on a quiet machine it is the wall-time rate. Google Benchmark names the run c's name plus
 * the suffixes of a per-case min time and repetitions ("/min_time:0.010/repeats:1/real_time").
 * NaN if it has no run. */
static double rate_of(const ln_gb_result *res, size_t nres, const ln_bench_case *c)
{
    size_t len = strlen(c->name);
    for (size_t i = 0; i < nres; i++)
        if (!res[i].error && !res[i].aggregate[0] && !strncmp(res[i].name, c->name, len) && res[i].name[len] == '/')
            return ln_gb_counter_value(&res[i], "bytes_per_second") * 1e-9 * res[i].real_ns /
                   (res[i].cpu_ns / c->threads);
    return NAN;
}

/* Times the defaults (params NULL, as `lnbench bench` calls the kernel untuned) and cands[0..n)
 * in reps repetitions, the order rotated each repetition so that no candidate always follows
 * the same one; rates[j * reps + r] is GB/s of candidate j - 1 (j = 0: the defaults). */
static void time_round(search *s, const combo *cands, size_t n, int reps, double *rates)
{
    size_t ncases = (n + 1) * (size_t)reps;
    ln_bench_case *cases = malloc(ncases * sizeof *cases);
    if (!cases) ln_die("out of memory");
    s->round++;
    for (int r = 0; r < reps; r++)
        for (size_t q = 0; q <= n; q++) {
            size_t j = (q + (size_t)r) % (n + 1);
            ln_bench_case *c = &cases[(size_t)r * (n + 1) + q];
            *c = s->base;
            c->params = j ? cands[j - 1].v : NULL;
            c->smaller = NULL;
            snprintf(c->name, sizeof c->name, "tune/round:%d/c:%zu/rep:%d/%.200s", s->round, j, r, s->base.name);
            c->index = (size_t)r * (n + 1) + q;
            ln_bench_set_run_name(c);
        }
    ln_bench_run_options ro = {.quiet = 1, .silent = 1, .pool = s->pool, .repetitions = 1, .min_time = s->min_time};
    ln_gb_result *res;
    size_t nres = ln_bench_run(cases, ncases, &ro, &res);
    for (size_t i = 0; i < ncases; i++) {
        size_t j = (i % (n + 1) + i / (n + 1)) % (n + 1); /* as placed above */
        rates[j * reps + (int)(i / (n + 1))] = rate_of(res, nres, &cases[i]);
    }
    s->timed += (int)n;
    for (size_t j = 1; j <= n; j++)
        note_timed(s, &cands[j - 1], median_of(rates + j * reps, reps) / median_of(rates, reps));
    free(res), free(cases);
}

/* Keeps c's median rate over the defaults' in the same round (averaged over the rounds that timed
 * it) in the entry's timed list. */
static void note_timed(search *s, const combo *c, double ratio)
{
    ln_tuning_entry *e = s->e;
    int i = 0;
    while (i < e->ntimed && memcmp(e->timed[i].v, c->v, s->nt * sizeof c->v[0])) i++;
    if (i == e->ntimed) {
        if (i == LN_TUNING_MAXT || !isfinite(ratio)) return;
        memcpy(e->timed[i].v, c->v, sizeof e->timed[i].v);
        s->sum[i] = 0, s->count[i] = 0;
        e->ntimed++;
    }
    s->sum[i] += ratio, s->count[i]++;
    e->timed[i].vs_default = s->sum[i] / s->count[i];
}

static double median_of(const double *v, int n)
{
    double tmp[256];
    int m = 0;
    for (int i = 0; i < n && m < 256; i++)
        if (isfinite(v[i])) tmp[m++] = v[i];
    return ln_median(tmp, (size_t)m);
}

/* Every combination of the tunables but the defaults, in *n. */
static combo *all_combos(const search *s, const combo *def, size_t total, size_t *n)
{
    combo *out = malloc(total * sizeof *out);
    if (!out) ln_die("out of memory");
    *n = 0;
    for (size_t i = 0; i < total; i++) {
        combo c = {{0}};
        size_t rest = i;
        for (size_t j = 0; j < s->nt; j++) {
            const ln_tunable *u = &s->k->tunables[j];
            c.v[j] = u->values[rest % u->n_values];
            rest /= u->n_values;
        }
        if (!same(s, &c, def)) out[(*n)++] = c;
    }
    return out;
}

/* Keeps the candidates whose output bits are the default's. */
static size_t keep_ok(search *s, combo *c, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (output_ok(s, &c[i])) c[kept++] = c[i];
    return kept;
}

/* One round: the defaults, cur (unless it is the defaults) and cands; returns the fastest by
 * median, and its and cur's rates in best_rates, cur_rates (reps each). */
static combo round_best(search *s, const combo *def, const combo *cur, combo *cands, size_t n, double *best_rates,
                        double *cur_rates)
{
    int reps = s->o->reps, with_cur = !same(s, cur, def);
    combo *all = malloc((n + 1) * sizeof *all);
    double *rates = malloc((n + 2) * (size_t)reps * sizeof *rates);
    if (!all || !rates) ln_die("out of memory");
    size_t m = 0;
    if (with_cur) all[m++] = *cur;
    for (size_t i = 0; i < n; i++) all[m++] = cands[i];
    char what[96];
    snprintf(what, sizeof what, "round %d, %zu candidate%s", s->round + 1, m, m == 1 ? "" : "s");
    show(s, what);
    time_round(s, all, m, reps, rates);
    /* j = 0 the defaults, 1.. all[] */
    size_t best = with_cur ? 1 : 0;
    for (size_t j = 0; j <= m; j++)
        if (median_of(rates + j * reps, reps) > median_of(rates + best * reps, reps)) best = j;
    memcpy(cur_rates, rates + (with_cur ? 1 : 0) * reps, reps * sizeof *rates);
    memcpy(best_rates, rates + best * reps, reps * sizeof *rates);
    combo out = best ? all[best - 1] : *def;
    free(all), free(rates);
    return out;
}

static double mann_whitney(const double *a, const double *b, int n)
{
    double x[256], y[256];
    int nx = 0, ny = 0;
    for (int i = 0; i < n && i < 256; i++) {
        if (isfinite(a[i])) x[nx++] = a[i];
        if (isfinite(b[i])) y[ny++] = b[i];
    }
    return ln_mann_whitney_p(x, (size_t)nx, y, (size_t)ny);
}

/* Coordinate descent from the defaults: each tunable in turn over its values, the others held;
 * a move only to a significantly faster setting; passes until none moves (or the budget ends). */
static combo coordinate(search *s, const combo *def)
{
    int reps = s->o->reps;
    double *best_rates = malloc(reps * sizeof *best_rates), *cur_rates = malloc(reps * sizeof *cur_rates);
    combo *cands = malloc(64 * sizeof *cands);
    if (!best_rates || !cur_rates || !cands) ln_die("out of memory");
    combo cur = *def;
    size_t last_moved = s->nt; /* none yet */
    for (int pass = 0, moved = 1; pass < MAX_PASSES && moved; pass++) {
        moved = 0;
        for (size_t j = 0; j < s->nt; j++) {
            /* back at the last tunable that moved, with none moved since: a fixed point */
            if (j == last_moved && pass > 0 && !moved) goto out;
            /* the first pass is the least search worth its name: it is finished, like an exhaustive
             * round, whatever the budget says */
            if (pass > 0 && (ln_tune_now() - s->start > s->t->seconds || ln_tune_now() > s->o->deadline)) goto out;
            const ln_tunable *u = &s->k->tunables[j];
            size_t n = 0;
            for (size_t v = 0; v < u->n_values && n < 64; v++)
                if (u->values[v] != cur.v[j]) cands[n] = cur, cands[n++].v[j] = u->values[v];
            if ((n = keep_ok(s, cands, n)) == 0) continue;
            combo best = round_best(s, def, &cur, cands, n, best_rates, cur_rates);
            if (!same(s, &best, &cur) && median_of(best_rates, reps) > median_of(cur_rates, reps) &&
                mann_whitney(best_rates, cur_rates, reps) < SIGNIFICANT)
                cur = best, moved = 1, last_moved = j;
        }
    }
out:
    free(best_rates), free(cur_rates), free(cands);
    return cur;
}

/* The samples the search expects, for the min time per sample. */
static double expected_samples(const search *s, size_t total)
{
    double per_round = 0;
    for (size_t j = 0; j < s->nt; j++) per_round += (double)s->k->tunables[j].n_values;
    double rounds = total <= (size_t)s->o->exhaustive_max ? (double)total : 1.5 * per_round + (double)s->nt;
    return rounds * s->o->reps + 2.0 * s->o->final_reps;
}

int ln_tune_search(ln_bench_pool *pool, const ln_tune_options *o, const ln_tune_task *t, ln_tuning_entry *e)
{
    const ln_kernel *k = t->k;
    memset(e, 0, sizeof *e);
    search s = {.pool = pool, .o = o, .t = t, .k = k, .nt = k->n_tunables, .start = ln_tune_now(), .e = e};
    size_t threads = (size_t)t->threads;
    ln_bench_grid g = {.kernels = &k,
                       .nkernels = 1,
                       .D = &t->D,
                       .nD = 1,
                       .sizes = &t->bytes,
                       .nsizes = 1,
                       .sizes_are_bytes = 1,
                       .dists = t->dist,
                       .ndists = 1,
                       .eps = &t->eps,
                       .neps = 1,
                       .threads = &threads,
                       .nthreads = 1,
                       .seed = t->seed};
    size_t nplanned;
    ln_bench_case *planned = ln_bench_plan(&g, &nplanned);
    for (size_t i = 0; i < nplanned; i++)
        if (planned[i].what == LN_BENCH_KERNEL) s.base = planned[i];
    free(planned);

    combo def = {{0}};
    size_t total = 1;
    for (size_t j = 0; j < s.nt; j++) {
        def.v[j] = k->tunables[j].def;
        total = total > 1000000 ? total : total * k->tunables[j].n_values;
    }
    /* Google Benchmark runs a sample once or twice more while it finds the iterations that fill
     * the min time: a sample takes 2-3 times it */
    double mt = t->seconds / (3 * expected_samples(&s, total));
    s.min_time = mt < MIN_TIME_LO ? MIN_TIME_LO : mt > MIN_TIME_HI ? MIN_TIME_HI : mt;
    show(&s, "checking output bits");
    s.default_hash = ln_bench_output_hash(pool, &s.base);

    int reps = o->reps;
    double *best_rates = malloc(reps * sizeof *best_rates), *def_rates = malloc(reps * sizeof *def_rates);
    if (!best_rates || !def_rates) ln_die("out of memory");
    combo best = def;
    int have_def = 0; /* def_rates holds the defaults' rates */
    if (total <= (size_t)o->exhaustive_max) {
        size_t n;
        combo *cands = all_combos(&s, &def, total, &n);
        if ((n = keep_ok(&s, cands, n)) > 0)
            best = round_best(&s, &def, &def, cands, n, best_rates, def_rates), have_def = 1;
        free(cands);
        snprintf(e->search, sizeof e->search, "exhaustive");
    } else {
        best = coordinate(&s, &def);
        snprintf(e->search, sizeof e->search, "coordinate");
    }

    /* The final word: the best against the defaults, alternated, independent of the search's
     * samples (the fastest of many noisy candidates is flattered by its own round). */
    double gbps = NAN, gbps_def = NAN, p = 1;
    if (!same(&s, &best, &def)) {
        int fr = o->final_reps;
        double *rates = malloc(2 * (size_t)fr * sizeof *rates);
        if (!rates) ln_die("out of memory");
        show(&s, "final comparison with the defaults");
        time_round(&s, &best, 1, fr, rates);
        s.timed--; /* the best was timed already */
        gbps_def = median_of(rates, fr), gbps = median_of(rates + fr, fr);
        p = mann_whitney(rates + fr, rates, fr);
        free(rates);
        e->repetitions = fr;
    } else {
        if (!have_def) time_round(&s, NULL, 0, reps, def_rates);
        gbps = gbps_def = median_of(def_rates, reps);
        e->repetitions = reps;
    }
    snprintf(e->kernel, sizeof e->kernel, "%s", k->name);
    e->op = k->op;
    snprintf(e->regime, sizeof e->regime, "%s", ln_bench_regime(t->bytes));
    e->threads = t->threads, e->D = t->D, e->bytes = t->bytes;
    e->nparams = (int)s.nt;
    e->gbps = gbps, e->gbps_default = gbps_def, e->gain = gbps / gbps_def - 1, e->p_value = p;
    e->significant = p < SIGNIFICANT && e->gain > 0;
    for (size_t j = 0; j < s.nt; j++) {
        snprintf(e->name[j], sizeof e->name[j], "%s", k->tunables[j].name);
        e->def[j] = def.v[j], e->best[j] = best.v[j];
        e->value[j] = e->significant ? best.v[j] : def.v[j];
    }
    e->candidates = s.timed, e->refused = s.refused;
    e->seconds = ln_tune_now() - s.start;
    free(best_rates), free(def_rates), free(s.seen);
    return s.refused;
}
