#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "columns.h"
#include "comparison.h"
#include "outfile.h"
#include "results.h"
#include "rows.h"
#include "runs.h"
#include "stats.h"
#include "table.h"
#include "tuning_notes.h"

static void accuracy_changes(ln_timing_run *a, ln_timing_run *b)
{
    if (!a->have_acc || !b->have_acc) {
        printf("\naccuracy: %s\n",
               !a->have_acc && !b->have_acc ? "no accuracy.csv in either run" : "accuracy.csv in one run only");
        return;
    }
    static const ln_column key[] = {LNC_ACC_kernel, LNC_ACC_dtype, LNC_ACC_dist, LNC_ACC_D, LNC_ACC_eps};
    int ka[5], kb[5];
    for (int i = 0; i < 5; i++) ka[i] = ln_table_column(&a->acc, key[i]), kb[i] = ln_table_column(&b->acc, key[i]);
    int ua = ln_table_column(&a->acc, LNC_ACC_max_ulp), ub = ln_table_column(&b->acc, LNC_ACC_max_ulp),
        va = ln_table_column(&a->acc, LNC_ACC_verdict), vb = ln_table_column(&b->acc, LNC_ACC_verdict),
        fa = ln_table_column(&a->acc, LNC_ACC_nonfinite), fb = ln_table_column(&b->acc, LNC_ACC_nonfinite);
    int changes = 0, matched = 0;
    for (size_t i = 0; i < b->acc.rows; i++)
        for (size_t j = 0; j < a->acc.rows; j++) {
            int same = 1;
            for (int k = 0; k < 5 && same; k++)
                same = !strcmp(ln_table_cell(&a->acc, j, ka[k]), ln_table_cell(&b->acc, i, kb[k]));
            if (!same) continue;
            matched++;
            double u0 = ln_table_num(&a->acc, j, ua), u1 = ln_table_num(&b->acc, i, ub);
            double f0 = ln_table_num(&a->acc, j, fa), f1 = ln_table_num(&b->acc, i, fb);
            const char *v0 = ln_table_cell(&a->acc, j, va), *v1 = ln_table_cell(&b->acc, i, vb);
            int ulp_changed = (isnan(u0) != isnan(u1)) || (!isnan(u0) && fabs(u1 - u0) > 0.01 * fmax(fabs(u0), 0.5));
            if (ulp_changed || strcmp(v0, v1) || f0 != f1) {
                if (!changes++) printf("\naccuracy changes (max_ulp beyond 1%%, non-finite count or verdict):\n");
                printf("  %-34s %-12s D=%-6s eps=%-8g max_ulp %-9.4g -> %-9.4g", ln_table_cell(&b->acc, i, kb[0]),
                       ln_table_cell(&b->acc, i, kb[2]), ln_table_cell(&b->acc, i, kb[3]),
                       ln_table_num(&b->acc, i, kb[4]), u0, u1);
                if (f0 != f1) printf(" nonfinite %g -> %g", f0, f1);
                if (strcmp(v0, v1)) printf(" verdict %s -> %s", *v0 ? v0 : "-", *v1 ? v1 : "-");
                putchar('\n');
            }
            break;
        }
    if (!changes)
        printf("\naccuracy: no change in max_ulp (beyond 1%%), non-finite counts or verdicts over %d common cases\n",
               matched);
}

#define MAX_OPS 32

/* "OP: geomean ratio over N kernel benchmarks: ..."; op NULL for a run of LayerNorm alone. */
static void print_tally(const char *op, const ln_tally *t)
{
    if (op) printf("%s: ", op);
    printf("geomean ratio over %d kernel benchmarks: %.3f; %d slower, %d faster, %d inconclusive, %d same", t->nlog,
           exp(t->log_sum / t->nlog), t->slower, t->faster, t->inconclusive, t->same);
    putchar('\n');
}

static const char *default_out(const char *new0, char *buf, size_t n)
{
    if (ln_path_is_dir(new0)) snprintf(buf, n, "%s/compare.csv", new0);
    else {
        snprintf(buf, n, "%s", new0);
        char *slash = strrchr(buf, '/');
        snprintf(slash ? slash + 1 : buf, n - (slash ? (size_t)(slash + 1 - buf) : 0), "compare.csv");
    }
    return buf;
}

