#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "compare.h"
#include "comparison.h"
#include "doc.h"
#include "kernel.h"
#include "outfile.h"
#include "rank.h"
#include "results.h"
#include "rows.h"
#include "run_notes.h"
#include "tuning_notes.h"
#include "views.h"

/* ---- formatting: every number through one of these ---- */
static const char *num(char *buf, double v)
{
    if (isnan(v)) return "-";
    snprintf(buf, 32, "%.3g", v);
    return buf;
}

/* A kernel's error: never a finite number when it returned non-finite outputs. */
static const char *err(char *buf, double v, double nonfinite)
{
    if (nonfinite > 0) snprintf(buf, 48, "non-finite (%.0f)", nonfinite);
    else num(buf, v);
    return buf;
}

static int above_limit_notes;

/* A rate against the machine limit: a percentage, or a ratio when above the probes. */
static const char *of_limit(char *buf, size_t n, double g, double limit)
{
    if (isnan(limit) || isnan(g)) snprintf(buf, n, "-");
    else if (g > limit) snprintf(buf, n, "%.2f (above the probes)", g / limit), above_limit_notes++;
    else snprintf(buf, n, "%.0f%%", 100 * g / limit);
    return buf;
}

static double limit_of(ln_results *R, const char *op, const char *regime, const char *dtype, const char **probe,
                       double *bytes);

/* ---- sections ---- */
static void machine_line(ln_results *R, ln_doc *d)
{
    static const char *const files[] = {"bench.csv.meta.json", "accuracy.csv.meta.json", NULL};
    char model[256], isa[256], cores[32], compiler[128], cflags[256], commit[64], date[64], onednn[64];
    for (int i = 0; files[i]; i++) {
        char *p = ln_path_in(R->dir, files[i]);
        ln_meta_value(p, "cpu_model", model, sizeof model);
        ln_meta_value(p, "isa_features", isa, sizeof isa);
        ln_meta_value(p, "cores", cores, sizeof cores);
        ln_meta_value(p, "compiler", compiler, sizeof compiler);
        ln_meta_value(p, "cflags", cflags, sizeof cflags);
        ln_meta_value(p, "git_commit", commit, sizeof commit);
        ln_meta_value(p, "date", date, sizeof date);
        ln_meta_value(p, "onednn", onednn, sizeof onednn);
        free(p);
        if (*model) break;
    }
    if (!*model) {
        ln_doc_para(d, "Machine: unknown (no .meta.json beside the result files).");
        return;
    }
    ln_doc_para(d, "Machine: %s, %s, %s cores; %s (%s), oneDNN %s; commit %s, %s.", model, isa, cores, compiler, cflags,
                *onednn ? onednn : "-", commit, date);
}

/* Appends word to a ", "-separated list in buf (of n bytes) unless it is there already. */
static void add_word(char *buf, size_t n, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = buf; (p = strstr(p, word)); p += len)
        if ((p == buf || p[-1] == ' ') && (p[len] == ',' || !p[len])) return;
    if (strlen(buf) + len + 3 < n) {
        if (*buf) strcat(buf, ", ");
        strcat(buf, word);
    }
}

static void verdict_section(ln_results *R, ln_doc *d)
{
    ln_doc_heading(d, 2, "Verdicts");
    if (!R->have_verdicts) {
        ln_doc_para(d,
                    "These accuracy files have no verdict columns (bound, verdict, domain, input): no kernel's error "
                    "bound was checked, and degenerate inputs cannot be told apart.");
        return;
    }
    int total[4] = {0}, degenerate = 0;
    for (size_t i = 0; i < R->nac; i++) {
        for (int v = 0; v < 4; v++) total[v] += R->ac[i].verdict[v];
        degenerate += R->ac[i].degenerate;
    }
    ln_doc_para(
        d,
        "%d fail, %d pass, %d outside the conditions of the kernel's bound, %d without a bound; %d kernel-cases "
        "on inputs that degenerated in their dtype, held against no kernel. Each case's max_norm is judged "
        "against the bound its kernel claims.",
        total[1], total[0], total[2], total[3], degenerate);
    /* every failure first: those are the findings */
    int nfail = 0;
    for (int f = 0; f < LN_ACC_FILES; f++) {
        ln_table *t = &R->acc[f];
        int ck = ln_table_column(t, LNC_ACC_kernel), cv = ln_table_column(t, LNC_ACC_verdict),
            cin = ln_table_column(t, LNC_ACC_input), cd = ln_table_column(t, LNC_ACC_dist),
            cD = ln_table_column(t, LNC_ACC_D), ce = ln_table_column(t, LNC_ACC_eps),
            cn = ln_table_column(t, LNC_ACC_max_norm), cb = ln_table_column(t, LNC_ACC_bound),
            cdom = ln_table_column(t, LNC_ACC_domain), cnf = ln_table_column(t, LNC_ACC_nonfinite);
        for (size_t r = 0; r < t->rows; r++) {
            if (strcmp(ln_table_cell(t, r, cv), "fail") || !ln_input_ok(t, r, cin)) continue;
            if (!nfail++) ln_doc_para(d, "Failures (error above the kernel's own bound):");
            char b1[48], b2[32];
            const char *dom = ln_table_cell(t, r, cdom);
            ln_doc_item(d, "%s on %s, D = %s, eps = %g (%s): max_norm %s u > bound %s u%s%s", ln_table_cell(t, r, ck),
                        ln_table_cell(t, r, cd), ln_table_cell(t, r, cD), ln_table_num(t, r, ce), R->acc_name[f],
                        err(b1, ln_table_num(t, r, cn), ln_table_num(t, r, cnf)), num(b2, ln_table_num(t, r, cb)),
                        *dom && strcmp(dom, "ok") ? ", domain: " : "", *dom && strcmp(dom, "ok") ? dom : "");
        }
    }
    if (!nfail) ln_doc_para(d, "No failure: every kernel stayed within the bound it claims wherever it claims one.");
    /* degenerate inputs, one line per dtype, distribution and what happened */
    typedef struct {
        const char *op, *dtype, *dist, *input;
        char Ds[128], eps[128], files[96];
        int kernels;
    } group;
    group g[64];
    size_t ng = 0;
    for (int f = 0; f < LN_ACC_FILES; f++) {
        ln_table *t = &R->acc[f];
        int cin = ln_table_column(t, LNC_ACC_input), cdt = ln_table_column(t, LNC_ACC_dtype),
            cd = ln_table_column(t, LNC_ACC_dist), cD = ln_table_column(t, LNC_ACC_D),
            ce = ln_table_column(t, LNC_ACC_eps);
        for (size_t r = 0; r < t->rows; r++) {
            if (ln_input_ok(t, r, cin)) continue;
            const char *dt = ln_table_cell(t, r, cdt), *di = ln_table_cell(t, r, cd), *in = ln_table_cell(t, r, cin),
                       *op = ln_row_op(t, r);
            size_t k = 0;
            while (k < ng &&
                   (strcmp(g[k].dtype, dt) || strcmp(g[k].dist, di) || strcmp(g[k].input, in) || strcmp(g[k].op, op)))
                k++;
            if (k == ng) {
                if (ng == 64) continue;
                memset(&g[ng], 0, sizeof g[ng]);
                g[ng].op = op, g[ng].dtype = dt, g[ng].dist = di, g[ng].input = in;
                ng++;
            }
            char e[32];
            snprintf(e, sizeof e, "%g", ln_table_num(t, r, ce));
            add_word(g[k].Ds, sizeof g[k].Ds, ln_table_cell(t, r, cD));
            add_word(g[k].eps, sizeof g[k].eps, e);
            add_word(g[k].files, sizeof g[k].files, R->acc_name[f]);
            int kernels = 0; /* of this case: the rows of the same op, dtype, dist, D and eps, one per kernel */
            for (size_t q = 0; q < t->rows; q++)
                kernels += !strcmp(ln_row_op(t, q), op) && !strcmp(ln_table_cell(t, q, cdt), dt) &&
                           !strcmp(ln_table_cell(t, q, cd), di) &&
                           !strcmp(ln_table_cell(t, q, cD), ln_table_cell(t, r, cD)) &&
                           !strcmp(ln_table_cell(t, q, ce), ln_table_cell(t, r, ce));
            if (kernels > g[k].kernels) g[k].kernels = kernels;
        }
    }
    if (ng)
        ln_doc_para(d, "Degenerate inputs (the drawn rows changed when stored in the dtype; these cases rank and blame "
                       "no kernel):");
    for (size_t k = 0; k < ng; k++)
        ln_doc_item(d, "%s%s%s %s: input %s (D %s; eps %s; %s; %d kernel%s)",
                    strcmp(g[k].op, "layernorm") ? g[k].op : "", strcmp(g[k].op, "layernorm") ? " " : "", g[k].dtype,
                    g[k].dist, g[k].input, g[k].Ds, g[k].eps, g[k].files, g[k].kernels, g[k].kernels == 1 ? "" : "s");
    if (!ng) ln_doc_para(d, "No degenerate input: every drawn row survived storage in its dtype.");
    /* per kernel counts; kernels with the same counts share a row */
    const char *h[] = {"kernels", "pass", "fail", "outside", "none", "degenerate input"};
    ln_doc_table(d, 6, "l", h);
    int *done = calloc(R->nac + 1, sizeof *done);
    if (!done) ln_die("out of memory");
    for (size_t i = 0; i < R->nac; i++) {
        if (done[i]) continue;
        ln_accstat *a = &R->ac[i];
        char names[2048] = "";
        for (size_t j = i; j < R->nac; j++) {
            ln_accstat *b = &R->ac[j];
            if (done[j] || memcmp(a->verdict, b->verdict, sizeof a->verdict) || a->degenerate != b->degenerate ||
                strcmp(a->dtype, b->dtype))
                continue;
            done[j] = 1;
            add_word(names, sizeof names, b->kernel);
        }
        char c[5][16];
        for (int v = 0; v < 4; v++) snprintf(c[v], 16, "%d", a->verdict[v]);
        snprintf(c[4], 16, "%d", a->degenerate);
        const char *cells[] = {names, c[0], c[1], c[2], c[3], c[4]};
        ln_doc_row(d, cells);
    }
    free(done);
    ln_doc_table_end(d);
}

