#include "comparison.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "results.h"
#include "stats.h"

double ln_timing_limit(ln_timing_run *r, const char *regime, const char *op)
{
    double best = NAN;
    for (size_t i = 0; i < r->ns; i++) {
        ln_series *s = &r->s[i];
        if (!s->probe || strcmp(s->regime, regime) || (op && strcmp(s->op, op))) continue;
        double v[LN_MAXREP];
        memcpy(v, s->gbps, s->n * sizeof *v);
        double m = ln_median(v, s->n);
        if (!(m <= best)) best = m;
    }
    return isnan(best) && op ? ln_timing_limit(r, regime, NULL) : best;
}

void ln_tally_count(ln_tally *t, const ln_cmp_row *c)
{
    t->slower += !strcmp(c->verdict, "slower"), t->faster += !strcmp(c->verdict, "faster");
    t->inconclusive += !strcmp(c->verdict, "inconclusive"), t->same += !strcmp(c->verdict, "same");
    if (c->ratio > 0 && isfinite(c->ratio)) t->log_sum += log(c->ratio), t->nlog++;
}

const char *ln_tally_verdict(const ln_tally *t)
{
    return t->slower ? "slower" : t->faster ? "faster" : t->inconclusive ? "inconclusive" : "same";
}

int ln_reps_needed(double alpha, size_t m)
{
    int k = 2;
    while (k < 64 && ln_mann_whitney_min_p((size_t)k, (size_t)k) >= alpha / (double)(m ? m : 1)) k++;
    return k;
}

/* The verdict of one benchmark: beyond the threshold and significant after the correction for
 * the number of tests; beyond it but with too few repetitions for any p to be significant:
 * inconclusive (a check that cannot fail says nothing); else same. */
static const char *verdict_of(const ln_cmp_row *c, double threshold, size_t m)
{
    int beyond_down = c->ratio<1 - threshold, beyond_up = c->ratio> 1 + threshold;
    if (c->p_adj < LN_P_SIGNIFICANT && beyond_down) return "slower";
    if (c->p_adj < LN_P_SIGNIFICANT && beyond_up) return "faster";
    if ((beyond_down || beyond_up) && c->min_p * (double)m >= LN_P_SIGNIFICANT) return "inconclusive";
    return "same";
}

void ln_cmp_pair(ln_cmp_row *c, const ln_series *sa, const ln_series *sb, double la, double lb)
{
    double va[LN_MAXREP], vb[LN_MAXREP];
    for (size_t k = 0; k < sa->n; k++) va[k] = sa->gbps[k] / la;
    for (size_t k = 0; k < sb->n; k++) vb[k] = sb->gbps[k] / lb;
    c->a = sa, c->b = sb;
    c->p = ln_mann_whitney_p(va, sa->n, vb, sb->n);
    c->min_p = ln_mann_whitney_min_p(sa->n, sb->n);
    c->ma = ln_median(va, sa->n), c->mb = ln_median(vb, sb->n), c->ratio = c->mb / c->ma;
}

void ln_cmp_judge(ln_cmp_row *rows, size_t n, double threshold)
{
    double *p = calloc(n + 1, sizeof *p), *adj = calloc(n + 1, sizeof *adj);
    if (!p || !adj) ln_die("out of memory");
    for (size_t i = 0; i < n; i++) p[i] = rows[i].p;
    ln_holm(p, n, adj);
    for (size_t i = 0; i < n; i++) rows[i].p_adj = adj[i], rows[i].verdict = verdict_of(&rows[i], threshold, n);
    free(p), free(adj);
}

/* D and thread count from a benchmark name ("k/D:768/rows:341/threads:2"). */
static void name_shape(const char *name, double *D, int *threads)
{
    const char *p = strstr(name, "/D:");
    *D = p ? strtod(p + 3, NULL) : NAN;
    p = strstr(name, "/threads:");
    *threads = p ? atoi(p + 9) : 1;
}

