#include "results.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "meta.h"
#include "merge.h"
#include "rows.h"
#include "stats.h"

/* ln_verdict_names: defined beside ln_judge (harness/measure/accuracy.c), which writes them. */

int ln_is_peer(const char *kernel) { return !strncmp(kernel, "ext-", 4); }
int ln_is_probe(const char *kernel) { return !strncmp(kernel, "probe-", 6); }

void ln_add_unique(const char **list, size_t *n, size_t cap, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], s)) return;
    if (*n < cap) list[(*n)++] = s;
}

/* dtypes widest first, regimes by size: the order a reader expects */
static int rank_of(const char *s, const char *const *order)
{
    for (int i = 0; order[i]; i++)
        if (!strcmp(s, order[i])) return i;
    return 99;
}
static void sort_by(const char **list, size_t n, const char *const *order)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && rank_of(list[j - 1], order) > rank_of(list[j], order); j--) {
            const char *t = list[j];
            list[j] = list[j - 1], list[j - 1] = t;
        }
}

char *ln_path_in(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0) ln_die("out of memory");
    return p;
}

size_t ln_results_files(const char *dir, const char *name, char **paths, size_t cap)
{
    size_t n = 0;
    char *own = ln_path_in(dir, name), *pattern;
    if (ln_path_exists(own) && n < cap) paths[n++] = own;
    else free(own);
    /* ops/accuracy-*.csv beside accuracy.csv: the stem, a dash, anything, the extension */
    const char *dot = strrchr(name, '.');
    int stem = dot ? (int)(dot - name) : (int)strlen(name);
    if (asprintf(&pattern, "%s/ops/%.*s-*%s", dir, stem, name, dot ? dot : "") < 0) ln_die("out of memory");
    glob_t g;
    memset(&g, 0, sizeof g);
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && n < cap; i++) {
            /* the op between the dash and the extension has no '.': ops/bench-OP.csv.meta.json,
             * the sidecar, is not one of ops/bench-*.json */
            const char *op = strrchr(g.gl_pathv[i], '/') + 1 + stem + 1;
            if (memchr(op, '.', strlen(op) - (dot ? strlen(dot) : 0))) continue;
            if (asprintf(&paths[n++], "%s", g.gl_pathv[i]) < 0) ln_die("out of memory");
        }
    globfree(&g);
    free(pattern);
    return n;
}

/* path with its extension (from the last '.' of the file name) replaced by ext */
static char *swap_extension(const char *path, const char *from, const char *ext)
{
    size_t n = strlen(path), nf = strlen(from);
    char *out = malloc(n + strlen(ext) + 1);
    if (!out) ln_die("out of memory");
    memcpy(out, path, n + 1);
    if (n > nf && !strcmp(path + n - nf, from)) out[n - nf] = 0;
    strcat(out, ext);
    return out;
}

char *ln_json_beside(const char *csv_path) { return swap_extension(csv_path, ".csv", ".json"); }
char *ln_csv_beside(const char *json_path) { return swap_extension(json_path, ".json", ".csv"); }

int ln_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int ln_path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

ln_speed *ln_find_speed(ln_results *R, const char *kernel, const char *regime)
{
    for (size_t i = 0; i < R->nsp; i++)
        if (!strcmp(R->sp[i].kernel, kernel) && !strcmp(R->sp[i].regime, regime)) return &R->sp[i];
    return NULL;
}

ln_accstat *ln_find_acc(ln_results *R, const char *kernel)
{
    for (size_t i = 0; i < R->nac; i++)
        if (!strcmp(R->ac[i].kernel, kernel)) return &R->ac[i];
    return NULL;
}

/* Kernel rows of one input distribution (normal when present, as every kernel ran on it) and
 * of the smallest thread count (views.c's scaling rows read the others). */
