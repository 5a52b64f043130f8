#include "tuning.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpu.h"
#include "meta.h"
#include "outfile.h"

void ln_tuning_machine(ln_tuning *t)
{
    snprintf(t->cpu_model, sizeof t->cpu_model, "%s", ln_cpu_model());
    for (size_t n = strlen(t->cpu_model); n > 0 && t->cpu_model[n - 1] == ' ';) t->cpu_model[--n] = 0; /* cpuid pads */
    const char *cap = getenv("LNBENCH_ISA");
    snprintf(t->isa_cap, sizeof t->isa_cap, "%s", cap && *cap ? cap : "native");
    ln_isa_names(ln_cpu_features_hw(), t->isa_features, sizeof t->isa_features);
    ln_machine_id(t->cpu_model, t->isa_features, t->machine_id, sizeof t->machine_id);
}

ln_tuning_entry *ln_tuning_add(ln_tuning *t, const ln_tuning_entry *e)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        ln_tuning_entry *grown = realloc(t->e, cap * sizeof *grown);
        if (!grown) ln_die("out of memory");
        t->e = grown, t->cap = cap;
    }
    t->e[t->n] = *e;
    return &t->e[t->n++];
}

void ln_tuning_free(ln_tuning *t)
{
    free(t->e);
    t->e = NULL, t->n = t->cap = 0;
}

/* A number, or null where it is not finite (JSON has no NaN). */
static json_t *real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *params_object(const ln_tuning_entry *e, const int *values)
{
    json_t *o = json_object();
    for (int i = 0; i < e->nparams; i++) json_object_set_new(o, e->name[i], json_integer(values[i]));
    return o;
}

static json_t *entry_json(const ln_tuning_entry *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "kernel", json_string(e->kernel));
    json_object_set_new(o, "op", json_string(ln_op_name(e->op)));
    json_object_set_new(o, "regime", json_string(e->regime));
    json_object_set_new(o, "threads", json_integer(e->threads));
    json_object_set_new(o, "D", json_integer((json_int_t)e->D));
    json_object_set_new(o, "D_min", json_integer((json_int_t)e->D_min));
    json_object_set_new(o, "D_max", e->D_max ? json_integer((json_int_t)e->D_max) : json_null());
    json_object_set_new(o, "bytes", json_integer((json_int_t)e->bytes));
    json_object_set_new(o, "params", params_object(e, e->value));
    json_object_set_new(o, "defaults", params_object(e, e->def));
    json_object_set_new(o, "best", params_object(e, e->best));
    json_object_set_new(o, "gbps", real_or_null(e->gbps));
    json_object_set_new(o, "gbps_default", real_or_null(e->gbps_default));
    json_object_set_new(o, "gain", real_or_null(e->gain));
    json_object_set_new(o, "p_value", real_or_null(e->p_value));
    json_object_set_new(o, "repetitions", json_integer(e->repetitions));
    json_object_set_new(o, "significant", json_boolean(e->significant));
    json_object_set_new(o, "candidates", json_integer(e->candidates));
    json_object_set_new(o, "refused", json_integer(e->refused));
    json_object_set_new(o, "seconds", real_or_null(e->seconds));
    json_object_set_new(o, "search", json_string(e->search));
    json_t *timed = json_array();
    for (int i = 0; i < e->ntimed; i++) {
        json_t *t = json_object(), *v = json_array();
        for (int j = 0; j < e->nparams; j++) json_array_append_new(v, json_integer(e->timed[i].v[j]));
        json_object_set_new(t, "values", v);
        json_object_set_new(t, "vs_default", real_or_null(e->timed[i].vs_default));
        json_array_append_new(timed, t);
    }
    json_object_set_new(o, "timed", timed);
    return o;
}

