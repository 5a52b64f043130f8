#include "defaults.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One tuned case of one machine: an entry of one file. */
typedef struct {
    const ln_tuning *t;
    const ln_tuning_entry *e;
} tuned_case;

/* Per machine: what tune chose where it beat the defaults (the tables of docs/tune.md). */
static void machine_table(FILE *out, const char *path, const ln_tuning *t)
{
    size_t kept = 0;
    fprintf(out, "### %s (%s; ISA cap %s)\n\n%s: tuned %s, commit %s, %.0f of %.0f s%s.\n\n", t->cpu_model,
            t->isa_features, t->isa_cap, path, t->date, t->git_commit, t->seconds_used, t->seconds_budget,
            t->complete ? "" : ", cut short by its budget");
    int header = 0;
    for (size_t i = 0; i < t->n; i++) {
        const ln_tuning_entry *e = &t->e[i];
        if (!e->significant) {
            kept++;
            continue;
        }
        if (!header++)
            fputs("| kernel | op | regime | threads | D | tunables chosen | gain over the defaults | p |\n"
                  "|---|---|---|---:|---:|---|---:|---:|\n",
                  out);
        char chosen[512];
        ln_tuning_values_text(e, e->value, chosen, sizeof chosen);
        fprintf(out, "| %s | %s | %s | %d | %zu | %s | %+.1f%% | %.2g (%d+%d) |\n", e->kernel, ln_op_name(e->op),
                e->regime, e->threads, e->D, chosen, 100 * e->gain, e->p_value, e->repetitions, e->repetitions);
    }
    fprintf(out, "%s%zu of %zu tuned cases kept their defaults.\n\n", header ? "\n" : "", kept, t->n);
}

/* A setting's rate over the defaults' in one tuned case: 1 for the defaults, the timed ratio
 * for a setting the search timed there, NaN where it was not timed. */
static double ratio_in(const ln_tuning_entry *e, const int *v)
{
    if (!memcmp(v, e->def, e->nparams * sizeof *v)) return 1;
    for (int i = 0; i < e->ntimed; i++)
        if (!memcmp(v, e->timed[i].v, e->nparams * sizeof *v)) return e->timed[i].vs_default;
    return NAN;
}

/* The best rate over the defaults' in a tuned case (1: nothing beat them). */
static double best_in(const ln_tuning_entry *e)
{
    double b = 1;
    for (int i = 0; i < e->ntimed; i++)
        if (e->timed[i].vs_default > b) b = e->timed[i].vs_default;
    return b;
}

/* Worst and mean loss of setting v over the cases (1 - its rate over the best's); the case of
 * the worst in *worst_at. Returns 0 when some case did not time v. */
static int losses(const tuned_case *c, size_t n, const int *v, double *worst, double *mean, size_t *worst_at)
{
    *worst = 0, *mean = 0, *worst_at = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ratio_in(c[i].e, v);
        if (!isfinite(r)) return 0;
        double loss = 1 - r / best_in(c[i].e);
        if (loss > *worst) *worst = loss, *worst_at = i;
        *mean += loss / (double)n;
    }
    return 1;
}

/* Per kernel (and op): the setting whose worst loss over every tuned case of every machine is
 * smallest, among those timed in all of them, beside the current defaults'. */
static void suggest(FILE *out, tuned_case *all, size_t n)
{
    fputs("| kernel | op | cases | defaults | their worst loss | suggested | its worst loss | mean loss: defaults, "
          "suggested |\n|---|---|---:|---|---|---|---|---:|\n",
          out);
    int *done = calloc(n ? n : 1, sizeof *done);
    tuned_case *same = malloc((n ? n : 1) * sizeof *same);
    if (!done || !same) ln_die("out of memory");
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        size_t m = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && !strcmp(all[j].e->kernel, all[i].e->kernel) && all[j].e->op == all[i].e->op &&
                all[j].e->nparams == all[i].e->nparams && !memcmp(all[j].e->def, all[i].e->def, sizeof all[i].e->def) &&
                !memcmp(all[j].e->name, all[i].e->name, sizeof all[i].e->name))
                same[m++] = all[j], done[j] = 1;
        const ln_tuning_entry *e0 = same[0].e;
        double dw, dm, bw = INFINITY, bm = INFINITY;
        size_t dat, bat = 0;
        const int *best = e0->def;
        losses(same, m, e0->def, &dw, &dm, &dat);
        for (size_t a = 0; a < m; a++)
            for (int t = 0; t < same[a].e->ntimed; t++) {
                const int *v = same[a].e->timed[t].v;
                double w, mean;
                size_t at;
                if (losses(same, m, v, &w, &mean, &at) && (w < bw - 1e-12 || (w < bw + 1e-12 && mean < bm)))
                    bw = w, bm = mean, bat = at, best = v;
            }
        if (!(dw > bw)) best = e0->def, bw = dw, bm = dm, bat = dat; /* keep the defaults unless better */
        char dtext[512], stext[512];
        ln_tuning_values_text(e0, e0->def, dtext, sizeof dtext);
        ln_tuning_values_text(e0, best, stext, sizeof stext);
        const ln_tuning_entry *wd = same[dat].e, *ws = same[bat].e;
        fprintf(out, "| %s | %s | %zu | %s | %.1f%% (%s, %s, D %zu) | %s | %.1f%% (%s, %s, D %zu) | %.1f%%, %.1f%% |\n",
                e0->kernel, ln_op_name(e0->op), m, dtext, 100 * dw, same[dat].t->machine_id, wd->regime, wd->D,
                best == e0->def ? "(the defaults)" : stext, 100 * bw, same[bat].t->machine_id, ws->regime, ws->D,
                100 * dm, 100 * bm);
    }
    free(done), free(same);
}

int ln_tune_defaults_report(char *const *paths, size_t n, FILE *out)
{
    ln_tuning *t = calloc(n ? n : 1, sizeof *t);
    if (!t) ln_die("out of memory");
    size_t ncases = 0;
    for (size_t i = 0; i < n; i++) {
        char err[600];
        if (ln_tuning_read(paths[i], &t[i], err, sizeof err) != 0) {
            for (size_t j = 0; j < i; j++) ln_tuning_free(&t[j]);
            free(t);
            ln_die_usage("--defaults-from: %s", err);
        }
        ncases += t[i].n;
    }
    fputs("## Tuned on each machine\n\n", out);
    for (size_t i = 0; i < n; i++) machine_table(out, paths[i], &t[i]);
    tuned_case *all = malloc((ncases ? ncases : 1) * sizeof *all);
    if (!all) ln_die("out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < t[i].n; j++) all[k++] = (tuned_case){&t[i], &t[i].e[j]};
    fputs("## Defaults for every machine\n\nLoss: a setting's rate below the best timed in a case (machine, "
          "regime, threads, D), from the searches' rounds; worst over the cases, where it happened. A setting is "
          "suggested only if every case timed it (its worst loss is then known). A loss is one search round "
          "against the best of a case's rounds, not an alternated comparison: the best of many noisy rounds "
          "is biased up, so a loss of 20% or less may be noise (two settings that run the same code "
          "differed by 19% on a Zen 5, docs/tune.md); the gains in the tables above are the tested ones.\n\n",
          out);
    suggest(out, all, k);
    free(all);
    for (size_t i = 0; i < n; i++) ln_tuning_free(&t[i]);
    free(t);
    return 0;
}
