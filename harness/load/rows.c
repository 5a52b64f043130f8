#include "rows.h"

#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "results.h"

/* Reading order: kernels/ops.def's order, LayerNorm forward first. */
static int op_rank(const char *op)
{
    for (int i = 0; i < LN_NOPS; i++)
        if (!strcmp(op, ln_op_name((ln_op)i))) return i;
    return LN_NOPS;
}

const char *ln_row_op(const ln_table *t, size_t r)
{
    /* accuracy and bench files alike: kernel and op have these names in every schema */
    if (ln_is_probe(ln_table_cell(t, r, ln_table_column(t, LNC_ACC_kernel)))) return "";
    const char *op = ln_table_cell(t, r, ln_table_column(t, LNC_ACC_op));
    return *op ? op : "layernorm";
}

const char *ln_op_title(const char *op)
{
    int i = op_rank(op);
    return i < LN_NOPS ? ln_ops[i].title : op;
}

int ln_backward_op(const char *op)
{
    int i = op_rank(op);
    return i < LN_NOPS && ln_ops[i].forward != (ln_op)i;
}

/* Appends the names of op's roles of one kind and shape (UNTIMED ones: untimed != 0) to buf. */
static void role_names(const ln_op_info *o, ln_role_kind kind, ln_shape shape, int untimed, char *buf, size_t len)
{
    for (size_t i = 0; i < o->n_roles; i++) {
        const ln_role *r = &o->roles[i];
        if (r->kind != kind || r->shape != shape || !(r->flags & LN_ROLE_UNTIMED) != !untimed) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", r->name);
    }
}

int ln_untimed_given(const ln_table *t, const char *op)
{
    int i = op_rank(op), all = 0, untimed = 0, seen = -1;
    if (i == LN_NOPS) return -1;
    for (size_t k = 0; k < ln_ops[i].n_roles; k++) {
        const ln_role *r = &ln_ops[i].roles[k];
        if (r->kind == LN_ROLE_IN && r->shape == LN_SHAPE_COLS) all++, untimed += !!(r->flags & LN_ROLE_UNTIMED);
    }
    if (!untimed) return 1;
    const int ca = ln_table_column(t, LNC_BENCH_affine_bytes), cd = ln_table_column(t, LNC_BENCH_D),
              ct = ln_table_column(t, LNC_BENCH_dtype);
    for (size_t r = 0; r < t->rows; r++) {
        const int dt = ln_dtype_parse(ln_table_cell(t, r, ct));
        if (strcmp(ln_row_op(t, r), op) || dt < 0) continue;
        /* per-column inputs given: affine_bytes over D elements of the dtype (files from before
         * UNTIMED counted 2 D for every op: all given, as they were) */
        const double n = ln_table_num(t, r, ca) / (ln_table_num(t, r, cd) * (double)ln_fmt((ln_dtype)dt)->size);
        if (!(n >= 0)) continue;
        const int given = n > all - untimed + 0.5;
        if (seen >= 0 && given != seen) return -1;
        seen = given;
    }
    return seen;
}

void ln_op_bytes_text(const char *op, int given, char *counted, char *uncounted, size_t len)
{
    int i = op_rank(op);
    counted[0] = uncounted[0] = 0;
    if (i == LN_NOPS) return;
    const ln_op_info *o = &ln_ops[i];
    char in[128] = "", out[128] = "", cols[128] = "", untimed[128] = "";
    role_names(o, LN_ROLE_IN, LN_SHAPE_ROWS_D, 0, in, sizeof in);
    role_names(o, LN_ROLE_OUT, LN_SHAPE_ROWS_D, 0, out, sizeof out);
    role_names(o, LN_ROLE_IN, LN_SHAPE_COLS, 0, cols, sizeof cols);
    role_names(o, LN_ROLE_OUT, LN_SHAPE_COLS, 0, cols, sizeof cols);
    if (o->forward != (ln_op)i) snprintf(cols + strlen(cols), sizeof cols - strlen(cols), " and the saved statistics");
    role_names(o, LN_ROLE_IN, LN_SHAPE_COLS, 1, untimed, sizeof untimed);
    snprintf(counted, len, "%s read + %s written", in, out);
    const char *how = given > 0    ? ""
                      : given == 0 ? " not given, as models run the op (bench --every-input gives it)"
                                   : " given to some rows and not to others, as their affine_bytes say";
    snprintf(uncounted, len, "%s%s%s%s", cols, *untimed ? (given > 0 ? ", " : "; ") : "", untimed, *untimed ? how : "");
}

void ln_collect_ops(const ln_table *t, const char **ops, size_t *n)
{
    for (size_t r = 0; r < t->rows; r++) {
        const char *op = ln_row_op(t, r);
        if (*op) ln_add_unique(ops, n, LN_MAX_OPS, op);
    }
    ln_sort_ops(ops, *n);
}

void ln_sort_ops(const char **ops, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort by rank: the others keep their order */
        for (size_t j = i; j > 0 && op_rank(ops[j - 1]) > op_rank(ops[j]); j--) {
            const char *s = ops[j];
            ops[j] = ops[j - 1], ops[j - 1] = s;
        }
}

int ln_row_threads(const ln_table *t, size_t r)
{
    double v = ln_table_num(t, r, ln_table_column(t, LNC_BENCH_threads));
    return v >= 1 ? (int)v : 1;
}

size_t ln_table_threads(const ln_table *t, int *threads, size_t cap)
{
    size_t n = 0;
    for (size_t r = 0; r < t->rows; r++) {
        int k = ln_row_threads(t, r);
        size_t i = 0;
        while (i < n && threads[i] != k) i++;
        if (i < n) continue;
        if (n == cap) { /* full: keep the smallest counts */
            if (k > threads[n - 1]) continue;
            n--;
        }
        for (i = n++; i > 0 && threads[i - 1] > k; i--) threads[i] = threads[i - 1];
        threads[i] = k;
    }
    return n;
}