static void load_speeds(ln_results *R)
{
    ln_table *t = &R->bench;
    int ck = ln_table_column(t, LNC_BENCH_kernel), cdt = ln_table_column(t, LNC_BENCH_dtype),
        cr = ln_table_column(t, LNC_BENCH_regime), cD = ln_table_column(t, LNC_BENCH_D),
        cg = ln_table_column(t, LNC_BENCH_gbps), ccv = ln_table_column(t, LNC_BENCH_cv),
        cdist = ln_table_column(t, LNC_BENCH_dist), cmin = ln_table_column(t, LNC_BENCH_gbps_min),
        cmax = ln_table_column(t, LNC_BENCH_gbps_max);
    const char *dist = "";
    for (size_t r = 0; r < t->rows; r++) {
        const char *d = ln_table_cell(t, r, cdist);
        if (!ln_is_probe(ln_table_cell(t, r, ck)) && (!*dist || !strcmp(d, "normal"))) dist = d;
    }
    R->threads = 1;
    ln_table_threads(t, &R->threads, 1);
    R->sp = calloc(t->rows + 1, sizeof *R->sp);
    if (!R->sp) ln_die("out of memory");
    for (size_t r = 0; r < t->rows; r++) {
        const char *k = ln_table_cell(t, r, ck), *regime = cr >= 0 ? ln_table_cell(t, r, cr) : "all";
        if (ln_row_threads(t, r) != R->threads) continue;
        if (!ln_is_probe(k) && strcmp(ln_table_cell(t, r, cdist), dist)) continue;
        ln_speed *s = ln_find_speed(R, k, regime);
        if (!s) {
            s = &R->sp[R->nsp++];
            s->kernel = k, s->dtype = ln_table_cell(t, r, cdt), s->regime = regime, s->op = ln_row_op(t, r);
            s->probe = ln_is_probe(k), s->peer = ln_is_peer(k);
            ln_add_unique(R->regimes, &R->nregimes, 8, regime);
            if (!s->probe) ln_add_unique(R->dtypes, &R->ndtypes, 16, s->dtype);
        }
        if (s->n == LN_MAXD) continue;
        s->D[s->n] = ln_table_num(t, r, cD), s->gbps[s->n] = ln_table_num(t, r, cg),
        s->cv[s->n] = ln_table_num(t, r, ccv);
        s->gmin[s->n] = cmin >= 0 ? ln_table_num(t, r, cmin) : s->gbps[s->n];
        s->gmax[s->n] = cmax >= 0 ? ln_table_num(t, r, cmax) : s->gbps[s->n];
        if (s->cv[s->n] > s->cvmax) s->cvmax = s->cv[s->n];
        s->n++;
    }
    for (size_t i = 0; i < R->nsp; i++) {
        double v[LN_MAXD];
        size_t n = 0;
        for (size_t j = 0; j < R->sp[i].n; j++)
            if (!isnan(R->sp[i].gbps[j])) v[n++] = R->sp[i].gbps[j];
        R->sp[i].median = ln_median(v, n);
    }
}

int ln_input_ok(const ln_table *t, size_t r, int cin)
{
    const char *s = ln_table_cell(t, r, cin);
    return !*s || !strcmp(s, "ok");
}

static void load_accuracy(ln_results *R)
{
    size_t total = 0;
    for (int f = 0; f < 3; f++) total += R->acc[f].rows;
    R->ac = calloc(total + 1, sizeof *R->ac);
    if (!R->ac) ln_die("out of memory");
    for (int f = 0; f < 3; f++) {
        ln_table *t = &R->acc[f];
        int ck = ln_table_column(t, LNC_ACC_kernel), cdt = ln_table_column(t, LNC_ACC_dtype),
            cn = ln_table_column(t, LNC_ACC_max_norm), cu = ln_table_column(t, LNC_ACC_max_ulp),
            cnf = ln_table_column(t, LNC_ACC_nonfinite), cv = ln_table_column(t, LNC_ACC_verdict),
            cin = ln_table_column(t, LNC_ACC_input);
        if (cv >= 0) R->have_verdicts = 1;
        for (size_t r = 0; r < t->rows; r++) {
            const char *k = ln_table_cell(t, r, ck);
            ln_accstat *a = ln_find_acc(R, k);
            if (!a) {
                a = &R->ac[R->nac++];
                a->kernel = k, a->dtype = ln_table_cell(t, r, cdt), a->op = ln_row_op(t, r);
                a->worst_norm = a->worst_ulp = NAN;
                if (!R->have_bench) ln_add_unique(R->dtypes, &R->ndtypes, 16, a->dtype);
            }
            if (!ln_input_ok(t, r, cin)) {
                a->degenerate++;
                continue;
            }
            for (int v = 0; v < 4; v++)
                if (!strcmp(ln_table_cell(t, r, cv), ln_verdict_names[v])) a->verdict[v]++;
            if (f != 0) continue; /* the default sweep ranks kernels; the sweeps only add verdicts */
            double n = ln_table_num(t, r, cn), u = ln_table_num(t, r, cu), nf = ln_table_num(t, r, cnf);
            if (nf > 0) a->nonfinite += nf;
            if (!isnan(n) && !(n <= a->worst_norm)) a->worst_norm = n;
            if (!isnan(u) && !(u <= a->worst_ulp)) a->worst_ulp = u;
        }
    }
}

