#include "rank.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rows.h"
#include "views.h"

double ln_regime_limit(const ln_table *bench, const char *regime, const char *dtype, const char **probe)
{
    int threads = 1;
    ln_table_threads(bench, &threads, 1);
    return ln_limit_at(bench, regime, threads, dtype, probe);
}

double ln_accuracy_rank(const ln_accstat *a)
{
    return a->nonfinite > 0 ? INFINITY : isnan(a->worst_norm) ? INFINITY : a->worst_norm;
}

ln_speed *ln_fastest(ln_results *R, const char *dtype, const char *regime, int own)
{
    return ln_fastest_op(R, NULL, dtype, regime, own);
}

ln_speed *ln_fastest_op(ln_results *R, const char *op, const char *dtype, const char *regime, int own)
{
    ln_speed *best = NULL;
    for (size_t i = 0; i < R->nsp; i++) {
        ln_speed *s = &R->sp[i];
        if (s->probe || (own && s->peer) || strcmp(s->dtype, dtype) || strcmp(s->regime, regime) || isnan(s->median) ||
            (op && strcmp(s->op, op)))
            continue;
        if (!best || s->median > best->median) best = s;
    }
    return best;
}

const char *ln_family(const char *kernel, char *buf, size_t n)
{
    const char *first = strchr(kernel, '-'), *last = strrchr(kernel, '-');
    if (ln_is_peer(kernel) || !first || first == last) snprintf(buf, n, "%s", kernel);
    else snprintf(buf, n, "%.*s", (int)(last - first - 1), first + 1);
    return buf;
}

const char *ln_tradeoff_regime(const ln_results *R)
{
    for (size_t j = 0; j < R->nregimes; j++)
        if (!strcmp(R->regimes[j], "memory")) return "memory";
    return R->nregimes ? R->regimes[0] : NULL;
}

double ln_worst_cr(ln_results *R, const char *kernel)
{
    const ln_table *t = &R->acc[LN_ACC_DEFAULT];
    int ck = ln_table_column(t, LNC_ACC_kernel), cc = ln_table_column(t, LNC_ACC_cr_frac),
        cin = ln_table_column(t, LNC_ACC_input);
    double w = NAN;
    for (size_t r = 0; cc >= 0 && r < t->rows; r++) {
        double v = ln_table_num(t, r, cc);
        if (!strcmp(ln_table_cell(t, r, ck), kernel) && ln_input_ok(t, r, cin) && !isnan(v) && !(v >= w)) w = v;
    }
    return w;
}

int ln_acc_order(ln_results *R, const ln_accstat *a, const ln_accstat *b)
{
    int ia = isinf(ln_accuracy_rank(a)), ib = isinf(ln_accuracy_rank(b));
    if (ia != ib) return ia - ib;
    const double keys[3][2] = {{a->worst_ulp, b->worst_ulp},
                               {a->worst_norm, b->worst_norm},
                               {-ln_worst_cr(R, a->kernel), -ln_worst_cr(R, b->kernel)}};
    for (int k = 0; k < 3; k++) {
        double x = keys[k][0], y = keys[k][1];
        if (isnan(x) || isnan(y)) {
            if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
            continue;
        }
        if (fabs(x - y) > 1e-9 * fmax(fabs(x), fabs(y))) return x < y ? -1 : 1;
    }
    return 0;
}

size_t ln_most_accurate_set(ln_results *R, const char *op, const char *dtype, ln_accstat **out, size_t cap)
{
    ln_accstat *best = NULL;
    for (size_t k = 0; k < R->nac; k++) {
        ln_accstat *a = &R->ac[k];
        if (strcmp(a->op, op) || strcmp(a->dtype, dtype) || isinf(ln_accuracy_rank(a))) continue;
        if (!best || ln_acc_order(R, a, best) < 0) best = a;
    }
    size_t n = 0;
    for (size_t k = 0; best && k < R->nac && n < cap; k++) {
        ln_accstat *a = &R->ac[k];
        if (!strcmp(a->op, op) && !strcmp(a->dtype, dtype) && !isinf(ln_accuracy_rank(a)) && !ln_acc_order(R, a, best))
            out[n++] = a;
    }
    return n;
}

const char *ln_tie_names(ln_accstat **set, size_t k, char *buf, size_t n)
{
    if (k == 1) return snprintf(buf, n, "%s", set[0]->kernel), buf;
    const char *dash = strrchr(set[0]->kernel, '-');
    size_t stem = dash ? (size_t)(dash - set[0]->kernel) + 1 : 0;
    int same = stem > 0;
    for (size_t i = 1; i < k && same; i++)
        same = !strncmp(set[i]->kernel, set[0]->kernel, stem) && !strchr(set[i]->kernel + stem, '-');
    size_t len = (size_t)snprintf(buf, n, "%.*s%s", same ? (int)stem : 0, set[0]->kernel, same ? "{" : "");
    for (size_t i = 0; i < k && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? (same ? "," : ", ") : "",
                                set[i]->kernel + (same ? stem : 0));
    if (same && len < n) snprintf(buf + len, n - len, "}");
    return buf;
}

ln_speed *ln_fastest_of(ln_results *R, ln_accstat **set, size_t k, const char *regime)
{
    ln_speed *best = NULL;
    for (size_t i = 0; i < k && regime; i++) {
        ln_speed *s = ln_find_speed(R, set[i]->kernel, regime);
        if (s && !isnan(s->median) && (!best || s->median > best->median)) best = s;
    }
    return best;
}

int ln_pick_accurate(ln_results *R, const char *op, const char *dtype, const char *regime, ln_acc_pick *p)
{
    ln_accstat *set[64];
    size_t n = ln_most_accurate_set(R, op, dtype, set, 64);
    memset(p, 0, sizeof *p);
    if (!n) return 0;
    p->first = set[0];
    ln_tie_names(set, n, p->names, sizeof p->names);
    if (n > 1) strncat(p->names, " (tie)", sizeof p->names - strlen(p->names) - 1);
    p->speed = ln_fastest_of(R, set, n, regime);
    return 1;
}

size_t ln_timed_Ds(ln_results *R, const char *op, const char *dt, const char *rg, double *Ds)
{
    size_t nD = 0;
    for (size_t k = 0; k < R->nsp; k++) {
        ln_speed *s = &R->sp[k];
        if (s->probe || strcmp(s->op, op) || strcmp(s->dtype, dt) || strcmp(s->regime, rg)) continue;
        for (size_t q = 0; q < s->n; q++) {
            size_t w = 0;
            while (w < nD && Ds[w] != s->D[q]) w++;
            if (w == nD && nD < LN_MAXD) Ds[nD++] = s->D[q];
        }
    }
    for (size_t a = 1; a < nD; a++)
        for (size_t b = a; b > 0 && Ds[b - 1] > Ds[b]; b--) {
            double t = Ds[b];
            Ds[b] = Ds[b - 1], Ds[b - 1] = t;
        }
    return nD;
}
