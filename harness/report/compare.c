#include "compare.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "outfile.h"
#include "results.h"
#include "stats.h"
#include "table.h"
#include "tuning_notes.h"
#include "views.h"

#define P_SIGNIFICANT 0.05
#define MAXREP 256
#define MAXPATHS 64

/* A benchmark is one (op, name) pair: the op of the run it came from is part of the key, so
 * that rows of different ops (each op run's own probes, above all) never pair up or pool. */
typedef struct {
    char op[32];
    char name[256]; /* Google Benchmark's run name without "/real_time" */
    char kernel[96];
    char regime[16];
    int probe;
    int bench; /* index of the bench CSV beside its JSON in run.bench, -1 for none */
    size_t n;
    double gbps[MAXREP];
} series;

typedef struct {
    char where[1024]; /* what was loaded, for messages */
    char cpu[256], commit[64], cpu_from[1024];
    series *s;
    size_t ns, cap, reps;
    ln_table *bench; /* the bench CSV beside each JSON read (bench.csv, ops/bench-OP.csv) */
    size_t nbench, bench_cap;
    ln_table acc;
    int have_acc;
    char *acc_path[4 * MAXPATHS]; /* the accuracy files beside each path given, merged into acc */
    size_t nacc;
    int acc_read[MAXPATHS]; /* path i's folder's accuracy files are in acc_path */
} run;

static series *find_series(run *r, const char *op, const char *name)
{
    for (size_t i = 0; i < r->ns; i++)
        if (!strcmp(r->s[i].name, name) && !strcmp(r->s[i].op, op)) return &r->s[i];
    return NULL;
}

/* Regime of a benchmark: from the bench CSV beside its JSON (kernel, D, rows; probes by bytes),
 * else by the size rule of lnbench bench (<= 8 MiB cache, >= 64 MiB memory). */
static void set_regime(run *r, series *s)
{
    snprintf(s->regime, sizeof s->regime, "-");
    const char *slash = strchr(s->name, '/');
    if (!slash) return;
    double D = 0, rows = 0, bytes = 0;
    const char *p;
    if ((p = strstr(slash, "/D:"))) D = strtod(p + 3, NULL);
    if ((p = strstr(slash, "/rows:"))) rows = strtod(p + 6, NULL);
    if ((p = strstr(slash, "/bytes:"))) {
        char *end;
        bytes = strtod(p + 7, &end);
        bytes *= *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 1;
    }
    if (s->bench >= 0) {
        const ln_table *t = &r->bench[s->bench];
        int ck = ln_table_col(t, "kernel"), cD = ln_table_col(t, "D"), cr = ln_table_col(t, "rows"),
            cb = ln_table_col(t, "bytes"), cg = ln_table_col(t, "regime");
        for (size_t i = 0; i < t->rows; i++) {
            if (strcmp(ln_table_cell(t, i, ck), s->kernel)) continue;
            int same = s->probe ? ln_table_num(t, i, cb) == bytes
                                : ln_table_num(t, i, cD) == D && ln_table_num(t, i, cr) == rows;
            if (same) {
                snprintf(s->regime, sizeof s->regime, "%s", ln_table_cell(t, i, cg));
                return;
            }
        }
    }
    if (bytes == 0 && D > 0 && rows > 0) { /* a kernel: x is rows x D elements of its dtype */
        double size = strstr(s->kernel, "f64") ? 8 : strstr(s->kernel, "f32") ? 4 : strstr(s->kernel, "f16") ? 2 : 0;
        bytes = D * rows * size;
    }
    if (bytes > 0)
        snprintf(s->regime, sizeof s->regime, "%s",
                 bytes <= 8.0 * 1048576    ? "cache"
                 : bytes >= 64.0 * 1048576 ? "memory"
                                           : "mixed");
}

/* The op of a benchmark of the JSON at path: a kernel's op column in the bench CSV beside it
 * (a merged bench.json holds every op's kernels), else the op the file is named after
 * (ops/bench-rmsnorm.json), else LayerNorm's (bench.json: make bench's LayerNorm run). Probes
 * belong to the run they were timed in. */