/* lnbench compare --kernels A,B RUN: two kernels of one run, case by case. */
static int duel(const ln_compare_opts *o)
{
    char a[128], b[128];
    const char *comma = strchr(o->kernels, ',');
    if (!comma || strchr(comma + 1, ',') || comma == o->kernels || !comma[1]) {
        fprintf(stderr, "lnbench: compare: --kernels takes two kernels, A,B\n");
        return LN_EXIT_USAGE;
    }
    snprintf(a, sizeof a, "%.*s", (int)(comma - o->kernels), o->kernels);
    snprintf(b, sizeof b, "%s", comma + 1);
    ln_duel d[512];
    size_t n = ln_duel_rows(o->new_[0], a, b, d, 512);
    if (!n) {
        fprintf(stderr, "lnbench: compare: %s has no case timed for both %s and %s (same D, regime and threads)\n",
                o->new_[0], a, b);
        return LN_EXIT_USAGE;
    }
    printf("%s against %s in %s: median GB/s over repetitions; p: two-sided Mann-Whitney U, Holm-adjusted over the "
           "%zu cases\n\n%-7s %7s %7s %9s %9s %7s %9s  %s\n",
           b, a, o->new_[0], n, "regime", "D", "threads", "A", "B", "B / A", "p (adj)", "verdict");
    for (size_t i = 0; i < n; i++) {
        double ratio = d[i].mb / d[i].ma;
        const char *v = d[i].p_adj < LN_P_SIGNIFICANT ? (ratio > 1 ? b : a) : NULL;
        char verdict[160];
        if (v) snprintf(verdict, sizeof verdict, "%s faster by %.0f%%", v, 100 * (fmax(ratio, 1 / ratio) - 1));
        else if (!d[i].tested)
            snprintf(verdict, sizeof verdict, "inconclusive (%zu and %zu repetitions cannot tell)", d[i].na, d[i].nb);
        else snprintf(verdict, sizeof verdict, "no significant difference");
        printf("%-7s %7.0f %7d %9.4g %9.4g %7.3f %9.3g  %s\n", d[i].regime, d[i].D, d[i].threads, d[i].ma, d[i].mb,
               ratio, d[i].p_adj, verdict);
    }
    return 0;
}

/* The kernel benchmarks of BASE that NEW lacks (a kernel or a whole op run missing); prints them. */
static size_t missing_in_new(ln_timing_run *A, ln_timing_run *B, int quiet)
{
    size_t n = 0;
    for (size_t i = 0; i < A->ns; i++) {
        ln_series *sa = &A->s[i];
        if (sa->probe || ln_find_series(B, sa->op, sa->name)) continue;
        if (!quiet && n < 12) fprintf(stderr, "  %s %s\n", sa->op, sa->name);
        n++;
    }
    if (!quiet && n > 12) fprintf(stderr, "  ... (%zu in all)\n", n);
    return n;
}