static void speed_summary(ln_results *R, ln_doc *d, const char *op)
{
    ln_doc_heading(d, 3, "Speed");
    char counted[256], uncounted[256];
    ln_op_bytes_text(op, ln_untimed_given(&R->bench, op), counted, uncounted, sizeof counted);
    ln_doc_para(d,
                "GB/s: 1e9 bytes of %s per second, median over D; not counted: %s. Limit: the faster of the "
                "probes that move the same element size (probe-copy, probe-stream; probe-copy-16, probe-stream-16 "
                "for f16 and bf16) in this op's own run, at the same size and thread count, bytes counted the same "
                "way.",
                counted, uncounted);
    const char *h[] = {"dtype", "regime", "fastest", "GB/s", "of limit", "against the peers"};
    ln_doc_table(d, 6, "lllrrl", h);
    for (size_t i = 0; i < R->ndtypes; i++)
        for (size_t j = 0; j < R->nregimes; j++) {
            const char *dt = R->dtypes[i], *rg = R->regimes[j];
            ln_speed *best = ln_fastest_op(R, op, dt, rg, 0), *own = ln_fastest_op(R, op, dt, rg, 1);
            if (!best) continue;
            double limit = limit_of(R, op, rg, dt, NULL, NULL);
            char g[32], frac[64], peers[512] = "";
            snprintf(g, sizeof g, "%.3g", best->median);
            of_limit(frac, sizeof frac, best->median, limit);
            size_t len = 0;
            for (size_t p = 0; p < R->nsp; p++) {
                ln_speed *s = &R->sp[p];
                if (!s->peer || strcmp(s->op, op) || strcmp(s->dtype, dt) || strcmp(s->regime, rg) || s == best ||
                    isnan(s->median))
                    continue;
                len += snprintf(peers + len, sizeof peers - len, "%s%.2fx %s", len ? "; " : "",
                                best->median / s->median, s->kernel);
                if (len >= sizeof peers) break;
            }
            if (best->peer && own)
                snprintf(peers + len, sizeof peers - (len < sizeof peers ? len : sizeof peers - 1),
                         "%sbest own kernel %s at %.2fx of it", len ? "; " : "", own->kernel,
                         own->median / best->median);
            else if (!len) snprintf(peers, sizeof peers, "no peer ran");
            const char *cells[] = {dt, rg, best->kernel, g, frac, peers};
            ln_doc_row(d, cells);
        }
    ln_doc_table_end(d);
}

/* The limit of an op's kernels storing dtype in a regime at the report's thread count (one
 * definition: results/README.md). */
static double limit_of(ln_results *R, const char *op, const char *regime, const char *dtype, const char **probe,
                       double *bytes)
{
    return ln_run_limit(R->dir, &R->bench, op, regime, R->threads, dtype, probe, bytes);
}

/* "probe-stream at 64M, rmsnorm's own run" (or "..., bench.csv" for a folder of one merged run) */
static const char *limit_source(ln_results *R, char *buf, size_t n, const char *op, const char *probe, double bytes)
{
    char size[32], own[300];
    snprintf(own, sizeof own, "%s/ops/bench-%s.csv", R->dir, op);
    int own_run = !strcmp(op, "layernorm") || ln_path_exists(own);
    snprintf(buf, n, "%s at %s, %s%s", probe ? probe : "?", ln_size_label(bytes, size, sizeof size),
             own_run ? op : "bench.csv", own_run ? "'s own run" : "");
    return buf;
}

/* The op's limits, per regime and storage width, each named with its probe, size and run. */
static void limits(ln_results *R, ln_doc *d, const char *op)
{
    for (size_t j = 0; j < R->nregimes; j++) {
        const char *probe = NULL, *probe16 = NULL;
        double b = NAN, b16 = NAN;
        char src[160];
        double limit = limit_of(R, op, R->regimes[j], "f32", &probe, &b);
        if (!isnan(limit))
            ln_doc_item(d, "limit, %s, %s, %d thread%s: %.3g GB/s (%s)", op, R->regimes[j], R->threads,
                        R->threads == 1 ? "" : "s", limit, limit_source(R, src, sizeof src, op, probe, b));
        double limit16 = limit_of(R, op, R->regimes[j], "f16", &probe16, &b16);
        if (!isnan(limit16) && probe16 != probe)
            ln_doc_item(d, "limit, %s, %s, 16-bit storage: %.3g GB/s (%s)", op, R->regimes[j], limit16,
                        limit_source(R, src, sizeof src, op, probe16, b16));
    }
}

