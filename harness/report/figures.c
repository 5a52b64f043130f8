#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"
#include "rank.h"
#include "results.h"
#include "rows.h"
#include "views.h"

#define MAX_SERIES 8 /* per panel: more lines than this do not read */
#define MAX_KERNELS 128

typedef struct {
    ln_results *R;
    char *data; /* plots/data */
    FILE *list; /* figures.txt: "name script" per figure */
    char machine[160];
} figs;

static FILE *open_in(figs *F, const char *name, const char *ext)
{
    char *p;
    if (asprintf(&p, "%s/%s.%s", F->data, name, ext) < 0) ln_die("out of memory");
    FILE *f = fopen(p, "w");
    if (!f) ln_die("cannot write %s", p);
    free(p);
    if (!strcmp(ext, "gp")) {
        /* every kernel of the folder, in one order: its place picks its colour and point type,
         * the same in every figure (scripts/common.gp) */
        const char *all[1024];
        size_t n = 0;
        for (size_t i = 0; i < F->R->nsp; i++)
            if (!F->R->sp[i].probe) ln_add_unique(all, &n, 1024, F->R->sp[i].kernel);
        for (size_t i = 0; i < F->R->nac; i++) ln_add_unique(all, &n, 1024, F->R->ac[i].kernel);
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && strcmp(all[j - 1], all[j]) > 0; j--) {
                const char *t = all[j];
                all[j] = all[j - 1], all[j - 1] = t;
            }
        fputs("allk = \"", f);
        for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? " " : "", all[i]);
        fputs("\"\n", f);
    }
    return f;
}

/* The CPU model without its trademarks and clock: "Intel Xeon Platinum 8481C". */
static void short_machine(const char *cpu, char *out, size_t n)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%.159s", *cpu ? cpu : "unknown machine");
    static const char *const drop[] = {"(R)", "(TM)", " CPU", " Processor", NULL};
    for (int i = 0; drop[i]; i++)
        for (char *p; (p = strstr(buf, drop[i]));) memmove(p, p + strlen(drop[i]), strlen(p + strlen(drop[i])) + 1);
    char *at = strstr(buf, " @");
    if (at) *at = 0;
    snprintf(out, n, "%s", buf);
}

/* Log-axis limits around the finite positive values lo..hi: a decade of room below for exact
 * zeros (drawn on the floor, labelled 0) and above for non-finite values (drawn on the top line,
 * labelled inf/NaN). */
static void log_limits(double lo, double hi, double *floor_, double *top)
{
    if (!(lo > 0)) lo = hi > 0 ? hi : 1;
    if (!(hi > 0)) hi = lo;
    *top = pow(10, ceil(log10(hi) + 1e-9) + 1);
    *floor_ = pow(10, floor(log10(lo)) - 1);
    if (*floor_ < *top * 1e-18) *floor_ = *top * 1e-18; /* 18 decades at most: smaller errors sit on the floor */
}

static double on_axis(double v, double nonfinite, double floor_, double top)
{
    if (nonfinite > 0 || isinf(v)) return top;
    if (isnan(v)) return NAN;
    return v <= floor_ ? floor_ : v;
}

static void list_figure(figs *F, const char *name, const char *script) { fprintf(F->list, "%s %s\n", name, script); }

/* A figure's name: KIND-REST for LayerNorm forward (the names figures always had), KIND-OP-REST
 * for the other ops. */
static const char *figure_name(char *buf, size_t n, const char *kind, const char *op, const char *rest)
{
    if (!strcmp(op, "layernorm")) snprintf(buf, n, "%s-%s", kind, rest);
    else snprintf(buf, n, "%s-%s-%s", kind, op, rest);
    return buf;
}

/* ---- throughput ---- */

static int by_median_desc(const void *a, const void *b)
{
    const ln_speed *x = *(ln_speed *const *)a, *y = *(ln_speed *const *)b;
    return (x->median < y->median) - (x->median > y->median);
}

/* The kernels of an op and dtype in a regime, fastest first; returns the count. */
static size_t kernels_of(ln_results *R, const char *op, const char *dt, const char *rg, ln_speed **out)
{
    size_t n = 0;
    for (size_t i = 0; i < R->nsp && n < MAX_KERNELS; i++) {
        ln_speed *s = &R->sp[i];
        if (!s->probe && !strcmp(s->op, op) && !strcmp(s->dtype, dt) && !strcmp(s->regime, rg) && !isnan(s->median))
            out[n++] = s;
    }
    qsort(out, n, sizeof *out, by_median_desc);
    return n;
}