static void op_of(const char *path, const ln_table *csv, const char *kernel, int probe, char *op, size_t n)
{
    int ck = csv ? ln_table_col(csv, "kernel") : -1;
    for (size_t i = 0; !probe && csv && i < csv->rows; i++)
        if (!strcmp(ln_table_cell(csv, i, ck), kernel)) {
            snprintf(op, n, "%s", ln_row_op(csv, i));
            return;
        }
    const char *file = strrchr(path, '/');
    file = file ? file + 1 : path;
    if (!strncmp(file, "bench-", 6) && strstr(file, ".json"))
        snprintf(op, n, "%.*s", (int)(strstr(file, ".json") - file - 6), file + 6);
    else snprintf(op, n, "layernorm");
}

/* One bench JSON (Google Benchmark's format) and the bench CSV beside it, when present. */
static int load_json(run *r, const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        fprintf(stderr, "lnbench: compare: %s: %s (line %d)\n", path, jerr.text, jerr.line);
        return 0;
    }
    json_t *ctx = json_object_get(root, "context"), *b = json_object_get(root, "benchmarks");
    if (!json_is_array(b)) {
        fprintf(stderr, "lnbench: compare: %s is not a Google Benchmark JSON (no \"benchmarks\" list)\n", path);
        json_decref(root);
        return 0;
    }
    const char *cpu = json_string_value(json_object_get(ctx, "cpu_model"));
    const char *commit = json_string_value(json_object_get(ctx, "git_commit"));
    if (cpu && *r->cpu && strcmp(cpu, r->cpu)) { /* one median over two machines would mean neither */
        fprintf(stderr,
                "lnbench: compare: %s is from CPU '%s', %s from '%s': repetitions of different machines are not "
                "pooled; compare them as separate runs (--cross-machine)\n",
                path, cpu, r->cpu_from, r->cpu);
        json_decref(root);
        return 0;
    }
    if (cpu && !*r->cpu)
        snprintf(r->cpu, sizeof r->cpu, "%s", cpu), snprintf(r->cpu_from, sizeof r->cpu_from, "%s", path);
    if (commit && !*r->commit) snprintf(r->commit, sizeof r->commit, "%s", commit);
    if (r->nbench == r->bench_cap) {
        r->bench_cap = r->bench_cap ? 2 * r->bench_cap : 8;
        ln_table *bigger = realloc(r->bench, r->bench_cap * sizeof *r->bench);
        if (!bigger) ln_die("out of memory");
        r->bench = bigger;
    }
    char *csv_path = ln_csv_beside(path);
    int bench = ln_table_read(csv_path, &r->bench[r->nbench]) ? (int)r->nbench++ : -1;
    free(csv_path);
    const ln_table *csv = bench >= 0 ? &r->bench[bench] : NULL;
    size_t i;
    json_t *e;
    json_array_foreach(b, i, e)
    {
        const char *type = json_string_value(json_object_get(e, "run_type"));
        const char *name = json_string_value(json_object_get(e, "run_name"));
        if (!type || strcmp(type, "iteration") || !name || json_is_true(json_object_get(e, "error_occurred"))) continue;
        double bps = json_number_value(json_object_get(e, "bytes_per_second"));
        if (!(bps > 0)) continue;
        char key[256], kernel[96], op[32];
        snprintf(key, sizeof key, "%s", name);
        char *rt = strstr(key, "/real_time");
        if (rt) *rt = 0;
        snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(key, "/"), key);
        op_of(path, csv, kernel, ln_is_probe(kernel), op, sizeof op);
        series *s = find_series(r, op, key);
        if (!s) {
            if (r->ns == r->cap) {
                r->cap = r->cap ? 2 * r->cap : 64;
                series *bigger = realloc(r->s, r->cap * sizeof *r->s);
                if (!bigger) ln_die("out of memory");
                r->s = bigger;
            }
            s = &r->s[r->ns++];
            memset(s, 0, sizeof *s);
            snprintf(s->op, sizeof s->op, "%s", op);
            snprintf(s->name, sizeof s->name, "%s", key);
            snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
            s->probe = ln_is_probe(kernel), s->bench = bench;
        }
        if (s->n < MAXREP) s->gbps[s->n++] = bps / 1e9, r->reps++;
    }
    json_decref(root);
    return 1;
}

/* The accuracy files beside path i (accuracy.csv and the op runs' ops/accuracy-OP.csv): those of
 * its first folder. */
static void add_accuracy(run *r, const char *dir, size_t path_index)
{
    if (path_index >= MAXPATHS || r->acc_read[path_index]) return;
    size_t n = ln_results_files(dir, "accuracy.csv", r->acc_path + r->nacc, 4 * MAXPATHS - r->nacc);
    r->nacc += n, r->acc_read[path_index] = n > 0;
}

