#include "compare.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "columns.h"
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
        int ck = ln_table_column(t, LNC_BENCH_kernel), cD = ln_table_column(t, LNC_BENCH_D),
            cr = ln_table_column(t, LNC_BENCH_rows), cb = ln_table_column(t, LNC_BENCH_bytes),
            cg = ln_table_column(t, LNC_BENCH_regime);
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
    int ck = csv ? ln_table_column(csv, LNC_BENCH_kernel) : -1;
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

/* One benchmark in both runs: medians, ratio, the raw and Holm-adjusted p, the verdict. */
typedef struct {
    const series *a, *b;
    double ma, mb, ratio, p, p_adj, min_p;
    const char *verdict;
} cmp_row;

/* Per op (or all ops) and per kernel: the verdict counts and the geomean ratio. */
typedef struct {
    const char *op, *kernel;
    int slower, faster, inconclusive, same, nlog;
    double log_sum;
} tally;

static void count(tally *t, const cmp_row *c)
{
    t->slower += !strcmp(c->verdict, "slower"), t->faster += !strcmp(c->verdict, "faster");
    t->inconclusive += !strcmp(c->verdict, "inconclusive"), t->same += !strcmp(c->verdict, "same");
    if (c->ratio > 0 && isfinite(c->ratio)) t->log_sum += log(c->ratio), t->nlog++;
}

static const char *tally_verdict(const tally *t)
{
    return t->slower ? "slower" : t->faster ? "faster" : t->inconclusive ? "inconclusive" : "same";
}

/* "OP: geomean ratio over N kernel benchmarks: ..."; op NULL for a run of LayerNorm alone. */
static void print_tally(const char *op, const tally *t)
{
    if (op) printf("%s: ", op);
    printf("geomean ratio over %d kernel benchmarks: %.3f; %d slower, %d faster, %d inconclusive, %d same", t->nlog,
           exp(t->log_sum / t->nlog), t->slower, t->faster, t->inconclusive, t->same);
    putchar('\n');
}

/* The fewest repetitions a side at which the exact test can reach alpha / m. */
static int reps_needed(double alpha, size_t m)
{
    int k = 2;
    while (k < 64 && ln_mann_whitney_min_p((size_t)k, (size_t)k) >= alpha / (double)(m ? m : 1)) k++;
    return k;
}

/* The verdict of one benchmark: beyond the threshold and significant after the correction for
 * the number of tests; beyond it but with too few repetitions for any p to be significant:
 * inconclusive (a check that cannot fail says nothing); else same. */
static const char *verdict_of(const cmp_row *c, double threshold, size_t m)
{
    int beyond_down = c->ratio<1 - threshold, beyond_up = c->ratio> 1 + threshold;
    if (c->p_adj < P_SIGNIFICANT && beyond_down) return "slower";
    if (c->p_adj < P_SIGNIFICANT && beyond_up) return "faster";
    if ((beyond_down || beyond_up) && c->min_p * (double)m >= P_SIGNIFICANT) return "inconclusive";
    return "same";
}

/* Fills row c from two series (each side's values over la, lb: 1, or the machine limits). */
static void test_pair(cmp_row *c, const series *sa, const series *sb, double la, double lb)
{
    double va[MAXREP], vb[MAXREP];
    for (size_t k = 0; k < sa->n; k++) va[k] = sa->gbps[k] / la;
    for (size_t k = 0; k < sb->n; k++) vb[k] = sb->gbps[k] / lb;
    c->a = sa, c->b = sb;
    c->p = ln_mann_whitney_p(va, sa->n, vb, sb->n);
    c->min_p = ln_mann_whitney_min_p(sa->n, sb->n);
    c->ma = ln_median(va, sa->n), c->mb = ln_median(vb, sb->n), c->ratio = c->mb / c->ma;
}

