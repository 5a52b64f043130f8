#include "runs.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "results.h"
#include "rows.h"

ln_series *ln_find_series(ln_timing_run *r, const char *op, const char *name)
{
    for (size_t i = 0; i < r->ns; i++)
        if (!strcmp(r->s[i].name, name) && !strcmp(r->s[i].op, op)) return &r->s[i];
    return NULL;
}

/* Regime of a benchmark: from the bench CSV beside its JSON (kernel, D, rows; probes by bytes),
 * else by the size rule of lnbench bench (<= 8 MiB cache, >= 64 MiB memory). */
static void set_regime(ln_timing_run *r, ln_series *s)
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
static int load_json(ln_timing_run *r, const char *path)
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
        ln_series *s = ln_find_series(r, op, key);
        if (!s) {
            if (r->ns == r->cap) {
                r->cap = r->cap ? 2 * r->cap : 64;
                ln_series *bigger = realloc(r->s, r->cap * sizeof *r->s);
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
        if (s->n < LN_MAXREP) s->gbps[s->n++] = bps / 1e9, r->reps++;
    }
    json_decref(root);
    return 1;
}

/* The accuracy files beside path i (accuracy.csv and the op runs' ops/accuracy-OP.csv): those of
 * its first folder. */
static void add_accuracy(ln_timing_run *r, const char *dir, size_t path_index)
{
    if (path_index >= LN_MAXPATHS || r->acc_read[path_index]) return;
    size_t n = ln_results_files(dir, "accuracy.csv", r->acc_path + r->nacc, 4 * LN_MAXPATHS - r->nacc);
    r->nacc += n, r->acc_read[path_index] = n > 0;
}

/* Every bench JSON of a results folder (bench.json, the op runs' ops/bench-OP.json) and its
 * accuracy files (the first folder's of each path given). Returns how many JSONs were read, -1
 * when one was bad. */
static int load_folder(ln_timing_run *r, const char *dir, size_t path_index)
{
    char *json[LN_MAXPATHS];
    size_t n = ln_results_files(dir, "bench.json", json, LN_MAXPATHS);
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
static int load_path(ln_timing_run *r, const char *path, size_t path_index)
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

int ln_timing_load(ln_timing_run *r, const char *const *paths, size_t n, int allow_missing)
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

int ln_timing_load_one(ln_timing_run *r, const char *path)
{
    memset(r, 0, sizeof *r);
    if (ln_path_is_dir(path)) {
        char *json[LN_MAXPATHS];
        size_t nj = ln_results_files(path, "bench.json", json, LN_MAXPATHS);
        for (size_t i = 0; i < nj; i++) free(json[i]);
        if (!nj) return 0;
    }
    const char *paths[1] = {path};
    return ln_timing_load(r, paths, 1, 1);
}

void ln_timing_free(ln_timing_run *r)
{
    free(r->s);
    for (size_t i = 0; i < r->nbench; i++) ln_table_free(&r->bench[i]);
    free(r->bench);
    for (size_t i = 0; i < r->nacc; i++) free(r->acc_path[i]);
    ln_table_free(&r->acc);
}
