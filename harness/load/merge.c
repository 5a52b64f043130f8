#include "merge.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "results.h"

#define MAX_FOLDER_FILES 64

enum { K_ACCURACY, K_CONDITIONING, K_EPS, K_BENCH, K_HUNT, NKINDS };
static const char *const kind_file[NKINDS] = {"accuracy.csv", "conditioning.csv", "eps.csv", "bench.csv", "hunt.csv"};

/* The columns that name a case (a row is one kernel on one case): two rows with the same key
 * must be the same row. Flags that leave no column (--no-affine, --gamma, --beta) are not in
 * the key: rows that differ by them disagree, and the merge says so. */
static const ln_column acc_key[] = {LNC_ACC_kernel, LNC_ACC_op,  LNC_ACC_dtype, LNC_ACC_dist,        LNC_ACC_D,
                                    LNC_ACC_rows,   LNC_ACC_eps, LNC_ACC_seed,  LNC_ACC_saved_stats, LN_COLUMNS};
static const ln_column bench_key[] = {LNC_BENCH_kernel,  LNC_BENCH_op,   LNC_BENCH_dtype, LNC_BENCH_dist,
                                      LNC_BENCH_D,       LNC_BENCH_rows, LNC_BENCH_bytes, LNC_BENCH_eps,
                                      LNC_BENCH_threads, LN_COLUMNS};
static const ln_column hunt_key[] = {LNC_HUNT_kernel, LNC_HUNT_dtype, LNC_HUNT_D,
                                     LNC_HUNT_eps,    LNC_HUNT_seed,  LN_COLUMNS};
static const ln_column *const kind_key[NKINDS] = {acc_key, acc_key, acc_key, bench_key, hunt_key};
/* A column that is a timing of the run itself, not a result: it may differ between copies
 * (LN_COLUMNS: none). */
static const ln_column kind_ignored[NKINDS] = {LNC_ACC_ref_seconds, LNC_ACC_ref_seconds, LNC_ACC_ref_seconds,
                                               LN_COLUMNS, LN_COLUMNS};

typedef struct {
    char path[1100];
    ln_table t;
    json_t *meta;              /* the .meta.json sidecar, NULL when absent */
    unsigned shard_k, shard_n; /* --shard K/N of the run that wrote it, 0/0 when not known */
} part;

typedef struct {
    part *p;
    size_t n;
} part_list;

/* K/N from the sidecar's "shard", or from --shard in its "command" (files written before
 * "shard" was recorded), or from a hunt.csv's shard column. */
static void find_shard(part *p)
{
    const char *s = json_string_value(json_object_get(p->meta, "shard"));
    json_t *cmd = json_object_get(p->meta, "command");
    for (size_t i = 0; !s && i < json_array_size(cmd); i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (a && !strcmp(a, "--shard")) s = json_string_value(json_array_get(cmd, i + 1));
        else if (a && !strncmp(a, "--shard=", 8)) s = a + 8;
    }
    if (!s && p->t.rows) s = ln_table_cell(&p->t, 0, ln_table_column(&p->t, LNC_HUNT_shard));
    if (!s || sscanf(s, "%u/%u", &p->shard_k, &p->shard_n) != 2 || p->shard_k < 1 || p->shard_k > p->shard_n)
        p->shard_k = p->shard_n = 0;
}

/* A file's kind from the start of its name (accuracy-3.csv), else from its columns. */
static int kind_of_file(const char *path, const ln_table *t)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (int k = 0; k < NKINDS; k++) {
        size_t n = strlen(kind_file[k]) - 4;
        if (!strncmp(base, kind_file[k], n) && !isalpha((unsigned char)base[n])) return k;
    }
    if (ln_table_column(t, LNC_BENCH_gbps) >= 0) return K_BENCH;
    if (ln_table_column(t, LNC_HUNT_builtin_ratio) >= 0) return K_HUNT;
    if (ln_table_column(t, LNC_ACC_max_norm) >= 0) return K_ACCURACY;
    return -1;
}