static void accuracy_summary(ln_results *R, ln_doc *d, const char *op)
{
    ln_doc_heading(d, 3, "Accuracy and what it costs");
    ln_doc_para(d,
                "Most accurate: the smallest worst max_ulp%s over the cases of accuracy.csv whose input stayed ok, "
                "then the smallest worst max_norm (units of the dtype's unit roundoff u), then the larger worst "
                "cr_frac; kernels equal on all three are a tie, named together (never broken by speed; its GB/s is "
                "the fastest of them). A kernel with non-finite outputs ranks last whatever its finite errors.",
                ln_backward_op(op) ? " of dx" : "");
    const char *regime = ln_tradeoff_regime(R);
    char speedcol[64];
    snprintf(speedcol, sizeof speedcol, "its GB/s (%s)", regime ? regime : "-");
    const char *h[] = {"dtype",  "most accurate", "worst max_ulp",     "worst max_norm (u)",
                       speedcol, "fastest",       "its worst max_ulp", "its worst max_norm (u)"};
    ln_doc_table(d, 8, "llrrrlrr", h);
    for (size_t i = 0; i < R->ndtypes; i++) {
        ln_acc_pick pk;
        if (!ln_pick_accurate(R, op, R->dtypes[i], regime, &pk)) continue;
        ln_accstat *best = pk.first;
        ln_speed *fast = regime ? ln_fastest_op(R, op, R->dtypes[i], regime, 0) : NULL, *mine = pk.speed;
        ln_accstat *fa = fast ? ln_find_acc(R, fast->kernel) : NULL;
        char e1[48], g[64], e2[48], u1[48], u2[48];
        if (mine && fast && !isnan(mine->median))
            snprintf(g, sizeof g, "%.3g (%.2fx of the fastest)", mine->median, mine->median / fast->median);
        else snprintf(g, sizeof g, "not timed");
        const char *cells[] = {R->dtypes[i],
                               pk.names,
                               err(u1, best->worst_ulp, best->nonfinite),
                               err(e1, best->worst_norm, best->nonfinite),
                               g,
                               fast ? fast->kernel : "-",
                               fa ? err(u2, fa->worst_ulp, fa->nonfinite) : "-",
                               fa ? err(e2, fa->worst_norm, fa->nonfinite) : "-"};
        ln_doc_row(d, cells);
    }
    ln_doc_table_end(d);

    ln_doc_heading(d, 3, "Pareto front (speed against accuracy)");
    for (size_t i = 0; i < R->ndtypes && regime; i++) {
        /* kernels no other kernel of the dtype beats on both speed and worst max_norm */
        const char *front[64];
        double fg[64], fe[64];
        size_t nf = 0;
        char broken[512] = "";
        size_t blen = 0;
        for (size_t k = 0; k < R->nac; k++) {
            ln_accstat *a = &R->ac[k];
            ln_speed *s = ln_find_speed(R, a->kernel, regime);
            if (strcmp(a->op, op) || strcmp(a->dtype, R->dtypes[i]) || !s || isnan(s->median)) continue;
            if (isinf(ln_accuracy_rank(a))) {
                if (blen < sizeof broken)
                    blen += snprintf(broken + blen, sizeof broken - blen, "%s%s", blen ? ", " : "", a->kernel);
                continue;
            }
            int dominated = 0;
            for (size_t o = 0; o < R->nac && !dominated; o++) {
                ln_accstat *b = &R->ac[o];
                ln_speed *t = ln_find_speed(R, b->kernel, regime);
                if (b == a || strcmp(b->op, a->op) || strcmp(b->dtype, a->dtype) || !t || isnan(t->median) ||
                    isinf(ln_accuracy_rank(b)))
                    continue;
                if (t->median >= s->median && ln_accuracy_rank(b) <= ln_accuracy_rank(a) &&
                    (t->median > s->median || ln_accuracy_rank(b) < ln_accuracy_rank(a)))
                    dominated = 1;
            }
            if (!dominated && nf < 64) front[nf] = a->kernel, fg[nf] = s->median, fe[nf] = a->worst_norm, nf++;
        }
        if (!nf && !blen) continue;
        for (size_t a = 1; a < nf; a++) /* fastest first */
            for (size_t b = a; b > 0 && fg[b - 1] < fg[b]; b--) {
                const char *t = front[b];
                front[b] = front[b - 1], front[b - 1] = t;
                double x = fg[b];
                fg[b] = fg[b - 1], fg[b - 1] = x;
                x = fe[b], fe[b] = fe[b - 1], fe[b - 1] = x;
            }
        char text[2048];
        size_t len = 0;
        for (size_t a = 0; a < nf && len < sizeof text; a++)
            len += snprintf(text + len, sizeof text - len, "%s%s (%.3g GB/s, %.3g u)", a ? ", then " : "", front[a],
                            fg[a], fe[a]);
        ln_doc_item(d, "%s, %s: %s%s%s%s", R->dtypes[i], regime, nf ? text : "no kernel with finite outputs",
                    nf > 1 ? " (each step buys accuracy with speed; every other kernel is both slower and less "
                             "accurate than one of these)"
                           : "",
                    blen ? "; non-finite outputs, off the front: " : "", broken);
    }
}

/* Noisy timings from bench.csv; from the runs' JSON, skipped cases per op, frequency scaling
 * and the load when each run started. */
static void warnings(ln_results *R, ln_doc *d, const ln_run_notes *T, const char *const *ops, size_t nops)
{
    ln_doc_heading(d, 2, "Warnings");
    int any = 0;
    if (R->have_bench) {
        int ck = ln_table_column(&R->bench, LNC_BENCH_kernel), cr = ln_table_column(&R->bench, LNC_BENCH_regime),
            cD = ln_table_column(&R->bench, LNC_BENCH_D), ccv = ln_table_column(&R->bench, LNC_BENCH_cv);
        /* the noisiest first: those are the numbers to distrust */
        size_t *noisy = malloc((R->bench.rows + 1) * sizeof *noisy), n = 0;
        if (!noisy) ln_die("out of memory");
        for (size_t r = 0; r < R->bench.rows; r++)
            if (ln_table_num(&R->bench, r, ccv) > LN_NOISY_CV) noisy[n++] = r;
        for (size_t a = 1; a < n; a++)
            for (size_t b = a;
                 b > 0 && ln_table_num(&R->bench, noisy[b - 1], ccv) < ln_table_num(&R->bench, noisy[b], ccv); b--) {
                size_t t = noisy[b];
                noisy[b] = noisy[b - 1], noisy[b - 1] = t;
            }
        char list[2048] = "";
        size_t len = 0;
        for (size_t i = 0; i < n && i < 8 && len < sizeof list; i++) {
            size_t r = noisy[i];
            len += snprintf(list + len, sizeof list - len, "%s%s D=%s %s %.0f%%", i ? ", " : "",
                            ln_table_cell(&R->bench, r, ck), ln_table_cell(&R->bench, r, cD),
                            ln_table_cell(&R->bench, r, cr), 100 * ln_table_num(&R->bench, r, ccv));
        }
        if (n) {
            ln_doc_item(
                d,
                "Noisy timings: %zu of %zu timed cases have a CV above %.0f%% (differences smaller than their CV are "
                "noise; 'max CV' in the tables below); the worst: %s%s",
                n, R->bench.rows, 100 * LN_NOISY_CV, list, n > 8 ? ", ..." : "");
            any = 1;
        }
        free(noisy);
    }
    char files[1024] = "";
    for (size_t f = 0; f < T->nfile; f++)
        if (T->scaling[f]) add_word(files, sizeof files, T->file[f]);
    if (*files) {
        ln_doc_item(d,
                    "CPU frequency scaling was on during the timing runs of %s (governor not 'performance'): rates "
                    "drift with the clock.",
                    files);
        any = 1;
    }
    char loads[2048] = "";
    size_t len = 0;
    for (size_t f = 0; f < T->nfile && len < sizeof loads; f++)
        if (T->cpus[f] > 0 && T->load[f] > 0.5 * T->cpus[f])
            len += snprintf(loads + len, sizeof loads - len, "%s%.2f on %.0f CPUs (%s)", len ? ", " : "", T->load[f],
                            T->cpus[f], T->file[f]);
    if (len) {
        ln_doc_item(d,
                    "Load average above half the CPUs when a timing run started: %s. Other processes shared the "
                    "machine.",
                    loads);
        any = 1;
    }
    /* skipped cases per op, in the report's op order */
    for (size_t o = 0; o < nops; o++) {
        size_t n = ln_skipped_count(T, ops[o], NULL);
        if (!n) continue;
        char list[4096] = "", where[512] = "";
        size_t len = 0, shown = 0;
        for (size_t i = 0; i < T->nskip; i++) {
            if (strcmp(T->skip[i].op, ops[o])) continue;
            add_word(where, sizeof where, T->skip[i].file);
            if (shown++ < 30 && len < sizeof list)
                len += snprintf(list + len, sizeof list - len, "%s%s", shown > 1 ? ", " : "", T->skip[i].name);
        }
        ln_doc_item(
            d,
            "Skipped cases, %s (%zu, no timing: one call would exceed --max-call-seconds; the message is in %s): %s%s",
            ops[o], n, where, list, n > 30 ? ", ..." : "");
        any = 1;
    }
    if (!any) ln_doc_item(d, "None: no noisy timing, no skipped case, no frequency scaling reported.");
}

