#include "run_notes.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"

/* A kernel's op and dtype: from the result rows, else the registry (every case of it skipped). */
static void kernel_op_dtype(ln_results *R, const char *kernel, const char **op, const char **dtype)
{
    ln_accstat *a = ln_find_acc(R, kernel);
    if (a) {
        *op = a->op, *dtype = a->dtype;
        return;
    }
    for (size_t i = 0; i < R->nsp; i++)
        if (!strcmp(R->sp[i].kernel, kernel)) {
            *op = R->sp[i].op, *dtype = R->sp[i].dtype;
            return;
        }
    const ln_kernel *k = ln_kernel_find(kernel);
    *op = k ? ln_op_name(k->op) : "layernorm";
    *dtype = k ? ln_fmt(k->dtype)->name : "";
}

void ln_run_notes_read(ln_results *R, ln_run_notes *T)
{
    memset(T, 0, sizeof *T);
    char *csv[64];
    size_t ncsv = ln_results_files(R->dir, "bench.csv", csv, 64), dirlen = strlen(R->dir);
    for (size_t c = 0; c < ncsv; c++) {
        char *path = ln_json_beside(csv[c]);
        free(csv[c]);
        json_error_t jerr;
        json_t *root = json_load_file(path, 0, &jerr);
        if (!root) {
            free(path);
            continue;
        }
        size_t f = T->nfile++;
        T->file[f] = path;
        if (!strncmp(path, R->dir, dirlen) && path[dirlen] == '/')
            memmove(path, path + dirlen + 1, strlen(path + dirlen + 1) + 1);
        json_t *ctx = json_object_get(root, "context"), *b = json_object_get(root, "benchmarks");
        T->scaling[f] = json_is_true(json_object_get(ctx, "cpu_scaling_enabled"));
        json_t *load = json_array_get(json_object_get(ctx, "load_avg"), 0);
        T->load[f] = json_is_number(load) ? json_number_value(load) : NAN;
        T->cpus[f] = json_number_value(json_object_get(ctx, "num_cpus"));
        size_t i;
        json_t *e;
        json_array_foreach(b, i, e)
        {
            const char *name = json_string_value(json_object_get(e, "run_name"));
            if (!name || !json_is_true(json_object_get(e, "error_occurred")) ||
                json_integer_value(json_object_get(e, "repetition_index")) != 0)
                continue;
            ln_skipped_case *bigger = realloc(T->skip, (T->nskip + 1) * sizeof *T->skip);
            if (!bigger) ln_die("out of memory");
            T->skip = bigger;
            ln_skipped_case *k = &T->skip[T->nskip++];
            /* the case, less Google Benchmark's suffixes */
            const char *tail = strstr(name, "/process_time");
            if (!tail) tail = strstr(name, "/real_time");
            if (asprintf(&k->name, "%.*s", (int)(tail ? tail - name : (long)strlen(name)), name) < 0)
                ln_die("out of memory");
            char kernel[128];
            snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(k->name, "/"), k->name);
            kernel_op_dtype(R, kernel, &k->op, &k->dtype);
            k->file = T->file[f];
        }
        json_decref(root);
    }
}

void ln_run_notes_free(ln_run_notes *T)
{
    for (size_t i = 0; i < T->nskip; i++) free(T->skip[i].name);
    free(T->skip);
    for (size_t f = 0; f < T->nfile; f++) free(T->file[f]);
}

size_t ln_skipped_count(const ln_run_notes *T, const char *op, const char *dtype)
{
    size_t n = 0;
    for (size_t i = 0; i < T->nskip; i++)
        n += !strcmp(T->skip[i].op, op) && (!dtype || !strcmp(T->skip[i].dtype, dtype));
    return n;
}