size_t ln_duel_rows(const char *path, const char *ka, const char *kb, ln_duel *out, size_t cap)
{
    ln_timing_run r;
    size_t n = ln_timing_load_one(&r, path) ? ln_duel_rows_of(&r, ka, kb, out, cap) : 0;
    ln_timing_free(&r);
    return n;
}

size_t ln_duel_rows_of(const ln_timing_run *r, const char *ka, const char *kb, ln_duel *out, size_t cap)
{
    size_t n = 0;
    ln_cmp_row *rows = calloc(r->ns + 1, sizeof *rows);
    if (!rows) ln_die("out of memory");
    for (size_t i = 0; i < r->ns; i++) {
        const ln_series *sa = &r->s[i];
        if (strcmp(sa->kernel, ka)) continue;
        double Da;
        int ta;
        name_shape(sa->name, &Da, &ta);
        for (size_t j = 0; j < r->ns; j++) {
            const ln_series *sb = &r->s[j];
            double Db;
            int tb;
            name_shape(sb->name, &Db, &tb);
            if (strcmp(sb->kernel, kb) || Da != Db || ta != tb || strcmp(sa->regime, sb->regime)) continue;
            ln_cmp_pair(&rows[n++], sa, sb, 1, 1);
            break;
        }
    }
    ln_cmp_judge(rows, n, 0);
    size_t k = 0;
    for (; k < n && k < cap; k++) {
        ln_duel *d = &out[k];
        snprintf(d->regime, sizeof d->regime, "%s", rows[k].a->regime);
        name_shape(rows[k].a->name, &d->D, &d->threads);
        d->ma = rows[k].ma, d->mb = rows[k].mb, d->p = rows[k].p, d->p_adj = rows[k].p_adj;
        d->na = rows[k].a->n, d->nb = rows[k].b->n;
        d->tested = rows[k].min_p * (double)n < LN_P_SIGNIFICANT;
    }
    free(rows);
    return k;
}

void ln_cmp_judge_apart(ln_cmp_row *rows, size_t n, double threshold)
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) nk += !rows[i].b->probe;
    ln_cmp_row *kern = malloc((nk + 1) * sizeof *kern), *probes = malloc((n - nk + 1) * sizeof *probes);
    if (!kern || !probes) ln_die("out of memory");
    for (size_t i = 0, q = 0, k = 0; i < n; i++)
        if (rows[i].b->probe) probes[q++] = rows[i];
        else kern[k++] = rows[i];
    ln_cmp_judge(kern, nk, threshold); /* probes are yardsticks: judged apart, never gated */
    ln_cmp_judge(probes, n - nk, threshold);
    for (size_t i = 0, q = 0, k = 0; i < n; i++) rows[i] = rows[i].b->probe ? probes[q++] : kern[k++];
    free(probes), free(kern);
}

size_t ln_cmp_rollup(const ln_cmp_row *rows, size_t n, const char *const *ops, size_t nops, ln_tally *per_k,
                     ln_tally *all, ln_tally *per_op)
{
    size_t nker = 0;
    for (size_t i = 0; i < n; i++) {
        const ln_cmp_row *c = &rows[i];
        if (c->b->probe) continue;
        size_t k = 0;
        while (k < nker && (strcmp(per_k[k].kernel, c->b->kernel) || strcmp(per_k[k].op, c->b->op))) k++;
        if (k == nker) per_k[nker].kernel = c->b->kernel, per_k[nker].op = c->b->op, nker++;
        ln_tally_count(&per_k[k], c), ln_tally_count(all, c);
        for (size_t g = 0; g < nops; g++)
            if (!strcmp(ops[g], c->b->op)) ln_tally_count(&per_op[g], c);
    }
    for (size_t a = 1; a < nker; a++)
        for (size_t b = a; b > 0 && per_k[b - 1].log_sum / per_k[b - 1].nlog > per_k[b].log_sum / per_k[b].nlog; b--) {
            ln_tally t = per_k[b];
            per_k[b] = per_k[b - 1], per_k[b - 1] = t;
        }
    return nker;
}
