#include "tuning_notes.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "table.h"
#include "tuning.h"

/* The note `lnbench bench --tuning` leaves in the metadata: "PATH (tuned DATE, commit C; A of B
 * kernel cases)". The path alone into path, the tuning's identity (path, date, commit: what two
 * runs share when they used the same tuning) into id. */
static void split_note(const char *note, char *path, size_t np, char *id, size_t nid)
{
    const char *open = strstr(note, " (tuned "), *semi = open ? strchr(open, ';') : NULL;
    snprintf(path, np, "%.*s", (int)(open ? (size_t)(open - note) : strlen(note)), note);
    snprintf(id, nid, "%.*s", (int)(semi ? (size_t)(semi - note) : strlen(note)), note);
}

/* The tuning file named in a run's metadata: as written (relative to where bench ran), else
 * DIR/tuning/NAME (a results folder moved with its tuning). Malloc'ed, or NULL. */
static char *find_file(const char *dir, const char *path)
{
    if (ln_path_exists(path)) return strdup(path);
    const char *base = strrchr(path, '/');
    char *p = malloc(strlen(dir) + strlen(path) + 16);
    if (!p) return NULL;
    sprintf(p, "%s/tuning/%s", dir, base ? base + 1 : path);
    if (ln_path_exists(p)) return p;
    free(p);
    return NULL;
}

void ln_report_tuning_section(const char *dir, ln_doc *d)
{
    char note[1024], path[1024], id[1024], err[600];
    char *meta = ln_path_in(dir, "bench.csv.meta.json");
    ln_meta_value(meta, "tuning", note, sizeof note);
    free(meta);
    if (!*note) return;
    split_note(note, path, sizeof path, id, sizeof id);
    ln_doc_heading(d, 2, "Tuning");
    ln_doc_para(d,
                "This run's kernels ran with the tunables of %s (kernels it has no entry for: their built-in "
                "defaults; bench.csv's params column says which ran). Tuned against default below: lnbench tune's "
                "final comparison, medians of alternated repetitions on this machine, GB/s from CPU time "
                "(docs/tune.md).",
                note);
    char *file = find_file(dir, path);
    ln_tuning t;
    if (!file || ln_tuning_read(file, &t, err, sizeof err) != 0) {
        ln_doc_warn(d, "The tuning file %s cannot be read%s%s: its gains are not shown.", path, file ? ": " : "",
                    file ? err : " (not found)");
        free(file);
        return;
    }
    free(file);
    static const char *const head[] = {"kernel", "regime", "D", "chosen", "tuned GB/s", "default GB/s", "gain", "p"};
    size_t kept = 0;
    int table = 0;
    for (size_t i = 0; i < t.n; i++) {
        const ln_tuning_entry *e = &t.e[i];
        if (!e->significant) {
            kept++;
            continue;
        }
        if (!table++) ln_doc_table(d, 8, "llrl", head);
        char D[32], chosen[512], g[32], gd[32], gain[32], p[32];
        snprintf(D, sizeof D, "%zu", e->D);
        ln_tuning_values_text(e, e->value, chosen, sizeof chosen);
        snprintf(g, sizeof g, "%.2f", e->gbps);
        snprintf(gd, sizeof gd, "%.2f", e->gbps_default);
        snprintf(gain, sizeof gain, "%+.1f%%", 100 * e->gain);
        snprintf(p, sizeof p, "%.2g (%d+%d)", e->p_value, e->repetitions, e->repetitions);
        const char *cells[] = {e->kernel, e->regime, D, chosen, g, gd, gain, p};
        ln_doc_row(d, cells);
    }
    if (table) ln_doc_table_end(d);
    ln_doc_para(d, "%zu of %zu tuned cases kept their defaults (no candidate significantly faster, p >= 0.05)%s.", kept,
                t.n, t.complete ? "" : "; the tune was cut short by its budget, so some cases were never tuned");
    ln_tuning_free(&t);
}

/* The tuning notes of one side's runs (each a results folder or a bench JSON): distinct ids into
 * ids (up to cap), "" standing for a run without tuning. */
static size_t side_tunings(const char *const *runs, size_t n, char ids[][512], size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char *json = ln_path_is_dir(runs[i]) ? ln_path_in(runs[i], "bench.json") : strdup(runs[i]);
        json_t *root = json ? json_load_file(json, 0, NULL) : NULL;
        const char *note = json_string_value(json_object_get(json_object_get(root, "context"), "lnbench_tuning"));
        char path[512], id[512];
        split_note(note ? note : "", path, sizeof path, id, sizeof id);
        size_t j = 0;
        while (j < k && strcmp(ids[j], id)) j++;
        if (j == k && k < cap) snprintf(ids[k++], sizeof ids[0], "%s", id);
        json_decref(root);
        free(json);
    }
    return k;
}

void ln_compare_tuning_note(const char *const *base, size_t nbase, const char *const *new_, size_t nnew)
{
    char a[4][512], b[4][512];
    size_t na = side_tunings(base, nbase, a, 4), nb = side_tunings(new_, nnew, b, 4);
    int same = na == nb;
    for (size_t i = 0; same && i < na; i++) {
        size_t j = 0;
        while (j < nb && strcmp(a[i], b[j])) j++;
        same = j < nb;
    }
    if (same) return;
    printf("note: the runs used different tunings (base: %s; new: %s): their kernels may have run with different "
           "tunables (bench.csv's params column; docs/tune.md)\n",
           na == 1 && !*a[0] ? "none" : a[0], nb == 1 && !*b[0] ? "none" : b[0]);
}