/* Holm over the rows' p-values, then each row's verdict. */
static void judge(cmp_row *rows, size_t n, double threshold)
{
    double *p = calloc(n + 1, sizeof *p), *adj = calloc(n + 1, sizeof *adj);
    if (!p || !adj) ln_die("out of memory");
    for (size_t i = 0; i < n; i++) p[i] = rows[i].p;
    ln_holm(p, n, adj);
    for (size_t i = 0; i < n; i++) rows[i].p_adj = adj[i], rows[i].verdict = verdict_of(&rows[i], threshold, n);
    free(p), free(adj);
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
    run r;
    const char *paths[1] = {path};
    size_t n = 0;
    if (ln_path_is_dir(path)) { /* a folder without timings: nothing to say, quietly */
        char *json[MAXPATHS];
        size_t nj = ln_results_files(path, "bench.json", json, MAXPATHS);
        for (size_t i = 0; i < nj; i++) free(json[i]);
        if (!nj) return 0;
    }
    if (!load_run(&r, paths, 1, 1)) return free_run(&r), 0;
    cmp_row *rows = calloc(r.ns + 1, sizeof *rows);
    if (!rows) ln_die("out of memory");
    for (size_t i = 0; i < r.ns; i++) {
        const series *sa = &r.s[i];
        if (strcmp(sa->kernel, ka)) continue;
        double Da;
        int ta;
        name_shape(sa->name, &Da, &ta);
        for (size_t j = 0; j < r.ns; j++) {
            const series *sb = &r.s[j];
            double Db;
            int tb;
            name_shape(sb->name, &Db, &tb);
            if (strcmp(sb->kernel, kb) || Da != Db || ta != tb || strcmp(sa->regime, sb->regime)) continue;
            test_pair(&rows[n++], sa, sb, 1, 1);
            break;
        }
    }
    judge(rows, n, 0);
    size_t k = 0;
    for (; k < n && k < cap; k++) {
        ln_duel *d = &out[k];
        snprintf(d->regime, sizeof d->regime, "%s", rows[k].a->regime);
        name_shape(rows[k].a->name, &d->D, &d->threads);
        d->ma = rows[k].ma, d->mb = rows[k].mb, d->p = rows[k].p, d->p_adj = rows[k].p_adj;
        d->na = rows[k].a->n, d->nb = rows[k].b->n;
        d->tested = rows[k].min_p * (double)n < P_SIGNIFICANT;
    }
    free(rows), free_run(&r);
    return k;
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
        const char *v = d[i].p_adj < P_SIGNIFICANT ? (ratio > 1 ? b : a) : NULL;
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
static size_t missing_in_new(run *A, run *B, int quiet)
{
    size_t n = 0;
    for (size_t i = 0; i < A->ns; i++) {
        series *sa = &A->s[i];
        if (sa->probe || find_series(B, sa->op, sa->name)) continue;
        if (!quiet && n < 12) fprintf(stderr, "  %s %s\n", sa->op, sa->name);
        n++;
    }
    if (!quiet && n > 12) fprintf(stderr, "  ... (%zu in all)\n", n);
    return n;
}

int ln_compare(const ln_compare_opts *o)
{
    if (o->kernels) return duel(o);
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
    /* a new run that lost kernels or a whole op run would otherwise pass unseen */
    size_t lost = missing_in_new(&A, &B, 1);
    if (lost && !o->allow_missing) {
        fprintf(stderr, "lnbench: compare: %s lacks %zu kernel benchmark%s of %s:\n", B.where, lost,
                lost == 1 ? "" : "s", A.where);
        missing_in_new(&A, &B, 0);
        fprintf(stderr, "(a timing file or kernel missing; --allow-missing compares what both have)\n");
        free_run(&A), free_run(&B);
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
    cmp_row *rows = calloc(B.ns + 1, sizeof *rows), *kern = calloc(B.ns + 1, sizeof *kern);
    if (!rows || !kern) ln_die("out of memory");
    size_t nrows = 0, nk = 0, unmatched = 0;
    for (size_t g = 0; g < nops; g++)
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < B.ns; i++) {
                series *sb = &B.s[i], *sa = find_series(&A, sb->op, sb->name);
                if (sb->probe != !pass || strcmp(sb->op, ops[g])) continue;
                if (!sa) {
                    unmatched += !sb->probe;
                    continue;
                }
                double la = 1, lb = 1;
                if (o->cross_machine) {
                    la = run_limit(&A, sa->regime, sa->op), lb = run_limit(&B, sb->regime, sb->op);
                    if (isnan(la) || isnan(lb)) {
                        printf("%s %s: no probe of this regime in both runs: not compared\n", sb->op, sb->name);
                        continue;
                    }
                }
                test_pair(&rows[nrows], sa, sb, la, lb);
                if (!sb->probe) kern[nk++] = rows[nrows];
                nrows++;
            }
    if (!nk) {
        fprintf(stderr, "lnbench: compare: no kernel benchmark is in both runs\n");
        free(rows), free(kern), free_run(&A), free_run(&B);
        return LN_EXIT_USAGE;
    }
    judge(kern, nk, o->threshold); /* probes are yardsticks: judged apart, never gated */
    size_t nprobe = nrows - nk;
    cmp_row *probes = malloc((nprobe + 1) * sizeof *probes);
    if (!probes) ln_die("out of memory");
    for (size_t i = 0, q = 0; i < nrows; i++)
        if (rows[i].b->probe) probes[q++] = rows[i];
    judge(probes, nprobe, o->threshold);
    for (size_t i = 0, q = 0, k = 0; i < nrows; i++) rows[i] = rows[i].b->probe ? probes[q++] : kern[k++];
    free(probes), free(kern);

    ln_outfile csv;
    ln_out_open(&csv, out);
    ln_schema_write_header(csv.f, LN_SCHEMA_CMP);
    for (size_t i = 0; i < nrows; i++) {
        const cmp_row *c = &rows[i];
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
        unit, nk, 100 * P_SIGNIFICANT, 100 * o->threshold, P_SIGNIFICANT, 100 * o->threshold);
    const char *red = o->color ? "\033[31m" : "", *green = o->color ? "\033[32m" : "",
               *yellow = o->color ? "\033[33m" : "", *reset = o->color ? "\033[0m" : "";
#define COLOUR(v) (!strcmp(v, "slower") ? red : !strcmp(v, "faster") ? green : !strcmp(v, "inconclusive") ? yellow : "")

    /* the roll-up first: one line per kernel, slowest first */
    tally *per_k = calloc(nrows + 1, sizeof *per_k), all = {0}, per_op[MAX_OPS];
    memset(per_op, 0, sizeof per_op);
    size_t nker = 0;
    if (!per_k) ln_die("out of memory");
    for (size_t i = 0; i < nrows; i++) {
        const cmp_row *c = &rows[i];
        if (c->b->probe) continue;
        size_t k = 0;
        while (k < nker && (strcmp(per_k[k].kernel, c->b->kernel) || strcmp(per_k[k].op, c->b->op))) k++;
        if (k == nker) per_k[nker].kernel = c->b->kernel, per_k[nker].op = c->b->op, nker++;
        count(&per_k[k], c), count(&all, c);
        for (size_t g = 0; g < nops; g++)
            if (!strcmp(ops[g], c->b->op)) count(&per_op[g], c);
    }
    for (size_t a = 1; a < nker; a++)
        for (size_t b = a; b > 0 && per_k[b - 1].log_sum / per_k[b - 1].nlog > per_k[b].log_sum / per_k[b].nlog; b--) {
            tally t = per_k[b];
            per_k[b] = per_k[b - 1], per_k[b - 1] = t;
        }
    printf("\nper kernel: geomean ratio over its benchmarks, slowest first\n%-14s %-44s %8s %6s %6s %6s %6s %6s  %s\n",
           "op", "kernel", "geomean", "cases", "slower", "faster", "incon.", "same", "verdict");
    for (size_t k = 0; k < nker; k++) {
        const tally *t = &per_k[k];
        const char *v = tally_verdict(t);
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
                const cmp_row *c = &rows[i];
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
               ln_mann_whitney_min_p(incon_a, incon_b), P_SIGNIFICANT / (double)nk, P_SIGNIFICANT, nk,
               reps_needed(P_SIGNIFICANT, nk));
    accuracy_changes(&A, &B);
    printf("\nwrote %s\n", out);
    int status = all.slower ? 1 : all.inconclusive ? LN_EXIT_INCONCLUSIVE : 0;
    printf("compare: %s\n", status == 1   ? "slower (exit 1)"
                            : status == 0 ? "no kernel slower (exit 0)"
                                          : "inconclusive (exit 3)");
    free(per_k), free(rows), free_run(&A), free_run(&B);
    return status;
}