static part *add_part(part_list *L, const char *path, ln_table *t)
{
    part *bigger = realloc(L->p, (L->n + 1) * sizeof *L->p);
    if (!bigger) ln_die("out of memory");
    L->p = bigger;
    part *p = &L->p[L->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    p->t = *t;
    char meta[1200];
    snprintf(meta, sizeof meta, "%s.meta.json", path);
    p->meta = ln_path_exists(meta) ? json_load_file(meta, 0, NULL) : NULL;
    find_shard(p);
    return p;
}

static void read_table(const char *path, ln_table *t)
{
    if (!ln_table_read(path, t)) ln_die_usage("merge: cannot read %s", path);
    if (!t->cols) ln_die_usage("merge: %s is empty (not even a header line)", path);
}

/* Every src's result files, by kind. */
static void load_sources(part_list lists[NKINDS], const char *const *srcs, size_t nsrc)
{
    for (size_t i = 0; i < nsrc; i++) {
        ln_table t;
        if (ln_path_is_dir(srcs[i])) {
            int found = 0;
            for (int k = 0; k < NKINDS; k++) {
                char *files[MAX_FOLDER_FILES];
                size_t n = ln_results_files(srcs[i], kind_file[k], files, MAX_FOLDER_FILES);
                for (size_t f = 0; f < n; f++) {
                    read_table(files[f], &t);
                    add_part(&lists[k], files[f], &t), found++;
                    free(files[f]);
                }
            }
            if (!found)
                ln_die_usage("merge: %s/ holds no result file (accuracy.csv, conditioning.csv, eps.csv, bench.csv, "
                             "hunt.csv)",
                             srcs[i]);
        } else if (ln_path_exists(srcs[i])) {
            read_table(srcs[i], &t);
            int k = kind_of_file(srcs[i], &t);
            if (k < 0)
                ln_die_usage(
                    "merge: %s is none of accuracy.csv, conditioning.csv, eps.csv, bench.csv, hunt.csv (by its "
                    "name or its columns)",
                    srcs[i]);
            add_part(&lists[k], srcs[i], &t);
        } else ln_die_usage("merge: %s does not exist", srcs[i]);
    }
}

static void free_parts(part_list *L)
{
    for (size_t i = 0; i < L->n; i++) {
        ln_table_free(&L->p[i].t);
        json_decref(L->p[i].meta);
    }
    free(L->p);
    memset(L, 0, sizeof *L);
}

/* Shards of a split run: every K of 1..N once. Returns the N whose shards can be put back in
 * the unsharded order (every part a shard of one N, each K once), else 0; *missing lists the
 * missing K ("" when none). */
static unsigned check_shards(const char *name, part_list *L, int allow_missing, char *missing, size_t len)
{
    unsigned n = 0, have[4096] = {0};
    int whole = 1;
    missing[0] = 0;
    for (size_t i = 0; i < L->n; i++) {
        part *p = &L->p[i];
        if (p->shard_n <= 1) {
            whole = 0;
            continue;
        }
        if (n && p->shard_n != n)
            ln_die_usage("merge: %s: shards of different splits: %s is shard %u/%u, an earlier file a shard of %u",
                         name, p->path, p->shard_k, p->shard_n, n);
        n = p->shard_n;
        if (n > 4096) ln_die_usage("merge: %s: shard %u/%u: at most 4096 shards", p->path, p->shard_k, n);
        have[p->shard_k - 1]++;
    }
    for (unsigned k = 0; k < n; k++) {
        if (!have[k]) snprintf(missing + strlen(missing), len - strlen(missing), "%s%u", *missing ? ", " : "", k + 1);
        if (have[k] != 1) whole = 0;
    }
    if (*missing) {
        if (!allow_missing)
            ln_die_usage("merge: %s: shard%s %s of %u missing (--allow-missing merges the others)", name,
                         strchr(missing, ',') ? "s" : "", missing, n);
        fprintf(stderr, "lnbench: warning: %s: shard%s %s of %u missing: merged without\n", name,
                strchr(missing, ',') ? "s" : "", missing, n);
    }
    return whole && n ? n : 0;
}

typedef struct {
    size_t part, row;
    char *key;
    int keep;
} row_ref;

static char *row_key(const part *p, size_t r, const int *cols, int ncols)
{
    char *key = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&key, &len);
    if (!f) ln_die("out of memory");
    for (int c = 0; c < ncols; c++) fprintf(f, "%s\x1f", ln_table_cell(&p->t, r, cols[c]));
    if (fclose(f)) ln_die("out of memory");
    return key;
}

