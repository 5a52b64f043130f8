/* Replaying a replay file with an op record (inputs/replay.h): its row as a one-row case of its
 * op, every kernel of the op and dtype measured and judged on it. Above the file format, which
 * the inputs floor reads and writes, since the judging is the measure floor's. */
#include "replay_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "cli.h"
#include "plugin.h"

/* The row as a one-row case of its op, its inputs the file's. */
static int prepare_row(const ln_replay_row *r, ln_prepared *p)
{
    const ln_op_info *info = &ln_ops[r->op];
    ln_case c = {.dtype = r->t, .D = r->D, .rows = 1, .eps = r->eps, .affine = 1, .op = r->op};
    for (size_t i = 0; i < info->n_roles; i++) {
        const ln_role *role = &info->roles[i];
        if (role->kind != LN_ROLE_IN) continue;
        if (role->shape == LN_SHAPE_ROWS_D) c.input_src[i] = r->in[i];
        else if (!strcmp(role->name, "gamma")) c.gamma_src = r->in[i];
        else if (!strcmp(role->name, "beta")) c.beta_src = r->in[i];
    }
    if (ln_prepare(&c, p) != 0) return -1;
    free(p->input); /* the row as stored is the case: judged as given */
    p->input = NULL;
    return 0;
}

int ln_replay_check(const uint8_t *data, size_t size, char *msg, size_t len)
{
    ln_replay_row r;
    if (ln_replay_read(data, size, &r) != 0) {
        snprintf(msg, len, "not a replay file with an op record");
        return -1;
    }
    ln_prepared p;
    if (prepare_row(&r, &p) != 0) {
        snprintf(msg, len, "%s D=%zu: the row cannot be prepared", ln_op_name(r.op), r.D);
        ln_replay_row_free(&r);
        return -1;
    }
    void *y = malloc(r.D * ln_fmt(r.t)->size);
    if (!y) ln_die("out of memory");
    int bad = 0;
    for (size_t i = 0; i < ln_kernel_count() && !bad; i++) {
        const ln_kernel *k = ln_kernel_at(i);
        /* the file's rows are of one format: the kernels of that format alone (not the mixed ones) */
        if (k->op != r.op || !ln_kernel_formats(k, r.t, 0) || k->external || !ln_kernel_available(k)) continue;
        ln_errors e;
        ln_verdict v;
        ln_measure_kernel(k, &p, &e, y);
        ln_judge(k, &p, y, &v);
        if (v.verdict != LN_FAIL) continue;
        snprintf(msg, len, "%s (%s) D=%zu eps=%.17g: %s error %.6g u > bound %.6g u at element %zu", k->name,
                 ln_op_name(r.op), r.D, r.eps, *v.failed_on ? v.failed_on : "output", v.error, v.bound, v.col);
        bad = 1;
    }
    free(y);
    ln_prepared_free(&p);
    ln_replay_row_free(&r);
    return bad;
}