/* The fastest kernel of each algorithm family (a peer is a family of its own), fastest first,
 * at most MAX_SERIES, the peers kept. */
static size_t family_best(ln_speed **all, size_t n, ln_speed **out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        char fa[96], fb[96];
        int seen = 0;
        for (size_t j = 0; j < m && !seen; j++)
            seen = !strcmp(ln_family(all[i]->kernel, fa, sizeof fa), ln_family(out[j]->kernel, fb, sizeof fb));
        if (!seen) out[m++] = all[i];
    }
    if (m > MAX_SERIES) { /* keep the fastest, then make room for the peers at the end */
        size_t k = MAX_SERIES;
        for (size_t i = MAX_SERIES; i < m; i++)
            if (out[i]->peer) {
                while (k > 0 && out[k - 1]->peer) k--;
                if (k == 0) break;
                out[--k] = out[i];
                k = MAX_SERIES;
            }
        m = MAX_SERIES;
    }
    return m;
}

static void d_range(ln_speed **s, size_t n, double *lo, double *hi, double *glo, double *ghi)
{
    *lo = *glo = INFINITY, *hi = *ghi = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s[i]->n; j++) {
            if (s[i]->D[j] < *lo) *lo = s[i]->D[j];
            if (s[i]->D[j] > *hi) *hi = s[i]->D[j];
            double a = isnan(s[i]->gmin[j]) ? s[i]->gbps[j] : s[i]->gmin[j],
                   b = isnan(s[i]->gmax[j]) ? s[i]->gbps[j] : s[i]->gmax[j];
            if (a > 0 && a < *glo) *glo = a;
            if (b > *ghi) *ghi = b;
        }
}

static void write_speed_blocks(FILE *f, ln_speed **s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "# %s\n", s[i]->kernel);
        /* by D, for the line to run left to right */
        size_t order[LN_MAXD];
        for (size_t j = 0; j < s[i]->n; j++) order[j] = j;
        for (size_t a = 1; a < s[i]->n; a++)
            for (size_t b = a; b > 0 && s[i]->D[order[b - 1]] > s[i]->D[order[b]]; b--) {
                size_t t = order[b];
                order[b] = order[b - 1], order[b - 1] = t;
            }
        for (size_t j = 0; j < s[i]->n; j++) {
            size_t k = order[j];
            fprintf(f, "%g %g %g %g\n", s[i]->D[k], s[i]->gbps[k], s[i]->gmin[k], s[i]->gmax[k]);
        }
        fputs("\n\n", f);
    }
}

static void names_var(FILE *v, const char *var, ln_speed **s, size_t n)
{
    fprintf(v, "%s = \"", var);
    for (size_t i = 0; i < n; i++) fprintf(v, "%s%s", i ? " " : "", s[i]->kernel);
    fputs("\"\n", v);
}

static void throughput(figs *F, const char *op, const char *dt, const char *rg)
{
    ln_speed *all[MAX_KERNELS], *best[MAX_KERNELS];
    size_t n = kernels_of(F->R, op, dt, rg, all);
    if (!n) return;
    const char *probe = NULL;
    double size = NAN;
    char sz[32];
    double limit = ln_run_limit(F->R->dir, &F->R->bench, op, rg, F->R->threads, dt, &probe, &size);
    size_t m = family_best(all, n, best);
    for (int detail = 0; detail < 2; detail++) {
        if (detail && n <= m) break; /* the overview already shows every kernel */
        char name[128], rest[96];
        snprintf(rest, sizeof rest, "%s%s-%s", detail ? "all-" : "", rg, dt);
        figure_name(name, sizeof name, "throughput", op, rest);
        FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
        ln_speed **s = detail ? all : best;
        size_t k = detail ? n : m;
        /* the span of what this figure draws decides its axis */
        double dlo, dhi, glo, ghi;
        d_range(s, k, &dlo, &dhi, &glo, &ghi);
        if (!isnan(limit) && limit > ghi) ghi = limit;
        /* linear: on a log axis the top kernels, the ones a reader chooses between, are squashed */
        int logy = 0;
        write_speed_blocks(f, s, k);
        fprintf(v, "title = \"%s, %s, %s-resident, D %g-%g: %s; %s\"\n", ln_op_title(op), dt, rg, dlo, dhi,
                detail ? "every kernel, fastest first" : "the fastest kernel of each algorithm", F->machine);
        names_var(v, "names", s, k);
        fprintf(v, "traffic = \"%s\"\n", ln_backward_op(op) ? "x, dy read + dx written" : "x read + y written");
        double Ds[LN_MAXD];
        size_t nD = 0;
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < s[i]->n; j++) {
                size_t w = 0;
                while (w < nD && Ds[w] != s[i]->D[j]) w++;
                if (w == nD && nD < LN_MAXD) Ds[nD++] = s[i]->D[j];
            }
        fputs("dvals = \"", v);
        for (size_t j = 0; j < nD; j++) fprintf(v, "%s%g", j ? " " : "", Ds[j]);
        fputs("\"\n", v);
        size_t npanels = (k + MAX_SERIES - 1) / MAX_SERIES; /* balanced: 17 kernels are 6 + 6 + 5 */
        fprintf(v, "n = %zu\npanel = %zu\nlogy = %d\nymin = %g\nymax = %g\nxmin = %g\nxmax = %g\n", k,
                (k + npanels - 1) / npanels, logy, logy ? glo / 1.5 : 0, ghi * 1.15, dlo, dhi);
        if (!isnan(limit))
            fprintf(v, "limit = %g\nlimitname = \"machine limit (%s at %s, %.3g GB/s)\"\n", limit, probe,
                    ln_size_label(size, sz, sizeof sz), limit);
        else fputs("limit = 0\nlimitname = \"\"\n", v);
        fclose(f), fclose(v);
        list_figure(F, name, "throughput");
    }
}