/* The key columns present in the header (an absent column is the same "" in every row). */
static int key_columns(const ln_table *t, const ln_column *key, int *cols, int skip_kernel)
{
    int n = 0;
    for (int i = 0; key[i] != LN_COLUMNS; i++) /* the kernel is each key's first column */
        if (!(skip_kernel && i == 0)) cols[n++] = ln_table_column(t, key[i]);
    return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The kernels a part ran, sorted and joined by spaces (malloc'ed). */
static char *kernel_set(const part *p)
{
    int ck = ln_table_column(&p->t, LNC_ACC_kernel); /* the same name in every kind of file */
    const char **names = malloc((p->t.rows + 1) * sizeof *names);
    if (!names) ln_die("out of memory");
    for (size_t r = 0; r < p->t.rows; r++) names[r] = ln_table_cell(&p->t, r, ck);
    qsort(names, p->t.rows, sizeof *names, cmp_str);
    char *set = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&set, &len);
    if (!f) ln_die("out of memory");
    for (size_t r = 0; r < p->t.rows; r++)
        if (!r || strcmp(names[r], names[r - 1])) fprintf(f, " %s", names[r]);
    if (fclose(f)) ln_die("out of memory");
    free(names);
    return set;
}

/* Shard k's rows, case by case (consecutive rows of one case key): case j of shard k is case
 * j N + k - 1 of the unsharded run, so taking one case from each shard in turn gives its order
 * back. The case counts must be those of a complete split (the first shards one more). */
static size_t interleave(part_list *L, unsigned n, row_ref *refs)
{
    part **by_k = calloc(n, sizeof *by_k);
    size_t *next = calloc(n, sizeof *next), *cases = calloc(n, sizeof *cases), out = 0;
    if (!by_k || !next || !cases) ln_die("out of memory");
    int cols[16], ncols = key_columns(&L->p[0].t, acc_key, cols, 1);
    for (size_t i = 0; i < L->n; i++) by_k[L->p[i].shard_k - 1] = &L->p[i];
    /* shards run on machines with other ISAs select other kernels by default: the merge would
     * hold some kernels on a part of the cases only */
    char *first_set = kernel_set(by_k[0]);
    for (unsigned k = 1; k < n; k++) {
        char *set = kernel_set(by_k[k]);
        if (strcmp(set, first_set))
            ln_die_usage("merge: shard %u/%u (%s) ran the kernels%s, shard 1/%u (%s) the kernels%s: give every "
                         "shard the same --kernels, ones every machine runs",
                         k + 1, n, by_k[k]->path, set, n, by_k[0]->path, first_set);
        free(set);
    }
    free(first_set);
    for (unsigned k = 0; k < n; k++) {
        char *prev = NULL;
        for (size_t r = 0; r < by_k[k]->t.rows; r++) {
            char *key = row_key(by_k[k], r, cols, ncols);
            cases[k] += !prev || strcmp(prev, key);
            free(prev), prev = key;
        }
        free(prev);
        if (cases[k] > cases[0] || cases[k] + 1 < cases[0] || (k && cases[k] > cases[k - 1]))
            ln_die_usage("merge: shard %u/%u (%s) holds %zu cases, shard 1/%u (%s) %zu: not one complete split "
                         "(a shard stopped early, or the shards ran with different flags)",
                         k + 1, n, by_k[k]->path, cases[k], n, by_k[0]->path, cases[0]);
    }
    for (int more = 1; more;) {
        more = 0;
        for (unsigned k = 0; k < n; k++) {
            part *p = by_k[k];
            char *first = NULL;
            for (size_t r = next[k]; r < p->t.rows; r++) {
                char *key = row_key(p, r, cols, ncols);
                int same = !first || !strcmp(first, key);
                if (!first) first = key;
                else free(key);
                if (!same) break;
                refs[out++] = (row_ref){.part = (size_t)(p - L->p), .row = r};
                next[k] = r + 1;
            }
            free(first);
            more |= next[k] < p->t.rows;
        }
    }
    free(by_k), free(next), free(cases);
    return out;
}

static int cmp_ref(const void *a, const void *b)
{
    const row_ref *x = *(row_ref *const *)a, *y = *(row_ref *const *)b;
    int c = strcmp(x->key, y->key);
    return c ? c : x < y ? -1 : x > y;
}

/* The first column where two rows differ (ignored: a timing column), -1 when none. */
static int first_difference(const part *a, size_t ra, const part *b, size_t rb, int ignored)
{
    for (size_t c = 0; c < a->t.cols; c++)
        if ((int)c != ignored && strcmp(ln_table_cell(&a->t, ra, (int)c), ln_table_cell(&b->t, rb, (int)c)))
            return (int)c;
    return -1;
}

/* Each case once: identical copies are kept once, different ones are an error (but for the
 * probe rows of several timing runs); in hunt.csv the row with the largest ratio of the bound
 * wins (each shard searched other starts). */
static void drop_duplicates(int kind, part_list *L, row_ref *refs, size_t nrefs)
{
    int cols[16], ncols = key_columns(&L->p[0].t, kind_key[kind], cols, 0);
    int ignored = kind_ignored[kind] != LN_COLUMNS ? ln_table_column(&L->p[0].t, kind_ignored[kind]) : -1,
        ratio = ln_table_column(&L->p[0].t, LNC_HUNT_ratio);
    row_ref **sorted = malloc((nrefs + 1) * sizeof *sorted);
    if (!sorted) ln_die("out of memory");
    for (size_t i = 0; i < nrefs; i++) {
        refs[i].key = row_key(&L->p[refs[i].part], refs[i].row, cols, ncols);
        refs[i].keep = 1;
        sorted[i] = &refs[i];
    }
    qsort(sorted, nrefs, sizeof *sorted, cmp_ref);
    row_ref *kept = nrefs ? sorted[0] : NULL; /* the copy kept of the current key */
    for (size_t i = 1; i < nrefs; i++) {
        row_ref *dup = sorted[i];
        if (strcmp(kept->key, dup->key)) {
            kept = dup;
            continue;
        }
        const part *pa = &L->p[kept->part], *pb = &L->p[dup->part];
        if (kind == K_HUNT) {
            if (ln_table_num(&pb->t, dup->row, ratio) > ln_table_num(&pa->t, kept->row, ratio))
                kept->keep = 0, kept = dup;
            else dup->keep = 0;
            continue;
        }
        int c = first_difference(pa, kept->row, pb, dup->row, ignored);
        /* a probe is each timing run's own yardstick (make bench-ops times the probes beside
         * each op): two runs' probes at one size are two measurements, both kept */
        if (c >= 0 && kind == K_BENCH && ln_is_probe(ln_table_cell(&pa->t, kept->row, cols[0]))) continue;
        if (c >= 0)
            ln_die_usage("merge: %s and %s describe one case differently (%s, D %s, %s): %s is %s in one, %s in the "
                         "other%s",
                         pa->path, pb->path, ln_table_cell(&pa->t, kept->row, cols[0]),
                         ln_table_cell(&pa->t, kept->row, ln_table_column(&pa->t, LNC_ACC_D)),
                         ln_table_cell(&pa->t, kept->row, ln_table_column(&pa->t, LNC_ACC_dist)), pa->t.cell[c],
                         ln_table_cell(&pa->t, kept->row, c), ln_table_cell(&pb->t, dup->row, c),
                         kind == K_BENCH ? " (repeated timing runs are pooled by lnbench compare, not merged)" : "");
        dup->keep = 0;
    }
    free(sorted);
}

static void put_field(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\n\r")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
    fputc('"', f);
}

/* One kind's rows merged, as CSV text (malloc'ed). */
static char *merge_rows(int kind, part_list *L, int allow_missing, char *missing, size_t len)
{
    const ln_table *h = &L->p[0].t;
    size_t total = 0;
    for (size_t i = 0; i < L->n; i++) {
        const ln_table *t = &L->p[i].t;
        int same = t->cols == h->cols;
        for (size_t c = 0; same && c < t->cols; c++) same = !strcmp(t->cell[c], h->cell[c]);
        if (!same)
            ln_die_usage("merge: %s and %s have different columns (written by different lnbench versions?)",
                         L->p[0].path, L->p[i].path);
        total += t->rows;
    }
    row_ref *refs = calloc(total + 1, sizeof *refs);
    if (!refs) ln_die("out of memory");
    unsigned n = check_shards(kind_file[kind], L, allow_missing, missing, len);
    size_t nrefs = 0;
    if (n && kind != K_HUNT) nrefs = interleave(L, n, refs);
    else
        for (size_t i = 0; i < L->n; i++)
            for (size_t r = 0; r < L->p[i].t.rows; r++) refs[nrefs++] = (row_ref){.part = i, .row = r};
    drop_duplicates(kind, L, refs, nrefs);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f) ln_die("out of memory");
    for (size_t c = 0; c < h->cols; c++) put_field(f, h->cell[c]), fputc(c + 1 < h->cols ? ',' : '\n', f);
    for (size_t i = 0; i < nrefs; i++) {
        const ln_table *t = &L->p[refs[i].part].t;
        if (refs[i].keep)
            for (size_t c = 0; c < t->cols; c++)
                put_field(f, ln_table_cell(t, refs[i].row, (int)c)), fputc(c + 1 < t->cols ? ',' : '\n', f);
        free(refs[i].key);
    }
    if (fclose(f)) ln_die("out of memory");
    free(refs);
    return text;
}