/* Every bench JSON of a results folder (bench.json, the op runs' ops/bench-OP.json) and its
 * accuracy files (the first folder's of each path given). Returns how many JSONs were read, -1
 * when one was bad. */
static int load_folder(run *r, const char *dir, size_t path_index)
{
    char *json[MAXPATHS];
    size_t n = ln_results_files(dir, "bench.json", json, MAXPATHS);
    int loaded = (int)n;
    for (size_t i = 0; i < n; i++) {
        if (loaded > 0 && !load_json(r, json[i])) loaded = -1;
        free(json[i]);
    }
    if (loaded > 0) add_accuracy(r, dir, path_index);
    return loaded;
}

/* A bench JSON (that file alone); a results folder; or a folder of runs (each sub-folder a
 * results folder), whose repetitions are pooled (scripts/compare-commits.sh writes one run per
 * alternation). */
static int load_path(run *r, const char *path, size_t path_index)
{
    char dir[1024];
    if (!ln_path_is_dir(path)) {
        if (!ln_path_exists(path)) return fprintf(stderr, "lnbench: compare: %s does not exist\n", path), 0;
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        else snprintf(dir, sizeof dir, ".");
        if (!load_json(r, path)) return 0;
        add_accuracy(r, dir, path_index);
        return 1;
    }
    int loaded = load_folder(r, path, path_index);
    if (loaded) return loaded > 0;
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        snprintf(dir, sizeof dir, "%s/%s", path, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && ln_path_is_dir(dir) && loaded >= 0) {
            int one = load_folder(r, dir, path_index);
            loaded = one < 0 ? -1 : loaded + one;
        }
        free(names[i]);
    }
    free(names);
    if (loaded == 0) fprintf(stderr, "lnbench: compare: %s has no bench.json (nor sub-folders with one)\n", path);
    return loaded > 0;
}

/* One side of the comparison: every path's repetitions pooled (one CPU model), their
 * accuracy.csv files merged (lnbench merge's rules). */
static int load_run(run *r, const char *const *paths, size_t n, int allow_missing)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(r->where);
        snprintf(r->where + len, sizeof r->where - len, "%s%s", i ? " + " : "", paths[i]);
        size_t before = r->reps;
        if (!load_path(r, paths[i], i)) return 0;
        if (r->reps == before && n > 1)
            return fprintf(stderr, "lnbench: compare: %s has no timed repetition\n", paths[i]), 0;
    }
    if (!r->ns) return fprintf(stderr, "lnbench: compare: %s has no timed repetition\n", r->where), 0;
    for (size_t i = 0; i < r->ns; i++) set_regime(r, &r->s[i]);
    if (r->nacc == 1) r->have_acc = ln_table_read(r->acc_path[0], &r->acc);
    else if (r->nacc > 1)
        ln_merge_read(&r->acc, (const char *const *)r->acc_path, r->nacc, allow_missing), r->have_acc = 1;
    return 1;
}

static void free_run(run *r)
{
    free(r->s);
    for (size_t i = 0; i < r->nbench; i++) ln_table_free(&r->bench[i]);
    free(r->bench);
    for (size_t i = 0; i < r->nacc; i++) free(r->acc_path[i]);
    ln_table_free(&r->acc);
}

/* Machine limit per regime from a run's own probe repetitions: the best probe median of the op's
 * run (each op run times its own probes), of any run when that one has none (a merged
 * bench.json). */
static double run_limit(run *r, const char *regime, const char *op)
{
    double best = NAN;
    for (size_t i = 0; i < r->ns; i++) {
        series *s = &r->s[i];
        if (!s->probe || strcmp(s->regime, regime) || (op && strcmp(s->op, op))) continue;
        double v[MAXREP];
        memcpy(v, s->gbps, s->n * sizeof *v);
        double m = ln_median(v, s->n);
        if (!(m <= best)) best = m;
    }
    return isnan(best) && op ? run_limit(r, regime, NULL) : best;
}