/* ---- accuracy: worst error per kernel and distribution, cases whose input stayed ok ---- */

/* The kernels of an op and dtype drawn in the accuracy figures: each family's fastest (in the
 * trade-off regime) when timed, else its first; at most MAX_SERIES. */
static size_t accuracy_series(figs *F, const char *op, const char *dt, const char **out)
{
    const char *rg = ln_tradeoff_regime(F->R);
    size_t m = 0;
    double speed[MAX_KERNELS];
    for (size_t i = 0; i < F->R->nac && m < MAX_KERNELS; i++) {
        ln_accstat *a = &F->R->ac[i];
        if (strcmp(a->op, op) || strcmp(a->dtype, dt)) continue;
        ln_speed *s = rg ? ln_find_speed(F->R, a->kernel, rg) : NULL;
        double g = s ? s->median : 0;
        char fa[96], fb[96];
        size_t j = 0;
        while (j < m && strcmp(ln_family(a->kernel, fa, sizeof fa), ln_family(out[j], fb, sizeof fb))) j++;
        if (j == m) out[m] = a->kernel, speed[m] = g, m++;
        else if (g > speed[j]) out[j] = a->kernel, speed[j] = g;
    }
    return m > MAX_SERIES ? MAX_SERIES : m;
}

/* Worst of column col over the input-ok rows of kernel k on dist d (NAN: no such row);
 * *nonfinite adds the non-finite counts. */
static double worst(const ln_table *t, const char *k, const char *d, ln_column col, double *nonfinite)
{
    int ck = ln_table_column(t, LNC_ACC_kernel), cd = ln_table_column(t, LNC_ACC_dist), cv = ln_table_column(t, col),
        cnf = ln_table_column(t, LNC_ACC_nonfinite), cin = ln_table_column(t, LNC_ACC_input);
    double w = NAN;
    for (size_t r = 0; r < t->rows; r++) {
        if (strcmp(ln_table_cell(t, r, ck), k) || (d && strcmp(ln_table_cell(t, r, cd), d)) || !ln_input_ok(t, r, cin))
            continue;
        double v = ln_table_num(t, r, cv), nf = ln_table_num(t, r, cnf);
        if (nf > 0) *nonfinite += nf;
        if (!isnan(v) && (isnan(w) || v > w)) w = v;
    }
    return w;
}