/* The sidecars merged: a field the parts agree on once; a field they differ in as every value
 * (strings joined by " | ", so the report prints them). CPU models that differ are refused for
 * timing and stated for accuracy; commits that differ are stated. */
static json_t *merge_meta(int kind, part_list *L, const char *missing)
{
    json_t *values = json_object(), *m = json_object(), *from = json_array();
    for (size_t i = 0; i < L->n; i++) {
        json_array_append_new(from, json_string(L->p[i].path));
        const char *key;
        json_t *v;
        json_object_foreach(L->p[i].meta, key, v)
        {
            json_t *list = json_object_get(values, key);
            if (!list) json_object_set_new(values, key, list = json_array());
            int seen = 0;
            for (size_t j = 0; j < json_array_size(list) && !seen; j++) seen = json_equal(json_array_get(list, j), v);
            if (!seen) json_array_append(list, v);
        }
    }
    const char *key;
    json_t *list;
    json_object_foreach(values, key, list)
    {
        size_t n = json_array_size(list);
        int strings = 1;
        for (size_t j = 0; j < n; j++) strings &= json_is_string(json_array_get(list, j));
        if (n > 1 && (!strcmp(key, "cpu_model") || !strcmp(key, "git_commit") || !strcmp(key, "isa_cap"))) {
            char *all = json_dumps(list, JSON_COMPACT);
            if (kind == K_BENCH && strcmp(key, "git_commit"))
                ln_die_usage("merge: bench.csv: timings from different machines (%s %s) are not merged into one "
                             "table; lnbench compare --cross-machine compares them as fractions of each machine's "
                             "limit",
                             key, all);
            fprintf(stderr, "lnbench: note: %s: the sources differ in %s: %s%s\n", kind_file[kind], key, all,
                    strcmp(key, "git_commit") ? " (accuracy does not depend on the machine)" : "");
            free(all);
        }
        if (!strcmp(key, "shard")) continue;            /* the merge is the whole run, or says what is missing */
        if (!strcmp(key, "date") && n > 1 && strings) { /* ISO 8601 dates sort as text */
            const char *first = NULL, *last = NULL;
            for (size_t j = 0; j < n; j++) {
                const char *d = json_string_value(json_array_get(list, j));
                if (!first || strcmp(d, first) < 0) first = d;
                if (!last || strcmp(d, last) > 0) last = d;
            }
            char range[256];
            snprintf(range, sizeof range, "%s to %s", first, last);
            json_object_set_new(m, key, json_string(range));
            continue;
        }
        if (n == 1 || !strings) {
            json_object_set(m, key, n == 1 ? json_array_get(list, 0) : list);
            continue;
        }
        size_t len = 0;
        for (size_t j = 0; j < n; j++) len += strlen(json_string_value(json_array_get(list, j))) + 3;
        char *joined = calloc(len + 1, 1);
        if (!joined) ln_die("out of memory");
        for (size_t j = 0; j < n; j++)
            strcat(strcat(joined, j ? " | " : ""), json_string_value(json_array_get(list, j)));
        json_object_set_new(m, key, json_string(joined));
        free(joined);
    }
    json_object_set_new(m, "merged_from", from);
    if (*missing) json_object_set_new(m, "shards_missing", json_string(missing));
    json_decref(values);
    return m;
}