static void throughput_details(ln_results *R, ln_doc *d, const char *op)
{
    ln_doc_heading(d, 3, "Throughput per row length");
    for (size_t i = 0; i < R->ndtypes; i++)
        for (size_t j = 0; j < R->nregimes; j++) {
            const char *dt = R->dtypes[i], *rg = R->regimes[j];
            double Ds[LN_MAXD];
            size_t nD = ln_timed_Ds(R, op, dt, rg, Ds);
            if (!nD) continue;
            char title[128];
            snprintf(title, sizeof title, "%s, %s-resident", dt, rg);
            ln_doc_heading(d, 4, title);
            const char *h[LN_MAXD + 4];
            char hb[LN_MAXD][24];
            h[0] = "kernel";
            for (size_t q = 0; q < nD; q++) snprintf(hb[q], 24, "D=%.0f", Ds[q]), h[q + 1] = hb[q];
            h[nD + 1] = "median";
            h[nD + 2] = "of limit";
            h[nD + 3] = "max CV";
            ln_doc_table(d, (int)nD + 4, "l", h);
            double limit = limit_of(R, op, rg, dt, NULL, NULL);
            /* fastest first */
            ln_speed *order[512];
            size_t no = 0;
            for (size_t k = 0; k < R->nsp && no < 512; k++)
                if (!R->sp[k].probe && !strcmp(R->sp[k].op, op) && !strcmp(R->sp[k].dtype, dt) &&
                    !strcmp(R->sp[k].regime, rg))
                    order[no++] = &R->sp[k];
            for (size_t a = 1; a < no; a++)
                for (size_t b = a; b > 0 && !(order[b - 1]->median >= order[b]->median); b--) {
                    ln_speed *t = order[b];
                    order[b] = order[b - 1], order[b - 1] = t;
                }
            for (size_t k = 0; k < no; k++) {
                ln_speed *s = order[k];
                char cb[LN_MAXD + 3][32];
                const char *cells[LN_MAXD + 4];
                cells[0] = s->kernel;
                for (size_t q = 0; q < nD; q++) {
                    cells[q + 1] = "-";
                    for (size_t x = 0; x < s->n; x++)
                        if (s->D[x] == Ds[q]) cells[q + 1] = num(cb[q], s->gbps[x]);
                }
                cells[nD + 1] = num(cb[nD], s->median);
                cells[nD + 2] = of_limit(cb[nD + 1], 32, s->median, limit);
                snprintf(cb[nD + 2], 32, "%.0f%%%s", 100 * s->cvmax, s->cvmax > LN_NOISY_CV ? " noisy" : "");
                cells[nD + 3] = cb[nD + 2];
                ln_doc_row(d, cells);
            }
            ln_doc_table_end(d);
        }
}

/* accuracy.csv: worst max_norm per kernel and distribution, input-ok cases only */
static void accuracy_details(ln_results *R, ln_doc *d, const char *op)
{
    ln_table *t = &R->acc[0];
    if (!R->have_acc[0]) return;
    ln_doc_heading(d, 3, "Accuracy per input distribution");
    ln_doc_para(
        d,
        "Worst max_norm%s (u) over D and eps; 'input: X' where the drawn rows degenerated in the dtype (not the "
        "kernel's error); non-finite counts where the kernel returned NaN or Inf for a finite exact result.",
        ln_backward_op(op) ? " of dx" : "");
    int ck = ln_table_column(t, LNC_ACC_kernel), cdt = ln_table_column(t, LNC_ACC_dtype),
        cd = ln_table_column(t, LNC_ACC_dist), cn = ln_table_column(t, LNC_ACC_max_norm),
        cnf = ln_table_column(t, LNC_ACC_nonfinite), cin = ln_table_column(t, LNC_ACC_input);
    const char *dists[32];
    size_t nd = 0;
    for (size_t r = 0; r < t->rows; r++)
        if (!strcmp(ln_row_op(t, r), op)) ln_add_unique(dists, &nd, 32, ln_table_cell(t, r, cd));
    for (size_t i = 0; i < R->ndtypes; i++) {
        size_t nk = 0;
        for (size_t k = 0; k < R->nac; k++) nk += !strcmp(R->ac[k].op, op) && !strcmp(R->ac[k].dtype, R->dtypes[i]);
        if (!nk) continue;
        ln_doc_heading(d, 4, R->dtypes[i]);
        const char *h[33];
        h[0] = "kernel";
        for (size_t q = 0; q < nd; q++) h[q + 1] = dists[q];
        ln_doc_table(d, (int)nd + 1, "l", h);
        for (size_t k = 0; k < R->nac; k++) {
            ln_accstat *a = &R->ac[k];
            if (strcmp(a->op, op) || strcmp(a->dtype, R->dtypes[i])) continue;
            char cb[32][64];
            const char *cells[33];
            cells[0] = a->kernel;
            for (size_t q = 0; q < nd; q++) {
                double worst = NAN, nf = 0;
                const char *bad = NULL;
                int seen = 0;
                for (size_t r = 0; r < t->rows; r++) {
                    if (strcmp(ln_table_cell(t, r, ck), a->kernel) || strcmp(ln_table_cell(t, r, cd), dists[q]) ||
                        strcmp(ln_table_cell(t, r, cdt), a->dtype))
                        continue;
                    seen = 1;
                    if (!ln_input_ok(t, r, cin)) {
                        bad = ln_table_cell(t, r, cin);
                        continue;
                    }
                    double v = ln_table_num(t, r, cn), f = ln_table_num(t, r, cnf);
                    if (f > 0) nf += f;
                    if (!isnan(v) && !(v <= worst)) worst = v;
                }
                if (!seen) cells[q + 1] = "-";
                else if (nf > 0 || !isnan(worst)) {
                    err(cb[q], worst, nf);
                    if (bad)
                        strncat(cb[q], " (input: ", 63 - strlen(cb[q])), strncat(cb[q], bad, 63 - strlen(cb[q])),
                            strncat(cb[q], " elsewhere)", 63 - strlen(cb[q]));
                    cells[q + 1] = cb[q];
                } else snprintf(cb[q], 64, "input: %s", bad ? bad : "-"), cells[q + 1] = cb[q];
            }
            ln_doc_row(d, cells);
        }
        ln_doc_table_end(d);
    }
}

/* An error and what it means against the kernel's claim: "2.1 u, pass", "1.3e+05 u, outside
 * (kappa-beyond-bound)", "2.6 u, FAIL (bound 2.5 u)"; then the kernel's fails over every
 * accuracy file (as the Verdicts count them) when there are others. */
static const char *judged(char *buf, size_t n, const ln_hardest *h, int fails)
{
    char e[48], b[32];
    size_t len = (size_t)snprintf(buf, n, "%s: %s u", h->dist, err(e, h->max_norm, h->nonfinite));
    if (!strcmp(h->verdict, "fail"))
        len += (size_t)snprintf(buf + len, n - len, ", FAIL (bound %s u)", num(b, h->bound));
    else if (!strcmp(h->verdict, "outside") && *h->domain)
        len += (size_t)snprintf(buf + len, n - len, ", outside (%s)", h->domain);
    else if (*h->verdict) len += (size_t)snprintf(buf + len, n - len, ", %s", h->verdict);
    if (fails > !strcmp(h->verdict, "fail") && len < n) snprintf(buf + len, n - len, "; %d FAIL in all", fails);
    return buf;
}

/* ---- the first screen ---- */

/* The figures shown beside the answers, so the Figures section does not show them twice. */
static char shown_figs[16][128];
static int nshown_figs;

/* Inlines plots/NAME.svg (a figure plots.sh drew: plots/data/figures.txt names it) with its caption. */
static int show_figure(ln_results *R, ln_doc *d, const char *name, const char *caption)
{
    char *list = ln_path_in(R->dir, "plots/data/figures.txt"), *rel, *svg;
    FILE *f = fopen(list, "r");
    free(list);
    if (!f) return 0;
    char n1[128], s1[32];
    int listed = 0;
    while (!listed && fscanf(f, "%127s %31s", n1, s1) == 2) listed = !strcmp(n1, name);
    fclose(f);
    if (!listed || asprintf(&rel, "plots/%s.svg", name) < 0) return 0;
    svg = ln_path_in(R->dir, rel);
    free(rel);
    FILE *e = fopen(svg, "r");
    if (e) {
        fclose(e);
        ln_doc_figure(d, name, svg, caption);
        if (nshown_figs < 16) snprintf(shown_figs[nshown_figs++], sizeof shown_figs[0], "%s", name);
    }
    free(svg);
    return e != NULL;
}