static void accuracy(figs *F, const char *op, const char *dt)
{
    const ln_table *t = &F->R->acc[LN_ACC_DEFAULT];
    const char *ks[MAX_KERNELS], *dists[32];
    size_t nk = accuracy_series(F, op, dt, ks), nd = 0;
    int cd = ln_table_column(t, LNC_ACC_dist), cdt = ln_table_column(t, LNC_ACC_dtype);
    for (size_t r = 0; r < t->rows; r++)
        if (!strcmp(ln_table_cell(t, r, cdt), dt) && !strcmp(ln_row_op(t, r), op))
            ln_add_unique(dists, &nd, 32, ln_table_cell(t, r, cd));
    if (!nk || !nd) return;
    static const ln_column cols[2] = {LNC_ACC_max_ulp, LNC_ACC_max_norm};
    double val[MAX_SERIES][32][2], lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0}, fl[2], top[2];
    double nf[MAX_SERIES][32];
    for (size_t i = 0; i < nk; i++)
        for (size_t j = 0; j < nd; j++)
            for (int c = 0; c < 2; c++) {
                double count = 0;
                double v = worst(t, ks[i], dists[j], cols[c], &count);
                val[i][j][c] = v, nf[i][j] = count;
                if (v > 0 && isfinite(v) && count == 0) lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
            }
    for (int c = 0; c < 2; c++) log_limits(lo[c], hi[c], &fl[c], &top[c]);
    char name[64];
    figure_name(name, sizeof name, "accuracy", op, dt);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    for (size_t i = 0; i < nk; i++) {
        fprintf(f, "# %s: x max_ulp max_norm (exact on the floor, non-finite on the top line)\n", ks[i]);
        for (size_t j = 0; j < nd; j++) {
            double x = (double)j + 1 + ((double)i - (double)(nk - 1) / 2) * 0.7 / (double)nk;
            fprintf(f, "%g %g %g\n", x, on_axis(val[i][j][0], nf[i][j], fl[0], top[0]),
                    on_axis(val[i][j][1], nf[i][j], fl[1], top[1]));
        }
        fputs("\n\n", f);
    }
    fprintf(
        v,
        "title = \"%s: accuracy%s by input distribution, %s (worst over D and eps; each algorithm's fastest kernel); "
        "%s\"\n",
        ln_op_title(op), ln_backward_op(op) ? " of dx" : "", dt, F->machine);
    fprintf(v, "names = \"");
    for (size_t i = 0; i < nk; i++) fprintf(v, "%s%s", i ? " " : "", ks[i]);
    fprintf(v, "\"\ndists = \"");
    for (size_t j = 0; j < nd; j++) fprintf(v, "%s%s", j ? " " : "", dists[j]);
    fprintf(v, "\"\nn = %zu\nfloor_ulp = %g\ntop_ulp = %g\nfloor_norm = %g\ntop_norm = %g\n", nk, fl[0], top[0], fl[1],
            top[1]);
    fclose(f), fclose(v);
    list_figure(F, name, "accuracy");
}

/* ---- conditioning: max_norm against the offset M of offset:M rows ---- */
static void conditioning(figs *F, const char *dt)
{
    const ln_table *t = &F->R->acc[LN_ACC_CONDITIONING];
    if (!F->R->have_acc[LN_ACC_CONDITIONING]) return;
    const char *ks[MAX_KERNELS], *dists[32];
    size_t nk = accuracy_series(F, "layernorm", dt, ks), nd = 0; /* make sweeps runs LayerNorm forward */
    int cd = ln_table_column(t, LNC_ACC_dist), cdt = ln_table_column(t, LNC_ACC_dtype);
    for (size_t r = 0; r < t->rows; r++)
        if (!strcmp(ln_table_cell(t, r, cdt), dt) && !strncmp(ln_table_cell(t, r, cd), "offset:", 7))
            ln_add_unique(dists, &nd, 32, ln_table_cell(t, r, cd));
    if (nd < 3 || !nk) return;
    double lo = INFINITY, hi = 0, fl, top, mlo = INFINITY, mhi = 0;
    double val[MAX_SERIES][32], nf[MAX_SERIES][32];
    int drawn = 0;
    for (size_t i = 0; i < nk; i++)
        for (size_t j = 0; j < nd; j++) {
            nf[i][j] = 0;
            val[i][j] = worst(t, ks[i], dists[j], LNC_ACC_max_norm, &nf[i][j]);
            if (!isnan(val[i][j]) || nf[i][j] > 0) drawn = 1;
            if (val[i][j] > 0 && isfinite(val[i][j]) && nf[i][j] == 0)
                lo = fmin(lo, val[i][j]), hi = fmax(hi, val[i][j]);
            double M = strtod(dists[j] + 7, NULL);
            mlo = fmin(mlo, M), mhi = fmax(mhi, M);
        }
    if (!drawn) return;
    log_limits(lo, hi, &fl, &top);
    char name[64];
    snprintf(name, sizeof name, "conditioning-%s", dt);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    for (size_t i = 0; i < nk; i++) {
        fprintf(f, "# %s: M max_norm\n", ks[i]);
        for (size_t j = 0; j < nd; j++)
            fprintf(f, "%g %g\n", strtod(dists[j] + 7, NULL), on_axis(val[i][j], nf[i][j], fl, top));
        fputs("\n\n", f);
    }
    fprintf(v, "title = \"LayerNorm: error against the offset M of the rows (normal(M, 1)), %s; %s\"\n", dt,
            F->machine);
    fprintf(v, "names = \"");
    for (size_t i = 0; i < nk; i++) fprintf(v, "%s%s", i ? " " : "", ks[i]);
    fprintf(v, "\"\nn = %zu\nfloor = %g\ntop = %g\nmmin = %g\nmmax = %g\n", nk, fl, top, mlo, mhi);
    /* where the drawn rows degenerate when stored in the dtype (bf16 keeps 8 bits: N(1e3, 1)
     * is nearly constant), the curves stop: the figure says so */
    int cin = ln_table_column(t, LNC_ACC_input);
    double degen = 0;
    const char *what = "";
    for (size_t r = 0; cin >= 0 && r < t->rows; r++) {
        const char *d = ln_table_cell(t, r, cd);
        if (strcmp(ln_table_cell(t, r, cdt), dt) || strncmp(d, "offset:", 7) || ln_input_ok(t, r, cin)) continue;
        double M = strtod(d + 7, NULL);
        if (!degen || M < degen) degen = M, what = ln_table_cell(t, r, cin);
    }
    fprintf(v,
            "degen = %g\ndegenwhat = \"from M = %g the rows stored in %s degenerate (input: %s): no kernel is judged "
            "there\"\n",
            degen, degen, dt, what);
    fclose(f), fclose(v);
    list_figure(F, name, "conditioning");
}