int ln_compare(const ln_compare_opts *o)
{
    if (o->kernels) return duel(o);
    ln_timing_run A, B;
    if (!ln_timing_load(&A, o->base, o->nbase, o->allow_missing)) return ln_timing_free(&A), LN_EXIT_USAGE;
    if (!ln_timing_load(&B, o->new_, o->nnew, o->allow_missing))
        return ln_timing_free(&A), ln_timing_free(&B), LN_EXIT_USAGE;
    if (strcmp(A.cpu, B.cpu) && !o->cross_machine) {
        fprintf(stderr,
                "lnbench: compare: the runs are from different CPUs ('%s' and '%s'): their GB/s do not compare; "
                "--cross-machine compares fractions of each machine's limit instead\n",
                A.cpu, B.cpu);
        ln_timing_free(&A), ln_timing_free(&B);
        return LN_EXIT_USAGE;
    }
    /* a new run that lost kernels or a whole op run would otherwise pass unseen */
    size_t lost = missing_in_new(&A, &B, 1);
    if (lost && !o->allow_missing) {
        fprintf(stderr, "lnbench: compare: %s lacks %zu kernel benchmark%s of %s:\n", B.where, lost,
                lost == 1 ? "" : "s", A.where);
        missing_in_new(&A, &B, 0);
        fprintf(stderr, "(a timing file or kernel missing; --allow-missing compares what both have)\n");
        ln_timing_free(&A), ln_timing_free(&B);
        return LN_EXIT_USAGE;
    }
    char out_default[1200];
    const char *out = o->out_csv ? o->out_csv : default_out(o->new_[0], out_default, sizeof out_default);
    const char *unit = o->cross_machine ? "fraction of limit" : "GB/s";

    /* every benchmark in both runs, probes first within an op; the kernels' tests corrected together */
    const char *ops[MAX_OPS];
    size_t nops = 0;
    for (size_t i = 0; i < B.ns; i++) ln_add_unique(ops, &nops, MAX_OPS, B.s[i].op);
    ln_sort_ops(ops, nops);
    ln_cmp_row *rows = calloc(B.ns + 1, sizeof *rows);
    if (!rows) ln_die("out of memory");
    size_t nrows = 0, nk = 0, unmatched = 0;
    for (size_t g = 0; g < nops; g++)
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < B.ns; i++) {
                ln_series *sb = &B.s[i], *sa = ln_find_series(&A, sb->op, sb->name);
                if (sb->probe != !pass || strcmp(sb->op, ops[g])) continue;
                if (!sa) {
                    unmatched += !sb->probe;
                    continue;
                }
                double la = 1, lb = 1;
                if (o->cross_machine) {
                    la = ln_timing_limit(&A, sa->regime, sa->op), lb = ln_timing_limit(&B, sb->regime, sb->op);
                    if (isnan(la) || isnan(lb)) {
                        printf("%s %s: no probe of this regime in both runs: not compared\n", sb->op, sb->name);
                        continue;
                    }
                }
                ln_cmp_pair(&rows[nrows], sa, sb, la, lb);
                nk += !sb->probe;
                nrows++;
            }
    if (!nk) {
        fprintf(stderr, "lnbench: compare: no kernel benchmark is in both runs\n");
        free(rows), ln_timing_free(&A), ln_timing_free(&B);
        return LN_EXIT_USAGE;
    }
    ln_cmp_judge_apart(rows, nrows, o->threshold);

    ln_outfile csv;
    ln_out_open(&csv, out);
    ln_schema_write_header(csv.f, LN_SCHEMA_CMP);
    for (size_t i = 0; i < nrows; i++) {
        const ln_cmp_row *c = &rows[i];
        ln_csv_row row;
        ln_row_start(&row, LN_SCHEMA_CMP);
        ln_row_text(&row, LNC_CMP_kernel, c->b->kernel);
        ln_row_text(&row, LNC_CMP_benchmark, c->b->name);
        ln_row_text(&row, LNC_CMP_regime, c->b->regime);
        ln_row_count(&row, LNC_CMP_n_base, c->a->n);
        ln_row_count(&row, LNC_CMP_n_new, c->b->n);
        ln_row_num(&row, LNC_CMP_base, c->ma);
        ln_row_num(&row, LNC_CMP_new, c->mb);
        ln_row_num(&row, LNC_CMP_ratio, c->ratio);
        ln_row_num(&row, LNC_CMP_p_value, c->p);
        ln_row_num(&row, LNC_CMP_p_holm, c->p_adj);
        ln_row_text(&row, LNC_CMP_verdict, c->verdict);
        ln_row_text(&row, LNC_CMP_unit, unit);
        ln_row_text(&row, LNC_CMP_op, c->b->op);
        ln_row_write(csv.f, &row);
    }
    ln_out_commit(&csv);

    printf("base: %s (commit %s, %s)\nnew:  %s (commit %s, %s)\n", A.where, *A.commit ? A.commit : "?", A.cpu, B.where,
           *B.commit ? B.commit : "?", B.cpu);
    ln_compare_tuning_note(o->base, o->nbase, o->new_, o->nnew);
    printf(
        "%s: median over repetitions; ratio = new / base (> 1: new is faster); p: two-sided Mann-Whitney U,\n"
        "Holm-adjusted over the %zu kernel benchmarks (so that all of them together raise a false alarm less than\n"
        "%.0f%% of the time). slower / faster: beyond +-%.0f%% with adjusted p < %.2f; inconclusive: beyond +-%.0f%%\n"
        "but with too few repetitions for any p to reach that; same: otherwise.\n",
        unit, nk, 100 * LN_P_SIGNIFICANT, 100 * o->threshold, LN_P_SIGNIFICANT, 100 * o->threshold);
    const char *red = o->color ? "\033[31m" : "", *green = o->color ? "\033[32m" : "",
               *yellow = o->color ? "\033[33m" : "", *reset = o->color ? "\033[0m" : "";