/* The provenance of the files read: a warning when they come from different commits, from runs
 * more than an hour apart, or when one ran a selection of the kernels (--kernels); the files
 * grouped by commit. */
static void provenance(ln_results *R, ln_doc *d)
{
    char *paths[64];
    size_t n = 0;
    static const char *const kinds[] = {"bench.csv", "accuracy.csv", "conditioning.csv", "eps.csv"};
    for (size_t k = 0; k < 4 && n < 60; k++) n += ln_results_files(R->dir, kinds[k], paths + n, 64 - n);
    char commits[64][64], files[64][1024], when[64][64];
    size_t nc = 0;
    double tmin = INFINITY, tmax = -INFINITY;
    int selected = 0;
    size_t dirlen = strlen(R->dir);
    for (size_t i = 0; i < n; i++) {
        char meta[1200], commit[64], date[64], command[1024];
        snprintf(meta, sizeof meta, "%s.meta.json", paths[i]);
        ln_meta_value(meta, "git_commit", commit, sizeof commit);
        ln_meta_value(meta, "date", date, sizeof date);
        ln_meta_value(meta, "command", command, sizeof command);
        struct tm tm = {0};
        if (strptime(date, "%Y-%m-%dT%H:%M:%S", &tm)) {
            double t = (double)timegm(&tm);
            tmin = fmin(tmin, t), tmax = fmax(tmax, t);
        }
        int sel = strstr(command, "--kernels") != NULL;
        selected |= sel;
        const char *name =
            !strncmp(paths[i], R->dir, dirlen) && paths[i][dirlen] == '/' ? paths[i] + dirlen + 1 : paths[i];
        size_t c = 0;
        while (c < nc && strcmp(commits[c], *commit ? commit : "?")) c++;
        if (c == nc && nc < 64)
            snprintf(commits[nc], 64, "%s", *commit ? commit : "?"), files[nc][0] = 0,
                                                                     snprintf(when[nc], 64, "%s", date), nc++;
        if (c < nc) {
            size_t len = strlen(files[c]);
            snprintf(files[c] + len, sizeof files[c] - len, "%s%s%s", len ? ", " : "", name,
                     sel ? " (a --kernels selection)" : "");
        }
        free(paths[i]);
    }
    if (nc <= 1 && !selected && !(tmax - tmin > 3600)) return;
    char list[4096] = "";
    size_t len = 0;
    for (size_t c = 0; c < nc && len < sizeof list; c++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%scommit %s (from %s): %s", c ? "; " : "", commits[c],
                                when[c], files[c]);
    ln_doc_warn(d,
                "These files come from different runs or selections (%.0f minutes apart), so their answers may not "
                "describe one another (a kernel missing from one is '-' there): %s. make bench writes them all at "
                "once.",
                (tmax - tmin) / 60, list);
}

/* The relative error a normwise error of e units of the dtype's unit roundoff is. */
static double relative(double e, const char *dtype)
{
    int t = ln_dtype_parse(dtype);
    return t < 0 ? NAN : e * ln_unit_roundoff((ln_dtype)t);
}

/* Per D, the fastest kernel of an op, dtype and regime and the gap to the runner-up, with its
 * significance from the run's repetitions (lnbench compare --kernels); one phrase into buf. */
static void winners_by_D(ln_results *R, const char *op, const char *dt, const char *rg, char *buf, size_t n)
{
    double Ds[LN_MAXD];
    size_t nD = ln_timed_Ds(R, op, dt, rg, Ds);
    const char *win[LN_MAXD];
    size_t len = 0;
    int changes = 0;
    buf[0] = 0;
    for (size_t q = 0; q < nD; q++) {
        ln_speed *first = NULL, *second = NULL;
        double g1 = NAN, g2 = NAN;
        for (size_t k = 0; k < R->nsp; k++) {
            ln_speed *s = &R->sp[k];
            if (s->probe || strcmp(s->op, op) || strcmp(s->dtype, dt) || strcmp(s->regime, rg)) continue;
            for (size_t x = 0; x < s->n; x++) {
                if (s->D[x] != Ds[q] || isnan(s->gbps[x])) continue;
                if (!first || s->gbps[x] > g1) second = first, g2 = g1, first = s, g1 = s->gbps[x];
                else if (!second || s->gbps[x] > g2) second = s, g2 = s->gbps[x];
            }
        }
        win[q] = first ? first->kernel : NULL;
        changes += q > 0 && win[q] && win[q - 1] && strcmp(win[q], win[q - 1]);
        if (!first || len >= n) continue;
        len += (size_t)snprintf(buf + len, n - len, "%sD %.0f: %s", q ? "; " : "", Ds[q], first->kernel);
        if (!second || len >= n) continue;
        ln_duel duel[256];
        const ln_timing_run *T = ln_results_timing(R);
        size_t nd = T ? ln_duel_rows_of(T, second->kernel, first->kernel, duel, 256) : 0;
        const char *sig = "";
        char p[64] = "";
        for (size_t i = 0; i < nd; i++)
            if (duel[i].D == Ds[q] && duel[i].threads == R->threads && !strcmp(duel[i].regime, rg)) {
                if (!duel[i].tested) sig = ", too few repetitions to tell";
                else if (duel[i].p_adj < 0.05) snprintf(p, sizeof p, ", significant (p %.2g)", duel[i].p_adj);
                else snprintf(p, sizeof p, ", not significant (p %.2g)", duel[i].p_adj);
            }
        len +=
            (size_t)snprintf(buf + len, n - len, " by %.0f%% over %s%s%s", 100 * (g1 / g2 - 1), second->kernel, sig, p);
    }
    if (!changes) buf[0] = 0; /* one winner at every D: the sentence says it */
}

/* The figures behind LayerNorm's f32 and bf16 answers, two a row. */
static void answer_figures(ln_results *R, ln_doc *d)
{
    const char *rg = ln_tradeoff_regime(R);
    static const char *const dts[] = {"f32", "bf16"};
    ln_doc_figs_begin(d);
    for (int k = 0; k < 2 && rg; k++) {
        char name[128];
        snprintf(name, sizeof name, "pareto-%s", dts[k]);
        show_figure(R, d, name,
                    "Speed against accuracy: each kernel's GB/s against its worst normwise error; the "
                    "Pareto front dashed.");
        snprintf(name, sizeof name, "throughput-%s-%s", rg, dts[k]);
        show_figure(R, d, name,
                    "Throughput against row length: the fastest kernel of each algorithm, the machine "
                    "limit dotted.");
    }
    ln_doc_figs_end(d);
}

/* Per op, dtype and regime one sentence: the kernel to use, what the most accurate costs, the
 * error the fastest makes on its hardest input, relative beside u; those that answer nothing
 * (no timing, or only kernels under 5% of the limit) after. Then the figures that support them. */