/* ---- eps: error and non-finite outputs against eps on const, zero, tiny rows ---- */
static void eps(figs *F, const char *dt)
{
    const ln_table *t = &F->R->acc[LN_ACC_EPS];
    if (!F->R->have_acc[LN_ACC_EPS]) return;
    int ck = ln_table_column(t, LNC_ACC_kernel), cd = ln_table_column(t, LNC_ACC_dist),
        cdt = ln_table_column(t, LNC_ACC_dtype), ce = ln_table_column(t, LNC_ACC_eps),
        cu = ln_table_column(t, LNC_ACC_max_ulp), cnf = ln_table_column(t, LNC_ACC_nonfinite),
        cin = ln_table_column(t, LNC_ACC_input);
    /* panels: the distributions where some kernel is not exact; series: the kernels that are
     * not exact somewhere, worst first */
    const char *dists[8], *ks[MAX_KERNELS];
    double kworst[MAX_KERNELS];
    size_t nd = 0, nk = 0, nall = 0;
    const char *everyk[MAX_KERNELS];
    double lo = INFINITY, hi = 0, emin = INFINITY, emax = 0, nfmax = 0;
    for (size_t r = 0; r < t->rows; r++) {
        if (strcmp(ln_table_cell(t, r, cdt), dt) || !ln_input_ok(t, r, cin) || strcmp(ln_row_op(t, r), "layernorm"))
            continue;
        const char *k = ln_table_cell(t, r, ck);
        ln_add_unique(everyk, &nall, MAX_KERNELS, k);
        double u = ln_table_num(t, r, cu), nf = ln_table_num(t, r, cnf), e = ln_table_num(t, r, ce);
        emin = fmin(emin, e), emax = fmax(emax, e), nfmax = fmax(nfmax, nf);
        if (!(u > 0) && !(nf > 0) && !isnan(u)) continue;
        ln_add_unique(dists, &nd, 8, ln_table_cell(t, r, cd));
        size_t j = 0;
        while (j < nk && strcmp(ks[j], k)) j++;
        if (j == nk) ks[nk] = k, kworst[nk++] = 0;
        double badness = nf > 0 || !isfinite(u) ? INFINITY : u;
        if (badness > kworst[j]) kworst[j] = badness;
        if (u > 0 && isfinite(u) && !(nf > 0)) lo = fmin(lo, u), hi = fmax(hi, u);
    }
    if (!nd) return;
    for (size_t a = 1; a < nk; a++)
        for (size_t b = a; b > 0 && kworst[b - 1] < kworst[b]; b--) {
            const char *tk = ks[b];
            ks[b] = ks[b - 1], ks[b - 1] = tk;
            double tw = kworst[b];
            kworst[b] = kworst[b - 1], kworst[b - 1] = tw;
        }
    size_t shown = nk > MAX_SERIES ? MAX_SERIES : nk;
    double fl, top;
    log_limits(lo, hi, &fl, &top);
    char name[64];
    snprintf(name, sizeof name, "eps-%s", dt);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    /* block p * shown + i: distribution p, kernel i; "eps max_ulp nonfinite" */
    for (size_t p = 0; p < nd; p++)
        for (size_t i = 0; i < shown; i++) {
            fprintf(f, "# %s on %s rows\n", ks[i], dists[p]);
            int any = 0;
            for (size_t r = 0; r < t->rows; r++) {
                if (strcmp(ln_table_cell(t, r, ck), ks[i]) || strcmp(ln_table_cell(t, r, cd), dists[p]) ||
                    !ln_input_ok(t, r, cin))
                    continue;
                double nf = ln_table_num(t, r, cnf);
                fprintf(f, "%g %g %g\n", ln_table_num(t, r, ce), on_axis(ln_table_num(t, r, cu), nf, fl, top), nf);
                any = 1;
            }
            if (!any) fputs("nan nan nan\n", f);
            fputs("\n\n", f);
        }
    fprintf(v, "title = \"LayerNorm: error and non-finite outputs against eps on degenerate rows, %s; %s\"\n", dt,
            F->machine);
    fprintf(v, "names = \"");
    for (size_t i = 0; i < shown; i++) fprintf(v, "%s%s", i ? " " : "", ks[i]);
    fprintf(v, "\"\ndists = \"");
    for (size_t p = 0; p < nd; p++) fprintf(v, "%s%s", p ? " " : "", dists[p]);
    /* the kernels left out: exact everywhere (or past MAX_SERIES) */
    size_t exact = nall - nk;
    fprintf(v, "\"\nn = %zu\nfloor = %g\ntop = %g\nemin = %g\nemax = %g\nnfmax = %g\n", shown, fl, top, emin, emax,
            nfmax);
    fprintf(v, "note = \"%s%s%s\"\n", exact ? "kernels exact at every eps are not drawn" : "",
            exact && nk > shown ? "; " : "", nk > shown ? "the 8 worst kernels drawn" : "");
    fclose(f), fclose(v);
    list_figure(F, name, "eps");
}