#define COLOUR(v) (!strcmp(v, "slower") ? red : !strcmp(v, "faster") ? green : !strcmp(v, "inconclusive") ? yellow : "")

    /* the roll-up first: one line per kernel, slowest first */
    ln_tally *per_k = calloc(nrows + 1, sizeof *per_k), all = {0}, per_op[MAX_OPS];
    memset(per_op, 0, sizeof per_op);
    if (!per_k) ln_die("out of memory");
    size_t nker = ln_cmp_rollup(rows, nrows, ops, nops, per_k, &all, per_op);
    printf("\nper kernel: geomean ratio over its benchmarks, slowest first\n%-14s %-44s %8s %6s %6s %6s %6s %6s  %s\n",
           "op", "kernel", "geomean", "cases", "slower", "faster", "incon.", "same", "verdict");
    for (size_t k = 0; k < nker; k++) {
        const ln_tally *t = &per_k[k];
        const char *v = ln_tally_verdict(t);
        if (o->only_changed && !strcmp(v, "same")) continue;
        printf("%-14s %-44s %8.3f %6d %6d %6d %6d %6d  %s%s%s\n", t->op, t->kernel, exp(t->log_sum / t->nlog), t->nlog,
               t->slower, t->faster, t->inconclusive, t->same, COLOUR(v), v, reset);
    }

    /* then each benchmark (with --only-changed, those whose verdict is not "same") */
    size_t shown = 0;
    for (size_t g = 0; g < nops; g++) {
        int op_header = 0;
        for (int pass = 0; pass < 2; pass++) {
            int header = 0;
            for (size_t i = 0; i < nrows; i++) {
                const ln_cmp_row *c = &rows[i];
                if (c->b->probe != !pass || strcmp(c->b->op, ops[g])) continue;
                if (o->only_changed && !strcmp(c->verdict, "same")) continue;
                if (!op_header++ && (nops > 1 || strcmp(ops[g], "layernorm")))
                    printf("\n%s (%s):\n", ln_op_title(ops[g]), ops[g]);
                if (!header++)
                    printf("\n%-48s %-6s %9s %9s %7s %8s %8s  %s\n", pass ? "kernel benchmark" : "probe", "regime",
                           "base", "new", "ratio", "p", "p (adj)", "verdict");
                printf("%-48s %-6s %9.4g %9.4g %7.3f %8.3g %8.3g  %s%s%s\n", c->b->name, c->b->regime, c->ma, c->mb,
                       c->ratio, c->p, c->p_adj, COLOUR(c->verdict), c->verdict, reset);
                shown++;
            }
        }
    }
    if (o->only_changed && !shown) printf("\nevery benchmark: same\n");
    putchar('\n');
    for (size_t g = 0; nops > 1 && g < nops; g++)
        if (per_op[g].nlog) print_tally(ops[g], &per_op[g]);
    print_tally(nops > 1 ? "all ops" : NULL, &all);
    if (unmatched) printf("%zu kernel benchmarks in the new run only: not compared\n", unmatched);
    if (lost) printf("%zu kernel benchmarks of the base run missing from the new one (--allow-missing)\n", lost);
    for (size_t i = 0; i < nrows; i++)
        if (!rows[i].b->probe && !strcmp(rows[i].verdict, "slower"))
            printf("%sslower%s: %s %s (ratio %.3f, adjusted p %.2g)\n", red, reset, rows[i].b->op, rows[i].b->name,
                   rows[i].ratio, rows[i].p_adj);
    /* the most repetitions any inconclusive benchmark had (the smallest p it could reach) */
    size_t incon_a = 0, incon_b = 0;
    for (size_t i = 0; i < nrows; i++)
        if (!rows[i].b->probe && !strcmp(rows[i].verdict, "inconclusive") &&
            rows[i].a->n + rows[i].b->n > incon_a + incon_b)
            incon_a = rows[i].a->n, incon_b = rows[i].b->n;
    if (all.inconclusive)
        printf("%sinconclusive%s: %d kernel benchmark%s moved beyond +-%.0f%%, but with at most %zu and %zu "
               "repetitions the smallest p is %.2g, above %.2g (%.2f over %zu tests): time %d or more repetitions a "
               "side (--benchmark_repetitions) to tell\n",
               yellow, reset, all.inconclusive, all.inconclusive == 1 ? "" : "s", 100 * o->threshold, incon_a, incon_b,
               ln_mann_whitney_min_p(incon_a, incon_b), LN_P_SIGNIFICANT / (double)nk, LN_P_SIGNIFICANT, nk,
               ln_reps_needed(LN_P_SIGNIFICANT, nk));
    accuracy_changes(&A, &B);
    printf("\nwrote %s\n", out);
    int status = all.slower ? 1 : all.inconclusive ? LN_EXIT_INCONCLUSIVE : 0;
    printf("compare: %s\n", status == 1   ? "slower (exit 1)"
                            : status == 0 ? "no kernel slower (exit 0)"
                                          : "inconclusive (exit 3)");
    free(per_k), free(rows), ln_timing_free(&A), ln_timing_free(&B);
    return status;
}