static void answers(ln_results *R, ln_doc *d, const char *const *ops, size_t nops)
{
    char later[4096] = "";
    size_t llen = 0;
    int figures_shown = 0;
    for (size_t o = 0; o < nops; o++) {
        if (o > 0 && !strcmp(ops[o - 1], "layernorm")) answer_figures(R, d), figures_shown = 1;
        for (size_t i = 0; i < R->ndtypes; i++)
            for (size_t j = 0; j < R->nregimes || (!R->nregimes && j == 0); j++) {
                const char *op = ops[o], *dt = R->dtypes[i], *rg = R->nregimes ? R->regimes[j] : NULL;
                ln_speed *fast = rg ? ln_fastest_op(R, op, dt, rg, 0) : NULL;
                ln_accstat *set[64];
                size_t nset = ln_most_accurate_set(R, op, dt, set, 64);
                if (!fast && !nset) continue;
                const char *probe = NULL;
                double bytes = NAN, limit = rg ? limit_of(R, op, rg, dt, &probe, &bytes) : NAN;
                char what[96];
                snprintf(what, sizeof what, "%s%s%s%s%s", strcmp(op, "layernorm") ? ln_op_title(op) : "",
                         strcmp(op, "layernorm") ? ", " : "", dt, rg ? (strcmp(rg, "memory") ? " in " : " from ") : "",
                         rg ? rg : "");
                if (!fast || (!isnan(limit) && fast->median < 0.05 * limit)) {
                    if (llen < sizeof later)
                        llen += (size_t)snprintf(later + llen, sizeof later - llen, "%s%s (%s)", llen ? "; " : "", what,
                                                 fast ? "only kernels under 5% of the limit" : "none timed");
                    continue;
                }
                char sentence[4096], src[160], tie[512], e[48];
                size_t len = (size_t)snprintf(sentence, sizeof sentence, "%s: use %s, %.3g GB/s", what, fast->kernel,
                                              fast->median);
                if (!isnan(limit) && fast->median > limit) /* a ratio, never a percentage above 100 */
                    len += (size_t)snprintf(sentence + len, sizeof sentence - len,
                                            " (%.2fx the limit %.3g GB/s, above the probes; %s)", fast->median / limit,
                                            limit, limit_source(R, src, sizeof src, op, probe, bytes));
                else if (!isnan(limit))
                    len += (size_t)snprintf(sentence + len, sizeof sentence - len,
                                            " (%.0f%% of the limit %.3g GB/s, %s)", 100 * fast->median / limit, limit,
                                            limit_source(R, src, sizeof src, op, probe, bytes));
                if (nset) {
                    ln_speed *ms = ln_fastest_of(R, set, nset, rg);
                    ln_tie_names(set, nset, tie, sizeof tie);
                    len += (size_t)snprintf(sentence + len, sizeof sentence - len, ". Most accurate: %s%s (%s ulp", tie,
                                            nset > 1 ? ", a tie" : "", err(e, set[0]->worst_ulp, set[0]->nonfinite));
                    len += (size_t)snprintf(sentence + len, sizeof sentence - len, ", %s u = relative %.2g",
                                            num(e, set[0]->worst_norm), relative(set[0]->worst_norm, dt));
                    if (!ms) len += (size_t)snprintf(sentence + len, sizeof sentence - len, "; not timed)");
                    else if (ms == fast || ms->median >= fast->median)
                        len += (size_t)snprintf(sentence + len, sizeof sentence - len,
                                                "): the fastest is also the most accurate");
                    else
                        len +=
                            (size_t)snprintf(sentence + len, sizeof sentence - len, "), costs %.0f%% (%s, %.3g GB/s)",
                                             100 * (1 - ms->median / fast->median), ms->kernel, ms->median);
                }
                ln_hardest hd;
                if (ln_hardest_dist(&R->acc[0], fast->kernel, LNC_ACC_max_norm, &hd)) {
                    if (hd.nonfinite > 0)
                        len += (size_t)snprintf(sentence + len, sizeof sentence - len,
                                                ". %s returns non-finite outputs (%.0f) on %s", fast->kernel,
                                                hd.nonfinite, hd.dist);
                    else
                        len +=
                            (size_t)snprintf(sentence + len, sizeof sentence - len,
                                             ". %s errs by up to %s u = relative %.2g (%s ulp) on %s%s%s", fast->kernel,
                                             num(e, hd.max_norm), relative(hd.max_norm, dt), num(src, hd.max_ulp),
                                             hd.dist, !strcmp(hd.verdict, "fail") ? ", above its bound (FAIL)" : "",
                                             !strcmp(hd.verdict, "outside") ? ", outside its bound's conditions" : "");
                }
                char perD[2048];
                winners_by_D(R, op, dt, rg, perD, sizeof perD);
                if (*perD) snprintf(sentence + len, sizeof sentence - len, ". The winner changes with D: %s", perD);
                ln_doc_item(d, "%s.", sentence);
            }
    }
    if (llen) ln_doc_para(d, "Nothing to choose here: %s.", later);
    if (!figures_shown) answer_figures(R, d);
}

/* The first screen: per op, dtype and regime which kernel to take here and what it costs. */
static void glance(ln_results *R, ln_doc *d, const char *const *ops, size_t nops, const ln_run_notes *T)
{
    ln_doc_heading(d, 2, "Which kernel, here, and at what cost");
    provenance(R, d);
    answers(R, d, ops, nops);
    ln_doc_heading(d, 3, "The same in one table");
    ln_doc_fold(d, "Per operator, dtype and regime: fastest, limit, most accurate, hardest input");
    if (R->have_bench) {
        size_t noisy = 0;
        int ccv = ln_table_column(&R->bench, LNC_BENCH_cv);
        for (size_t r = 0; r < R->bench.rows; r++) noisy += ln_table_num(&R->bench, r, ccv) > LN_NOISY_CV;
        if (noisy)
            ln_doc_warn(d,
                        "Caution: %zu of %zu timings are noisy (CV above %.0f%%, see Warnings): a difference smaller "
                        "than their CV is not a difference.",
                        noisy, R->bench.rows, 100 * LN_NOISY_CV);
    }
    int counts[2] = {1, 1};
    size_t nthreads = ln_table_threads(&R->bench, counts, 2);
    char threads[64] = "";
    if (nthreads > 1)
        snprintf(threads, sizeof threads, ", at %d thread%s: other counts under Scaling with threads", R->threads,
                 R->threads == 1 ? "" : "s");
    ln_doc_para(
        d,
        "Per operator, dtype and regime (cache: x of at most 8 MiB; memory: 64 MiB or more): the fastest "
        "kernel, its GB/s (1e9 bytes per second of x read and y written, or for the backward ops x and dy "
        "read and dx written; median over D%s) and that as a fraction of the machine limit below (for f16 "
        "and bf16 the 16-bit probes' when the run has them); the most "
        "accurate kernel (smallest worst max_ulp over accuracy.csv's cases whose input stayed ok, then max_norm, then "
        "the larger worst cr_frac; ties named together, never broken by speed) and the GB/s of the fastest of "
        "them, with its ratio to the fastest's; the fastest kernel's error on its hardest distribution "
        "(largest max_norm) and the verdict there: pass (within the bound the kernel claims), outside "
        "(the case is outside the conditions of that bound, the reason in brackets: a large error there "
        "breaks no promise) or FAIL (above it); beside both kernels, their failures over every accuracy "
        "file (FAIL in all; the Verdicts list each). Backward ops: dx here, dgamma and dbeta in their section. "
        "Errors in "
        "units of the dtype's unit roundoff u.",
        threads);
    const char *h[] = {"op",
                       "dtype",
                       "regime",
                       "fastest",
                       "GB/s",
                       "of limit",
                       "most accurate (worst max_ulp, max_norm)",
                       "its GB/s",
                       "fastest's hardest dist: max_norm, verdict"};
    ln_doc_table(d, 9, "llllrrlrl", h);
    const char *none[] = {"-"};
    for (size_t o = 0; o < nops; o++)
        for (size_t i = 0; i < R->ndtypes; i++) {
            const char *op = ops[o], *dt = R->dtypes[i];
            /* the regimes where the op and dtype were timed; one row without speed if none */
            int timed = 0;
            for (size_t j = 0; j < R->nregimes; j++) timed |= ln_fastest_op(R, op, dt, R->regimes[j], 0) != NULL;
            size_t skipped = ln_skipped_count(T, op, dt);
            const char *const *regimes = timed ? R->regimes : none;
            size_t nreg = timed ? R->nregimes : 1;
            for (size_t j = 0; j < nreg; j++) {
                const char *rg = regimes[j];
                ln_speed *fast = timed ? ln_fastest_op(R, op, dt, rg, 0) : NULL;
                ln_acc_pick pk;
                ln_accstat *acc = ln_pick_accurate(R, op, dt, timed ? rg : NULL, &pk) ? pk.first : NULL;
                /* a regime where the others were timed and this op's cases skipped: said, not left out */
                if ((timed && !fast && !skipped) || (!fast && !acc && !skipped)) continue;
                char g[32], frac[64], a[700], cost[64], e[48], hard[256], who[96];
                if (fast) num(g, fast->median);
                else snprintf(g, sizeof g, "-");
                of_limit(frac, sizeof frac, fast ? fast->median : NAN, limit_of(R, op, rg, dt, NULL, NULL));
                if (fast) snprintf(who, sizeof who, "%s", fast->kernel);
                else if (skipped)
                    snprintf(who, sizeof who, "none timed (%zu case%s skipped, see Warnings)", skipped,
                             skipped == 1 ? "" : "s");
                else snprintf(who, sizeof who, "-");
                /* the most accurate may still break its own bound: said beside its error */
                char u[48];
                if (acc && acc->verdict[1])
                    snprintf(a, sizeof a, "%s (%s ulp, %s u; %d FAIL)", pk.names,
                             err(u, acc->worst_ulp, acc->nonfinite), err(e, acc->worst_norm, acc->nonfinite),
                             acc->verdict[1]);
                else if (acc)
                    snprintf(a, sizeof a, "%s (%s ulp, %s u)", pk.names, err(u, acc->worst_ulp, acc->nonfinite),
                             err(e, acc->worst_norm, acc->nonfinite));
                else snprintf(a, sizeof a, "-");
                ln_speed *mine = acc && timed ? pk.speed : NULL;
                if (mine && fast && !isnan(mine->median))
                    snprintf(cost, sizeof cost, "%.3g (%.2fx the fastest)", mine->median, mine->median / fast->median);
                else snprintf(cost, sizeof cost, "%s", acc && fast ? "not timed" : "-");
                ln_hardest hd;
                ln_accstat *fa = fast ? ln_find_acc(R, fast->kernel) : NULL;
                if (fast && ln_hardest_dist(&R->acc[0], fast->kernel, LNC_ACC_max_norm, &hd))
                    judged(hard, sizeof hard, &hd, fa ? fa->verdict[1] : 0);
                else snprintf(hard, sizeof hard, "-");
                const char *cells[] = {op, dt, rg, who, g, frac, a, cost, hard};
                ln_doc_row(d, cells);
            }
        }
    ln_doc_table_end(d);
    ln_doc_fold_end(d);
    if (R->have_bench)
        for (size_t o = 0; o < nops; o++) limits(R, d, ops[o]);
    if (above_limit_notes)
        ln_doc_para(d, "Above the probes: the limit is the faster of the two streaming probes of the same run, not a "
                       "ceiling; a kernel that overlaps its reads and writes better (probe-copy also pays an uncounted "
                       "read of y before each store) beats it. Its ratio is shown, not a percentage.");
}