/* ---- pareto: speed against worst max_norm; labels at their markers ---- */
static void pareto(figs *F, const char *op, const char *dt)
{
    const char *rg = ln_tradeoff_regime(F->R);
    if (!rg) return;
    ln_accstat *pts[MAX_KERNELS];
    double g[MAX_KERNELS];
    size_t n = 0;
    char broken[1024] = "";
    size_t blen = 0;
    for (size_t i = 0; i < F->R->nac && n < MAX_KERNELS; i++) {
        ln_accstat *a = &F->R->ac[i];
        ln_speed *s = ln_find_speed(F->R, a->kernel, rg);
        if (strcmp(a->op, op) || strcmp(a->dtype, dt) || !s || isnan(s->median)) continue;
        if (isinf(ln_accuracy_rank(a))) {
            if (blen < sizeof broken)
                blen += snprintf(broken + blen, sizeof broken - blen, "%s%s", blen ? ", " : "", a->kernel);
            continue;
        }
        pts[n] = a, g[n++] = s->median;
    }
    if (!n) return;
    double lo = INFINITY, hi = 0, gmax = 0, fl, top;
    for (size_t i = 0; i < n; i++)
        lo = fmin(lo, pts[i]->worst_norm > 0 ? pts[i]->worst_norm : INFINITY), hi = fmax(hi, pts[i]->worst_norm),
        gmax = fmax(gmax, g[i]);
    log_limits(lo, hi, &fl, &top);
    char name[64];
    figure_name(name, sizeof name, "pareto", op, dt);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    /* numbered fastest first: a number beside each marker, the names in a list beside the plot
     * (names beside the markers overlap where kernels are close) */
    size_t by_speed[MAX_KERNELS];
    for (size_t i = 0; i < n; i++) by_speed[i] = i;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && g[by_speed[b - 1]] < g[by_speed[b]]; b--) {
            size_t tt = by_speed[b];
            by_speed[b] = by_speed[b - 1], by_speed[b - 1] = tt;
        }
    fputs("# kernels: gbps max_norm number name\n", f);
    for (size_t i = 0; i < n; i++) {
        size_t k = by_speed[i];
        fprintf(f, "%g %g %zu %s\n", g[k], on_axis(pts[k]->worst_norm, 0, fl, top), i + 1, pts[k]->kernel);
    }
    fputs("\n\n# front, fastest first\n", f);
    int on[MAX_KERNELS] = {0};
    for (size_t i = 0; i < n; i++) {
        on[i] = 1;
        for (size_t j = 0; j < n && on[i]; j++)
            if (j != i && g[j] >= g[i] && pts[j]->worst_norm <= pts[i]->worst_norm &&
                (g[j] > g[i] || pts[j]->worst_norm < pts[i]->worst_norm))
                on[i] = 0;
    }
    size_t order[MAX_KERNELS], m = 0;
    for (size_t i = 0; i < n; i++)
        if (on[i]) order[m++] = i;
    for (size_t a = 1; a < m; a++)
        for (size_t b = a; b > 0 && g[order[b - 1]] < g[order[b]]; b--) {
            size_t tt = order[b];
            order[b] = order[b - 1], order[b - 1] = tt;
        }
    for (size_t i = 0; i < m; i++) fprintf(f, "%g %g\n", g[order[i]], on_axis(pts[order[i]]->worst_norm, 0, fl, top));
    fprintf(v, "title = \"%s: speed against accuracy, %s: %s-resident GB/s, worst max_norm%s over accuracy.csv; %s\"\n",
            ln_op_title(op), dt, rg, ln_backward_op(op) ? " of dx" : "", F->machine);
    fprintf(v, "regime = \"%s\"\nfloor = %g\ntop = %g\nxmax = %g\n", rg, fl, top, gmax * 1.25);
    fprintf(v, "broken = \"%s%s\"\nlegend = \"", blen ? "non-finite outputs, not drawn: " : "", broken);
    for (size_t i = 0; i < n; i++) {
        size_t k = by_speed[i];
        fprintf(v, "%s%2zu  %s%s", i ? "\\n" : "", i + 1, pts[k]->kernel, on[k] ? "  (front)" : "");
    }
    fputs("\"\n", v);
    fclose(f), fclose(v);
    list_figure(F, name, "pareto");
}