static void accuracy_changes(run *a, run *b)
{
    if (!a->have_acc || !b->have_acc) {
        printf("\naccuracy: %s\n",
               !a->have_acc && !b->have_acc ? "no accuracy.csv in either run" : "accuracy.csv in one run only");
        return;
    }
    static const char *const key[] = {"kernel", "dtype", "dist", "D", "eps"};
    int ka[5], kb[5];
    for (int i = 0; i < 5; i++) ka[i] = ln_table_col(&a->acc, key[i]), kb[i] = ln_table_col(&b->acc, key[i]);
    int ua = ln_table_col(&a->acc, "max_ulp"), ub = ln_table_col(&b->acc, "max_ulp"),
        va = ln_table_col(&a->acc, "verdict"), vb = ln_table_col(&b->acc, "verdict"),
        fa = ln_table_col(&a->acc, "nonfinite"), fb = ln_table_col(&b->acc, "nonfinite");
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

/* The verdicts over kernel benchmarks (probes are yardsticks, not gated) and their geomean. */
typedef struct {
    int slower, faster, same, unmatched, nlog;
    double log_sum;
    size_t min_n; /* fewest repetitions on a side, probes included; 0 before the first */
} tally;

typedef struct {
    const series *s;
    double ratio;
} slow_row;

static void count(tally *t, const char *verdict, double ratio)
{
    t->slower += !strcmp(verdict, "slower"), t->faster += !strcmp(verdict, "faster"),
        t->same += !strcmp(verdict, "same");
    if (ratio > 0 && isfinite(ratio)) t->log_sum += log(ratio), t->nlog++;
}

/* "OP: geomean ratio over N kernel benchmarks: ..."; op NULL for a run of LayerNorm alone. */
static void print_tally(const char *op, const tally *t)
{
    if (op) printf("%s: ", op);
    printf("geomean ratio over %d kernel benchmarks: %.3f; %d slower, %d faster, %d same", t->nlog,
           exp(t->log_sum / t->nlog), t->slower, t->faster, t->same);
    if (t->unmatched) printf("; %d in the new run only", t->unmatched);
    putchar('\n');
}

int ln_compare(const ln_compare_opts *o)
{
    run A, B;
    if (!load_run(&A, o->base, o->nbase, o->allow_missing)) return free_run(&A), LN_EXIT_USAGE;
    if (!load_run(&B, o->new_, o->nnew, o->allow_missing)) return free_run(&A), free_run(&B), LN_EXIT_USAGE;
    if (strcmp(A.cpu, B.cpu) && !o->cross_machine) {
        fprintf(stderr,
                "lnbench: compare: the runs are from different CPUs ('%s' and '%s'): their GB/s do not compare; "
                "--cross-machine compares fractions of each machine's limit instead\n",
                A.cpu, B.cpu);
        free_run(&A), free_run(&B);
        return LN_EXIT_USAGE;
    }
    char out_default[1200];
    const char *out = o->out_csv;
    if (!out) {
        if (ln_path_is_dir(o->new_[0])) snprintf(out_default, sizeof out_default, "%s/compare.csv", o->new_[0]);
        else {
            snprintf(out_default, sizeof out_default, "%s", o->new_[0]);
            char *slash = strrchr(out_default, '/');
            snprintf(slash ? slash + 1 : out_default,
                     sizeof out_default - (slash ? (size_t)(slash + 1 - out_default) : 0), "compare.csv");
        }
        out = out_default;
    }
    ln_outfile csv;
    ln_out_open(&csv, out);
    fprintf(csv.f, "kernel,benchmark,regime,n_base,n_new,base,new,ratio,p_value,verdict,unit,op\n");
    const char *unit = o->cross_machine ? "fraction of limit" : "GB/s";
    printf("base: %s (commit %s, %s)\nnew:  %s (commit %s, %s)\n", A.where, *A.commit ? A.commit : "?", A.cpu, B.where,
           *B.commit ? B.commit : "?", B.cpu);
    ln_compare_tuning_note(o->base, o->nbase, o->new_, o->nnew);
    printf("%s: median over repetitions; ratio = new / base (> 1: new is faster); p: two-sided Mann-Whitney U;\n"
           "verdict: beyond +-%.0f%% with p < %.2f\n",
           unit, 100 * o->threshold, P_SIGNIFICANT);
    const char *red = o->color ? "\033[31m" : "", *green = o->color ? "\033[32m" : "",
               *reset = o->color ? "\033[0m" : "";
    /* one group per op, in reading order; each its probes first, apart, then its kernels */
    const char *ops[MAX_OPS];
    size_t nops = 0;
    for (size_t i = 0; i < B.ns; i++) ln_add_unique(ops, &nops, MAX_OPS, B.s[i].op);
    ln_sort_ops(ops, nops);
    tally all = {0}, per_op[MAX_OPS] = {{0}};
    slow_row *slow = calloc(B.ns + 1, sizeof *slow); /* the slower kernel benchmarks, named at the end */
    size_t nslow = 0;
    if (!slow) ln_die("out of memory");
    for (size_t g = 0; g < nops; g++) {
        if (nops > 1 || strcmp(ops[g], "layernorm")) printf("\n%s (%s):\n", ln_op_title(ops[g]), ops[g]);
        for (int pass = 0; pass < 2; pass++) {
            int header = 0;
            for (size_t i = 0; i < B.ns; i++) {
                series *sb = &B.s[i], *sa = find_series(&A, sb->op, sb->name);
                if (sb->probe != !pass || strcmp(sb->op, ops[g])) continue;
                if (!sa) {
                    all.unmatched++;
                    continue;
                }
                if (!header++)
                    printf("\n%-48s %-6s %9s %9s %7s %7s  %s\n", pass ? "kernel benchmark" : "probe", "regime", "base",
                           "new", "ratio", "p", "verdict");
                double va[MAXREP], vb[MAXREP];
                double la = 1, lb = 1;
                if (o->cross_machine) {
                    la = run_limit(&A, sa->regime, sa->op), lb = run_limit(&B, sb->regime, sb->op);
                    if (isnan(la) || isnan(lb)) {
                        printf("%-48s %-6s no probe of this regime in both runs: not compared\n", sb->name, sb->regime);
                        continue;
                    }
                }
                for (size_t k = 0; k < sa->n; k++) va[k] = sa->gbps[k] / la;
                for (size_t k = 0; k < sb->n; k++) vb[k] = sb->gbps[k] / lb;
                double p = ln_mann_whitney_p(va, sa->n, vb, sb->n);
                double ma = ln_median(va, sa->n), mb = ln_median(vb, sb->n), ratio = mb / ma;
                const char *verdict = "same", *col = "";
                if (p < P_SIGNIFICANT && ratio < 1 - o->threshold) verdict = "slower", col = red;
                else if (p < P_SIGNIFICANT && ratio > 1 + o->threshold) verdict = "faster", col = green;
                if (!sb->probe) {
                    count(&all, verdict, ratio), count(&per_op[g], verdict, ratio);
                    if (!strcmp(verdict, "slower")) slow[nslow++] = (slow_row){sb, ratio};
                }
                if (sa->n < all.min_n || !all.min_n) all.min_n = sa->n;
                if (sb->n < all.min_n) all.min_n = sb->n;
                printf("%-48s %-6s %9.4g %9.4g %7.3f %7.3g  %s%s%s\n", sb->name, sb->regime, ma, mb, ratio, p, col,
                       verdict, reset);
                fprintf(csv.f, "%s,%s,%s,%zu,%zu,%.6g,%.6g,%.6g,%.6g,%s,%s,%s\n", sb->kernel, sb->name, sb->regime,
                        sa->n, sb->n, ma, mb, ratio, p, verdict, unit, sb->op);
            }
        }
    }
    ln_out_commit(&csv);
    if (!all.nlog) {
        fprintf(stderr, "lnbench: compare: no kernel benchmark is in both runs\n");
        free(slow), free_run(&A), free_run(&B);
        return LN_EXIT_USAGE;
    }
    putchar('\n');
    for (size_t g = 0; nops > 1 && g < nops; g++)
        if (per_op[g].nlog) print_tally(ops[g], &per_op[g]);
    print_tally(nops > 1 ? "all ops" : NULL, &all);
    for (size_t k = 0; k < nslow; k++)
        printf("%sslower%s: %s %s (ratio %.3f)\n", red, reset, slow[k].s->op, slow[k].s->name, slow[k].ratio);
    free(slow);
    int nlog = all.nlog;
    size_t min_n = all.min_n;
    if (nlog >= 10)
        printf("note: %d tests at p < %.2f: about %.1f would come out slower or faster by chance alone when nothing "
               "changed; trust a verdict that repeats\n",
               nlog, P_SIGNIFICANT, nlog * P_SIGNIFICANT);
    if (min_n < 5)
        printf("note: %zu repetitions on a side: the smallest p-value possible is %.2g, so nothing can be significant "
               "below 4 or 5 repetitions a side\n",
               min_n,
               2.0 / (min_n == 1   ? 2
                      : min_n == 2 ? 6
                      : min_n == 3 ? 20
                                   : 70));
    accuracy_changes(&A, &B);
    printf("\nwrote %s\n", out);
    free_run(&A), free_run(&B);
    return all.slower ? 1 : 0;
}