/* Each kernel of an op on its hardest distribution; the backward ops per output tensor. */
static void hardest_table(ln_results *R, ln_doc *d, const char *op)
{
    int backward = ln_backward_op(op);
    ln_doc_heading(d, 3, "Accuracy on the hardest distribution");
    ln_doc_para(d,
                "Per kernel, the input distribution with the largest max_norm%s over the cases whose input stayed "
                "ok; on it the worst over D and eps%s. nonfinite and fails count every input-ok case.",
                backward ? " of dx" : "",
                backward ? " of dx's max_norm and max_ulp and of dgamma's and dbeta's max_norm (sums over the rows, "
                           "each judged as one row; no bound is claimed for them)"
                         : "");
    const char *hf[] = {"kernel", "dtype", "hardest dist", "max_norm (u)", "max_ulp", "nonfinite", "fails"};
    const char *hb[] = {"kernel",
                        "dtype",
                        "hardest dist",
                        "dx max_norm (u)",
                        "dx max_ulp",
                        "dgamma max_norm (u)",
                        "dbeta max_norm (u)",
                        "nonfinite",
                        "fails"};
    int ncol = backward ? 9 : 7;
    ln_doc_table(d, ncol, "lll", backward ? hb : hf);
    for (size_t k = 0; k < R->nac; k++) {
        ln_accstat *a = &R->ac[k];
        ln_hardest h;
        if (strcmp(a->op, op) || !ln_hardest_dist(&R->acc[0], a->kernel, LNC_ACC_max_norm, &h)) continue;
        char b[6][48];
        const char *cells[9] = {a->kernel, a->dtype, h.dist, err(b[0], h.max_norm, h.nonfinite),
                                err(b[1], h.max_ulp, h.nonfinite)};
        int c = 5;
        if (backward) cells[c++] = num(b[2], h.dgamma_norm), cells[c++] = num(b[3], h.dbeta_norm);
        snprintf(b[4], 48, "%.0f", h.nonfinite), cells[c++] = b[4];
        cells[c++] = num(b[5], h.fails);
        ln_doc_row(d, cells);
    }
    ln_doc_table_end(d);
}

static void op_section(ln_results *R, ln_doc *d, const char *op)
{
    char title[128];
    snprintf(title, sizeof title, "%s (%s)", ln_op_title(op), op);
    ln_doc_heading(d, 2, title);
    if (R->have_bench) speed_summary(R, d, op);
    if (R->have_acc[0]) {
        accuracy_summary(R, d, op);
        hardest_table(R, d, op);
    }
    if (R->have_bench) throughput_details(R, d, op);
    accuracy_details(R, d, op);
}

/* bench.csv with several thread counts: each kernel's GB/s at each, against one thread and
 * against the probes at the same count. */
static void scaling_section(ln_results *R, ln_doc *d)
{
    ln_scaling *s = malloc((R->bench.rows + 1) * sizeof *s);
    if (!s) ln_die("out of memory");
    size_t n = ln_scaling_rows(&R->bench, s, R->bench.rows);
    if (n) {
        ln_doc_heading(d, 2, "Scaling with threads");
        ln_doc_para(d,
                    "The kernels timed at more than one thread count (lnbench bench --threads; each thread on its own "
                    "CPU with its share of the rows). GB/s: median over D at that count; speedup: over the same "
                    "kernel's 1-thread median; of limit: over the best probe at the same thread count and regime. "
                    "Every other table of this report is at %d thread%s.",
                    R->threads, R->threads == 1 ? "" : "s");
        const char *h[] = {"kernel", "op", "regime", "threads", "GB/s", "speedup", "of limit"};
        ln_doc_table(d, 7, "lll", h);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < s[i].n; j++) {
                char t[16], b[3][64];
                snprintf(t, sizeof t, "%d", s[i].threads[j]);
                if (isnan(s[i].speedup[j])) snprintf(b[1], sizeof b[1], "-");
                else snprintf(b[1], sizeof b[1], "%.2fx", s[i].speedup[j]);
                if (isnan(s[i].of_limit[j])) snprintf(b[2], sizeof b[2], "-");
                else if (s[i].of_limit[j] > 1) snprintf(b[2], sizeof b[2], "%.2f (above the probes)", s[i].of_limit[j]);
                else snprintf(b[2], sizeof b[2], "%.0f%%", 100 * s[i].of_limit[j]);
                const char *cells[] = {s[i].kernel, s[i].op, s[i].regime, t, num(b[0], s[i].gbps[j]), b[1], b[2]};
                ln_doc_row(d, cells);
            }
        ln_doc_table_end(d);
        /* the limit at each thread count, per op run and regime: each count's own yardstick */
        const char *ops[LN_MAX_OPS];
        size_t nops = 0;
        for (size_t i = 0; i < n; i++) ln_add_unique(ops, &nops, LN_MAX_OPS, s[i].op);
        int counts[LN_MAX_THREAD_COUNTS];
        size_t nc = ln_table_threads(&R->bench, counts, LN_MAX_THREAD_COUNTS);
        for (size_t o = 0; o < nops; o++)
            for (size_t j = 0; j < R->nregimes; j++) {
                char line[1024], size[32];
                size_t len = 0;
                for (size_t c = 0; c < nc && len < sizeof line; c++) {
                    const char *probe = NULL;
                    double bytes = NAN;
                    double g = ln_run_limit(R->dir, &R->bench, ops[o], R->regimes[j], counts[c], "f32", &probe, &bytes);
                    if (!isnan(g))
                        len += (size_t)snprintf(line + len, sizeof line - len, "%s%d thread%s %.3g GB/s (%s at %s)",
                                                len ? "; " : "", counts[c], counts[c] == 1 ? "" : "s", g, probe,
                                                ln_size_label(bytes, size, sizeof size));
                }
                if (len) ln_doc_item(d, "limit, %s, %s, by thread count: %s", ops[o], R->regimes[j], line);
            }
    }
    free(s);
}