/* ---- history: one kernel's median GB/s per regime across the runs kept on this machine ---- */
static void history(figs *F, const char *kernel)
{
    ln_results *R = F->R;
    if (!kernel) { /* default: the fastest own LayerNorm kernel, f32 or the widest dtype timed, trade-off regime */
        const char *rg = ln_tradeoff_regime(R);
        for (size_t i = 0; i < R->ndtypes && !kernel && rg; i++) {
            ln_speed *s = ln_fastest_op(R, "layernorm", R->dtypes[i], rg, 1);
            if (s && !strcmp(R->dtypes[i], "f32")) kernel = s->kernel;
        }
        for (size_t i = 0; i < R->ndtypes && !kernel && rg; i++) {
            ln_speed *s = ln_fastest_op(R, "layernorm", R->dtypes[i], rg, 1);
            if (s) kernel = s->kernel;
        }
    }
    if (!kernel) return;
    char *hist;
    if (asprintf(&hist, "%s/history/%s", R->dir, R->machine_id) < 0) ln_die("out of memory");
    struct dirent **runs = NULL;
    int n = scandir(hist, &runs, NULL, alphasort); /* <date>-<commit>: by date */
    const char *regimes[] = {"cache", "memory"};
    double g[2][256];
    char labels[256][48];
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (runs[i]->d_name[0] != '.' && m < 256) {
            char *d;
            if (asprintf(&d, "%s/%s", hist, runs[i]->d_name) < 0) ln_die("out of memory");
            ln_results H;
            if (ln_results_load(&H, d)) {
                int any = 0;
                for (int r = 0; r < 2; r++) {
                    ln_speed *s = ln_find_speed(&H, kernel, regimes[r]);
                    g[r][m] = s ? s->median : NAN;
                    any |= s != NULL;
                }
                /* label: the commit and the day, "4d75e60 12-02" */
                const char *name = runs[i]->d_name, *commit = strrchr(name, '-');
                snprintf(labels[m], sizeof labels[m], "%.40s %.5s", commit ? commit + 1 : name, name + 5);
                m += any;
                ln_results_free(&H);
            }
            free(d);
        }
        free(runs[i]);
    }
    free(runs);
    free(hist);
    if (m < 2) return; /* a history of one run is no history */
    char name[160];
    snprintf(name, sizeof name, "history-%s", kernel);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    double hi = 0;
    for (int r = 0; r < 2; r++) {
        fprintf(f, "# %s, %s-resident: run index, median GB/s over D\n", kernel, regimes[r]);
        for (int i = 0; i < m; i++) fprintf(f, "%d %g\n", i, g[r][i]), hi = fmax(hi, isnan(g[r][i]) ? 0 : g[r][i]);
        fputs("\n\n", f);
    }
    fprintf(v, "title = \"%s across the commits run on this machine (%s)\"\nn = %d\nymax = %g\nlabels = \"", kernel,
            F->machine, m, hi * 1.2);
    for (int i = 0; i < m; i++) fprintf(v, "%s%s", i ? "|" : "", labels[i]);
    fputs("\"\n", v);
    fclose(f), fclose(v);
    list_figure(F, name, "history");
}

/* ---- scaling: GB/s against the thread count, one line per kernel of LayerNorm timed at several
 * counts (its best of each algorithm, f32 first), the limit at each count dashed ---- */