static void write_text(const char *path, const char *text, const char *tail)
{
    ln_outfile o;
    ln_out_open(&o, path);
    fputs(text, o.f);
    fputs(tail, o.f);
    ln_out_commit(&o);
}

/* The JSON beside every bench CSV (bench.json, ops/bench-OP.json) as one: the first context,
 * every benchmark entry (lnbench compare and the report read it). Skipped, with a note, when
 * one is absent. */
static void merge_bench_json(const char *out, part_list *L)
{
    json_t *all = NULL;
    for (size_t i = 0; i < L->n; i++) {
        char *p = ln_json_beside(L->p[i].path);
        json_t *j = ln_path_exists(p) ? json_load_file(p, 0, NULL) : NULL;
        free(p);
        if (!json_is_array(json_object_get(j, "benchmarks"))) {
            fprintf(stderr, "lnbench: note: no bench.json beside %s: the merge has none\n", L->p[i].path);
            json_decref(j), json_decref(all);
            return;
        }
        if (!all) all = j;
        else json_array_extend(json_object_get(all, "benchmarks"), json_object_get(j, "benchmarks")), json_decref(j);
    }
    char *text = json_dumps(all, JSON_INDENT(2)), p[1200];
    snprintf(p, sizeof p, "%s/bench.json", out);
    write_text(p, text, "\n");
    free(text);
    json_decref(all);
}

