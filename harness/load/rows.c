#include "rows.h"

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