void ln_tuning_write(const char *path, const ln_tuning *t)
{
    json_t *root = json_object(), *entries = json_array();
    json_object_set_new(root, "lnbench_tuning", json_integer(LN_TUNING_FORMAT));
    json_object_set_new(root, "cpu_model", json_string(t->cpu_model));
    json_object_set_new(root, "isa_cap", json_string(t->isa_cap));
    json_object_set_new(root, "isa_features", json_string(t->isa_features));
    json_object_set_new(root, "machine_id", json_string(t->machine_id));
    json_object_set_new(root, "date", json_string(t->date));
    json_object_set_new(root, "git_commit", json_string(t->git_commit));
    json_object_set_new(root, "seconds_budget", real_or_null(t->seconds_budget));
    json_object_set_new(root, "seconds_used", real_or_null(t->seconds_used));
    json_object_set_new(root, "complete", json_boolean(t->complete));
    for (size_t i = 0; i < t->n; i++) json_array_append_new(entries, entry_json(&t->e[i]));
    json_object_set_new(root, "entries", entries);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    if (!text) ln_die("out of memory");
    ln_outfile o;
    ln_out_open(&o, path);
    fputs(text, o.f);
    fputc('\n', o.f);
    ln_out_commit(&o);
    free(text);
    json_decref(root);
}

/* Reading: each helper sets err and returns -1 on a missing or mistyped field. */
typedef struct {
    char *err;
    size_t len;
    const char *where; /* "entry 3" or "the file" */
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->len, "%s: ", r->where);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->len) vsnprintf(r->err + n, r->len - n, fmt, ap);
    va_end(ap);
    return -1;
}

static int get_string(reader *r, json_t *o, const char *key, char *out, size_t n)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) return fail(r, "\"%s\" is missing or not a string", key);
    if (strlen(json_string_value(v)) >= n) return fail(r, "\"%s\" is too long", key);
    snprintf(out, n, "%s", json_string_value(v));
    return 0;
}

/* An integer in [min, max]; null gives *out = 0 when allow_null. */
static int get_int(reader *r, json_t *o, const char *key, long long min, long long max, int allow_null, long long *out)
{
    json_t *v = json_object_get(o, key);
    if (allow_null && json_is_null(v)) return *out = 0, 0;
    if (!json_is_integer(v)) return fail(r, "\"%s\" is missing or not an integer", key);
    *out = json_integer_value(v);
    if (*out < min || *out > max) return fail(r, "\"%s\" is %lld, outside %lld..%lld", key, *out, min, max);
    return 0;
}

/* A number or null (NaN); absent is NaN too (optional statistics). */
static int get_real(reader *r, json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return *out = NAN, 0;
    if (!json_is_number(v)) return fail(r, "\"%s\" is not a number", key);
    *out = json_number_value(v);
    return 0;
}

/* An object of name: integer into names/values (first call) or, with names given, values in
 * that order. */
static int get_params(reader *r, json_t *o, const char *key, ln_tuning_entry *e, int *values, int first)
{
    json_t *p = json_object_get(o, key);
    if (!json_is_object(p)) return fail(r, "\"%s\" is missing or not an object", key);
    if (first) {
        if (json_object_size(p) > LN_TUNING_MAXP) return fail(r, "\"%s\" has over %d tunables", key, LN_TUNING_MAXP);
        const char *name;
        json_t *v;
        e->nparams = 0;
        json_object_foreach(p, name, v)
        {
            if (strlen(name) >= sizeof e->name[0]) return fail(r, "\"%s\": tunable name '%s' is too long", key, name);
            snprintf(e->name[e->nparams++], sizeof e->name[0], "%s", name);
        }
    } else if ((int)json_object_size(p) != e->nparams) {
        return fail(r, "\"%s\" names other tunables than \"params\"", key);
    }
    for (int i = 0; i < e->nparams; i++) {
        json_t *v = json_object_get(p, e->name[i]);
        if (!json_is_integer(v)) return fail(r, "\"%s\": '%s' is missing or not an integer", key, e->name[i]);
        if (json_integer_value(v) < -2147483647 - 1 || json_integer_value(v) > 2147483647)
            return fail(r, "\"%s\": '%s' is outside the int range", key, e->name[i]);
        values[i] = (int)json_integer_value(v);
    }
    return 0;
}