/* The figures scripts/plots.sh drew (plots/data/figures.txt lists them, so a stale or foreign
 * image in plots/ is never shown), each with what it shows. */
static void figures(ln_results *R, ln_doc *d)
{
    static const struct {
        const char *script, *caption;
    } kinds[] = {
        {"throughput", "Throughput against row length: median GB/s, bars from the slowest to the fastest repetition, "
                       "the machine limit dotted, peers dashed."},
        {"pareto",
         "Speed against accuracy: each kernel's GB/s against its worst normwise error; the Pareto front dashed."},
        {"accuracy",
         "Max ulp and normwise error per input distribution (each algorithm's fastest kernel), worst over D and eps."},
        {"conditioning", "Normwise error against the offset M of the rows: where each algorithm breaks."},
        {"eps", "Error and non-finite outputs against eps on degenerate rows."},
        {"scaling", "GB/s against the thread count (median over D), each algorithm's fastest f32 kernel; the "
                    "machine limit at each count (the faster probe of the same run, size and count) dotted."},
        {"history", "GB/s across the commits run on this machine."},
    };
    char *list = ln_path_in(R->dir, "plots/data/figures.txt");
    FILE *f = fopen(list, "r");
    free(list);
    if (!f) return;
    char names[256][128], scripts[256][32];
    int n = 0;
    while (n < 256 && fscanf(f, "%127s %31s", names[n], scripts[n]) == 2) n++;
    fclose(f);
    int drew = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int i = 0; i < n; i++) {
            if (strcmp(scripts[i], kinds[k].script)) continue;
            int shown = 0;
            for (int j = 0; j < nshown_figs; j++) shown |= !strcmp(shown_figs[j], names[i]);
            if (shown) continue;
            char *svg, *rel;
            if (asprintf(&rel, "plots/%s.svg", names[i]) < 0) ln_die("out of memory");
            svg = ln_path_in(R->dir, rel);
            FILE *exists = fopen(svg, "r");
            if (exists) {
                fclose(exists);
                if (!drew++) ln_doc_heading(d, 2, "Figures");
                ln_doc_figure(d, names[i], svg, kinds[k].caption);
            }
            free(svg), free(rel);
        }
}

static void full_tables(ln_results *R, ln_doc *d)
{
    ln_doc_heading(d, 2, "Full tables");
    if (R->have_bench) {
        ln_doc_heading(d, 3, "bench.csv");
        ln_doc_fold(d, "every row of bench.csv (the file itself is beside this report)");
        static const ln_column cols[] = {LNC_BENCH_kernel, LNC_BENCH_op,       LNC_BENCH_dtype,    LNC_BENCH_regime,
                                         LNC_BENCH_D,      LNC_BENCH_rows,     LNC_BENCH_dist,     LNC_BENCH_threads,
                                         LNC_BENCH_gbps,   LNC_BENCH_gbps_min, LNC_BENCH_gbps_max, LNC_BENCH_cv};
        int c[16], n = 0;
        const char *h[16];
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
            if ((c[n] = ln_table_column(&R->bench, cols[i])) >= 0) h[n++] = ln_columns[cols[i]].name;
        ln_doc_table(d, n, "llllrrl", h);
        for (size_t r = 0; r < R->bench.rows; r++) {
            const char *cells[16];
            for (int i = 0; i < n; i++) cells[i] = ln_table_cell(&R->bench, r, c[i]);
            ln_doc_row(d, cells);
        }
        ln_doc_table_end(d);
        ln_doc_fold_end(d);
    }
    for (int f = 0; f < 3; f++) {
        if (!R->have_acc[f]) continue;
        ln_table *t = &R->acc[f];
        ln_doc_heading(d, 3, R->acc_name[f]);
        ln_doc_fold(d, "every row (the file itself is beside this report)");
        static const ln_column cols[] = {LNC_ACC_kernel,
                                         LNC_ACC_op,
                                         LNC_ACC_dist,
                                         LNC_ACC_D,
                                         LNC_ACC_eps,
                                         LNC_ACC_max_ulp,
                                         LNC_ACC_max_norm,
                                         LNC_ACC_nonfinite,
                                         LNC_ACC_bound,
                                         LNC_ACC_verdict,
                                         LNC_ACC_domain,
                                         LNC_ACC_input,
                                         LNC_ACC_dgamma_max_norm,
                                         LNC_ACC_dbeta_max_norm};
        int c[16], n = 0, cnf = ln_table_column(t, LNC_ACC_nonfinite);
        const char *h[16];
        ln_column id[16];
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
            if ((c[n] = ln_table_column(t, cols[i])) >= 0) id[n] = cols[i], h[n++] = ln_columns[cols[i]].name;
        ln_doc_table(d, n, "lllrrrrrrlll", h);
        for (size_t r = 0; r < t->rows; r++) {
            const char *cells[16];
            char b[2][48];
            int nb = 0;
            for (int i = 0; i < n; i++) {
                cells[i] = ln_table_cell(t, r, c[i]);
                /* numbers shortened; an error of a row with non-finite outputs is not a finite number */
                if (id[i] == LNC_ACC_max_ulp || id[i] == LNC_ACC_max_norm)
                    cells[i] = err(b[nb++], ln_table_num(t, r, c[i]), ln_table_num(t, r, cnf));
            }
            ln_doc_row(d, cells);
        }
        ln_doc_table_end(d);
        ln_doc_fold_end(d);
    }
}

int ln_report_write(const char *dir)
{
    ln_results R;
    if (!ln_results_load(&R, dir)) {
        fprintf(stderr, "lnbench: report: no results in %s/ (bench.csv, accuracy.csv...): run 'make bench' first\n",
                dir);
        return LN_EXIT_USAGE;
    }
    char *p;
    above_limit_notes = 0, nshown_figs = 0;

    ln_outfile md, html;
    p = ln_path_in(dir, "REPORT.md");
    ln_out_open(&md, p);
    free(p);
    p = ln_path_in(dir, "report.html");
    ln_out_open(&html, p);
    free(p);
    ln_doc d;
    ln_doc_begin(&d, md.f, html.f, "lnbench report");
    machine_line(&R, &d);
    char emulated[2048], emulator[64];
    if (ln_run_emulated(dir, emulated, sizeof emulated, emulator, sizeof emulator))
        ln_doc_warn(&d,
                    "Timed under an emulator (%s): %s. Its timings measure the emulator, not this CPU, and mean "
                    "nothing (every GB/s, limit, ranking by speed and figure of rates below); the accuracy results "
                    "stand.",
                    emulator, emulated);
    const char *ops[LN_MAX_OPS];
    size_t nops = 0;
    ln_collect_ops(&R.bench, ops, &nops);
    ln_collect_ops(&R.acc[LN_ACC_DEFAULT], ops, &nops);
    ln_run_notes T;
    ln_run_notes_read(&R, &T);
    glance(&R, &d, ops, nops, &T);
    if (R.have_acc[0] || R.have_acc[1] || R.have_acc[2]) verdict_section(&R, &d);
    for (size_t i = 0; i < nops; i++) op_section(&R, &d, ops[i]);
    if (R.have_bench) scaling_section(&R, &d);
    ln_report_tuning_section(dir, &d);
    warnings(&R, &d, &T, ops, nops);
    ln_run_notes_free(&T);
    figures(&R, &d);
    full_tables(&R, &d);
    ln_doc_end(&d);
    ln_out_commit(&md);
    ln_out_commit(&html);
    ln_results_free(&R);
    printf("report: wrote %s/REPORT.md and %s/report.html\n", dir, dir);
    return 0;
}