void ln_merge_results(const char *out, const char *const *srcs, size_t nsrc, int allow_missing)
{
    part_list lists[NKINDS] = {0};
    load_sources(lists, srcs, nsrc);
    /* every kind merged (and every conflict refused, exit 2) before the first file is written:
     * a refused merge leaves nothing behind, not a folder half of one run */
    char *text[NKINDS] = {0}, *mtext[NKINDS] = {0};
    for (int k = 0; k < NKINDS; k++) {
        if (!lists[k].n) continue;
        char missing[1024];
        text[k] = merge_rows(k, &lists[k], allow_missing, missing, sizeof missing);
        json_t *meta = merge_meta(k, &lists[k], missing);
        mtext[k] = json_dumps(meta, JSON_INDENT(2));
        json_decref(meta);
    }
    for (int k = 0; k < NKINDS; k++) {
        if (!lists[k].n) continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", out, kind_file[k]);
        write_text(p, text[k], "");
        size_t rows = 0;
        for (const char *c = strchr(text[k], '\n'); c && c[1]; c = strchr(c + 1, '\n')) rows++;
        fprintf(stderr, "lnbench: merged %zu file%s into %s (%zu rows)\n", lists[k].n, lists[k].n > 1 ? "s" : "", p,
                rows);
        snprintf(p, sizeof p, "%s/%s.meta.json", out, kind_file[k]);
        write_text(p, mtext[k], "\n");
        if (k == K_BENCH) merge_bench_json(out, &lists[k]);
        free(text[k]), free(mtext[k]);
        free_parts(&lists[k]);
    }
}

void ln_merge_read(ln_table *t, const char *const *paths, size_t n, int allow_missing)
{
    part_list L = {0};
    int kind = K_ACCURACY;
    for (size_t i = 0; i < n; i++) {
        ln_table one;
        read_table(paths[i], &one);
        if (!i && kind_of_file(paths[i], &one) >= 0) kind = kind_of_file(paths[i], &one);
        add_part(&L, paths[i], &one);
    }
    char missing[1024], what[64];
    char *text = merge_rows(kind, &L, allow_missing, missing, sizeof missing);
    json_decref(merge_meta(kind, &L, missing)); /* the notes on differing machines */
    free_parts(&L);
    snprintf(what, sizeof what, "merged %s", kind_file[kind]);
    ln_table_parse(text, what, t);
}

int ln_merge_folder(const char *dir, const char *name, ln_table *t)
{
    char *files[MAX_FOLDER_FILES];
    size_t n = ln_results_files(dir, name, files, MAX_FOLDER_FILES);
    if (n == 1) ln_table_read(files[0], t);
    else if (n > 1) ln_merge_read(t, (const char *const *)files, n, 0);
    else memset(t, 0, sizeof *t);
    for (size_t i = 0; i < n; i++) free(files[i]);
    return n > 0;
}