/* "timed": [{"values": [v, ...] (in the order of params), "vs_default": x}, ...]; optional. */
static int read_timed(reader *r, json_t *a, ln_tuning_entry *e)
{
    e->ntimed = 0;
    if (!a) return 0;
    if (!json_is_array(a)) return fail(r, "\"timed\" is not an array");
    for (size_t i = 0; i < json_array_size(a) && e->ntimed < LN_TUNING_MAXT; i++) {
        json_t *t = json_array_get(a, i), *v = json_object_get(t, "values");
        ln_tuning_timed *x = &e->timed[e->ntimed];
        if (!json_is_array(v) || (int)json_array_size(v) != e->nparams)
            return fail(r, "\"timed\" %zu: \"values\" is not an array of %d integers", i + 1, e->nparams);
        for (int j = 0; j < e->nparams; j++) {
            if (!json_is_integer(json_array_get(v, j)))
                return fail(r, "\"timed\" %zu: \"values\" is not an array of %d integers", i + 1, e->nparams);
            x->v[j] = (int)json_integer_value(json_array_get(v, j));
        }
        if (get_real(r, t, "vs_default", &x->vs_default)) return -1;
        e->ntimed++;
    }
    return 0;
}

static int read_entry(reader *r, json_t *o, ln_tuning_entry *e)
{
    char op[32];
    long long threads, D, D_min, D_max, bytes, reps = 0, cand = 0, refused = 0;
    if (!json_is_object(o)) return fail(r, "not an object");
    if (get_string(r, o, "kernel", e->kernel, sizeof e->kernel) || get_string(r, o, "op", op, sizeof op) ||
        get_string(r, o, "regime", e->regime, sizeof e->regime) || get_int(r, o, "threads", 1, 4096, 0, &threads) ||
        get_int(r, o, "D", 1, 1LL << 40, 0, &D) || get_int(r, o, "D_min", 1, 1LL << 40, 0, &D_min) ||
        get_int(r, o, "D_max", 1, 1LL << 40, 1, &D_max) || get_int(r, o, "bytes", 0, 1LL << 50, 0, &bytes) ||
        get_params(r, o, "params", e, e->value, 1) || get_params(r, o, "defaults", e, e->def, 0) ||
        get_params(r, o, "best", e, e->best, 0) || get_real(r, o, "gbps", &e->gbps) ||
        get_real(r, o, "gbps_default", &e->gbps_default) || get_real(r, o, "gain", &e->gain) ||
        get_real(r, o, "p_value", &e->p_value) || get_real(r, o, "seconds", &e->seconds))
        return -1;
    json_t *v;
    if ((v = json_object_get(o, "repetitions")) && get_int(r, o, "repetitions", 0, 1 << 30, 0, &reps)) return -1;
    if ((v = json_object_get(o, "candidates")) && get_int(r, o, "candidates", 0, 1 << 30, 0, &cand)) return -1;
    if ((v = json_object_get(o, "refused")) && get_int(r, o, "refused", 0, 1 << 30, 0, &refused)) return -1;
    e->op = LN_NOPS;
    for (int i = 0; i < LN_NOPS; i++)
        if (!strcmp(op, ln_op_name((ln_op)i))) e->op = (ln_op)i;
    if (e->op == LN_NOPS) return fail(r, "\"op\" '%s' is not an operator lnbench knows", op);
    if (strcmp(e->regime, "cache") && strcmp(e->regime, "mixed") && strcmp(e->regime, "memory"))
        return fail(r, "\"regime\" '%s' is not cache, mixed or memory", e->regime);
    if (D_min > D || (D_max && D_max < D)) return fail(r, "D %lld lies outside its range %lld..%lld", D, D_min, D_max);
    e->threads = (int)threads, e->D = (size_t)D, e->D_min = (size_t)D_min, e->D_max = (size_t)D_max;
    e->bytes = (size_t)bytes, e->repetitions = (int)reps, e->candidates = (int)cand, e->refused = (int)refused;
    e->significant = json_is_true(json_object_get(o, "significant"));
    json_t *s = json_object_get(o, "search");
    snprintf(e->search, sizeof e->search, "%s", json_is_string(s) ? json_string_value(s) : "");
    return read_timed(r, json_object_get(o, "timed"), e);
}