static void scaling(figs *F, const char *rg)
{
    ln_scaling *all = malloc((F->R->bench.rows + 1) * sizeof *all);
    if (!all) ln_die("out of memory");
    size_t n = ln_scaling_rows(&F->R->bench, all, F->R->bench.rows), k = 0;
    ln_scaling *s[MAX_SERIES];
    /* LayerNorm's f32 kernels of this regime, fastest at one thread first, one per algorithm */
    for (size_t i = 0; i < n; i++) {
        ln_scaling *a = &all[i];
        ln_speed *sp = ln_find_speed(F->R, a->kernel, rg);
        if (strcmp(a->regime, rg) || strcmp(a->op, "layernorm") || !sp || strcmp(sp->dtype, "f32")) continue;
        char fa[96], fb[96];
        size_t j = 0;
        while (j < k && strcmp(ln_family(a->kernel, fa, sizeof fa), ln_family(s[j]->kernel, fb, sizeof fb))) j++;
        if (j < k) {
            if (a->gbps[0] > s[j]->gbps[0]) s[j] = a;
        } else if (k < MAX_SERIES) s[k++] = a;
    }
    if (!k) return free(all);
    char name[64];
    snprintf(name, sizeof name, "scaling-%s-f32", rg);
    FILE *f = open_in(F, name, "dat"), *v = open_in(F, name, "gp");
    double top = 0, tmax = 1;
    for (size_t i = 0; i < k; i++) {
        fprintf(f, "# %s: threads GB/s\n", s[i]->kernel);
        for (size_t j = 0; j < s[i]->n; j++) {
            fprintf(f, "%d %g\n", s[i]->threads[j], s[i]->gbps[j]);
            top = fmax(top, s[i]->gbps[j]), tmax = fmax(tmax, s[i]->threads[j]);
        }
        fputs("\n\n", f);
    }
    fputs("# limit: threads GB/s\n", f);
    for (size_t j = 0; j < s[0]->n; j++) {
        double g = ln_run_limit(F->R->dir, &F->R->bench, "layernorm", rg, s[0]->threads[j], "f32", NULL, NULL);
        if (!isnan(g)) fprintf(f, "%d %g\n", s[0]->threads[j], g), top = fmax(top, g);
    }
    fputs("\n\n", f);
    fprintf(v, "title = \"LayerNorm f32, %s: GB/s against threads; %s\"\n", rg, F->machine);
    fputs("names = \"", v);
    for (size_t i = 0; i < k; i++) fprintf(v, "%s%s", i ? " " : "", s[i]->kernel);
    fprintf(v, "\"\nn = %zu\nymax = %g\ntmax = %g\n", k, top * 1.15, tmax);
    fclose(f), fclose(v);
    list_figure(F, name, "scaling");
    free(all);
}

int ln_figures_write(const char *dir, const char *history_kernel)
{
    ln_results R;
    if (!ln_results_load(&R, dir)) {
        fprintf(stderr, "lnbench: report: no results in %s/ (bench.csv, accuracy.csv...): run 'make bench' first\n",
                dir);
        return LN_EXIT_USAGE;
    }
    figs F = {.R = &R};
    char *plots = ln_path_in(dir, "plots");
    F.data = ln_path_in(plots, "data");
    mkdir(plots, 0777);
    mkdir(F.data, 0777);
    short_machine(R.cpu, F.machine, sizeof F.machine);
    char *lp = ln_path_in(F.data, "figures.txt");
    F.list = fopen(lp, "w");
    if (!F.list) ln_die("cannot write %s", lp);
    const char *ops[LN_MAX_OPS];
    size_t nops = 0;
    ln_collect_ops(&R.bench, ops, &nops);
    ln_collect_ops(&R.acc[LN_ACC_DEFAULT], ops, &nops);
    for (size_t o = 0; o < nops; o++)
        for (size_t i = 0; i < R.ndtypes; i++) {
            for (size_t j = 0; j < R.nregimes; j++) throughput(&F, ops[o], R.dtypes[i], R.regimes[j]);
            if (R.have_acc[LN_ACC_DEFAULT]) accuracy(&F, ops[o], R.dtypes[i]);
            if (!strcmp(ops[o], "layernorm")) conditioning(&F, R.dtypes[i]), eps(&F, R.dtypes[i]);
            if (R.have_bench && R.have_acc[LN_ACC_DEFAULT]) pareto(&F, ops[o], R.dtypes[i]);
        }
    for (size_t j = 0; j < R.nregimes; j++) scaling(&F, R.regimes[j]);
    history(&F, history_kernel);
    fclose(F.list);
    free(lp), free(plots), free(F.data);
    ln_results_free(&R);
    return 0;
}