int ln_results_load(ln_results *R, const char *dir)
{
    static const char *const names[LN_ACC_FILES] = {"accuracy.csv", "conditioning.csv", "eps.csv"};
    memset(R, 0, sizeof *R);
    R->dir = dir;
    R->have_bench = ln_merge_folder(dir, "bench.csv", &R->bench);
    int any = R->have_bench;
    for (int f = 0; f < LN_ACC_FILES; f++) {
        R->acc_name[f] = names[f];
        any |= R->have_acc[f] = ln_merge_folder(dir, names[f], &R->acc[f]);
    }
    if (!any) return 0;
    if (R->have_bench) load_speeds(R);
    load_accuracy(R);
    static const char *const dtype_order[] = {"f64", "f32", "f16", "bf16", NULL};
    static const char *const regime_order[] = {"cache", "mixed", "memory", NULL};
    sort_by(R->dtypes, R->ndtypes, dtype_order);
    sort_by(R->regimes, R->nregimes, regime_order);
    static const char *const sidecars[] = {"bench.csv.meta.json", "accuracy.csv.meta.json", NULL};
    for (int i = 0; sidecars[i] && !R->cpu[0]; i++) {
        char *p = ln_path_in(dir, sidecars[i]);
        ln_meta_value(p, "cpu_model", R->cpu, sizeof R->cpu);
        ln_meta_value(p, "isa_features", R->isa, sizeof R->isa);
        free(p);
    }
    ln_machine_id(R->cpu, R->isa, R->machine_id, sizeof R->machine_id);
    return 1;
}

ln_timing_run *ln_results_timing(ln_results *R)
{
    if (R->timing_tried) return R->timing;
    R->timing_tried = 1;
    ln_timing_run *t = malloc(sizeof *t);
    if (!t) ln_die("out of memory");
    if (ln_timing_load_one(t, R->dir)) return R->timing = t;
    ln_timing_free(t), free(t);
    return NULL;
}

void ln_results_free(ln_results *R)
{
    if (R->timing) ln_timing_free(R->timing), free(R->timing);
    ln_table_free(&R->bench);
    for (int f = 0; f < LN_ACC_FILES; f++) ln_table_free(&R->acc[f]);
    free(R->sp);
    free(R->ac);
}

size_t ln_run_emulated(const char *dir, char *files, size_t n, char *emulator, size_t en)
{
    static const char *const kinds[] = {"bench.csv", "accuracy.csv", "conditioning.csv", "eps.csv"};
    size_t count = 0, dirlen = strlen(dir);
    if (n) files[0] = 0;
    for (size_t k = 0; k < 4; k++) {
        char *paths[64];
        size_t np = ln_results_files(dir, kinds[k], paths, 64);
        for (size_t i = 0; i < np; i++) {
            char meta[1200], emu[64] = "";
            snprintf(meta, sizeof meta, "%s.meta.json", paths[i]);
            ln_meta_value(meta, "emulator", emu, sizeof emu);
            if (*emu && strcmp(emu, "none")) {
                const char *name =
                    !strncmp(paths[i], dir, dirlen) && paths[i][dirlen] == '/' ? paths[i] + dirlen + 1 : paths[i];
                size_t len = strlen(files);
                if (len < n) snprintf(files + len, n - len, "%s%s", count ? ", " : "", name);
                if (en) snprintf(emulator, en, "%s", emu);
                count++;
            }
            free(paths[i]);
        }
    }
    return count;
}