int ln_tuning_read(const char *path, ln_tuning *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    reader r = {.err = err, .len = errlen, .where = path};
    if (!root) {
        snprintf(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
        return -1;
    }
    int rc = -1;
    long long format;
    json_t *entries = json_object_get(root, "entries");
    if (!json_is_object(root)) {
        fail(&r, "not a JSON object");
    } else if (get_int(&r, root, "lnbench_tuning", 1, 1000, 0, &format)) {
        snprintf(err, errlen, "%s: not an lnbench tuning file (no \"lnbench_tuning\" version)", path);
    } else if (format != LN_TUNING_FORMAT) {
        fail(&r, "tuning file format %lld; this lnbench reads format %d", format, LN_TUNING_FORMAT);
    } else if (!get_string(&r, root, "cpu_model", t->cpu_model, sizeof t->cpu_model) &&
               !get_string(&r, root, "isa_cap", t->isa_cap, sizeof t->isa_cap) &&
               !get_real(&r, root, "seconds_budget", &t->seconds_budget) &&
               !get_real(&r, root, "seconds_used", &t->seconds_used)) {
        json_t *s;
        if ((s = json_object_get(root, "isa_features")) && json_is_string(s))
            snprintf(t->isa_features, sizeof t->isa_features, "%s", json_string_value(s));
        if ((s = json_object_get(root, "machine_id")) && json_is_string(s))
            snprintf(t->machine_id, sizeof t->machine_id, "%s", json_string_value(s));
        if ((s = json_object_get(root, "date")) && json_is_string(s))
            snprintf(t->date, sizeof t->date, "%s", json_string_value(s));
        if ((s = json_object_get(root, "git_commit")) && json_is_string(s))
            snprintf(t->git_commit, sizeof t->git_commit, "%s", json_string_value(s));
        t->complete = json_is_true(json_object_get(root, "complete"));
        if (!json_is_array(entries)) {
            fail(&r, "\"entries\" is missing or not an array");
        } else {
            rc = 0;
            for (size_t i = 0; i < json_array_size(entries) && rc == 0; i++) {
                char where[64];
                snprintf(where, sizeof where, "%s: entry %zu", path, i + 1);
                reader er = {.err = err, .len = errlen, .where = where};
                ln_tuning_entry e = {0};
                rc = read_entry(&er, json_array_get(entries, i), &e);
                if (rc == 0) ln_tuning_add(t, &e);
            }
        }
    }
    json_decref(root);
    if (rc) ln_tuning_free(t);
    return rc;
}

int ln_tuning_for_this_machine(const ln_tuning *t, const char **why)
{
    ln_tuning here = {0};
    ln_tuning_machine(&here);
    *why = strcmp(t->cpu_model, here.cpu_model) ? "CPU model" : strcmp(t->isa_cap, here.isa_cap) ? "ISA cap" : NULL;
    return *why == NULL;
}

const ln_tuning_entry *ln_tuning_find(const ln_tuning *t, const char *kernel, ln_op op, const char *regime, int threads,
                                      size_t D)
{
    for (size_t i = 0; i < t->n; i++) {
        const ln_tuning_entry *e = &t->e[i];
        if (!strcmp(e->kernel, kernel) && e->op == op && !strcmp(e->regime, regime) && e->threads == threads &&
            D >= e->D_min && (!e->D_max || D <= e->D_max))
            return e;
    }
    return NULL;
}

int ln_tuning_params(const ln_tuning_entry *e, const ln_kernel *k, int *out, char *err, size_t errlen)
{
    for (size_t j = 0; j < k->n_tunables; j++) out[j] = k->tunables[j].def;
    for (int i = 0; i < e->nparams; i++) {
        const long j = ln_tunable_index(k, e->name[i]);
        if (j < 0) {
            snprintf(err, errlen, "%s has no tunable '%s' (a tuning from another lnbench: run lnbench tune again)",
                     k->name, e->name[i]);
            return -1;
        }
        if (!ln_tunable_allows(&k->tunables[j], e->value[i])) {
            snprintf(err, errlen, "%s: %s=%d is not one of its allowed values", k->name, e->name[i], e->value[i]);
            return -1;
        }
        out[j] = e->value[i];
    }
    return 0;
}

const char *ln_tuning_values_text(const ln_tuning_entry *e, const int *v, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < e->nparams && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s=%d", i ? ";" : "", e->name[i], v[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}
