/* The op table (kernels/ops.def) against what it stands for: the enum values results files and
 * plugins store; each role's ln_args member; the bytes the bench counts; and, op by op, the
 * table's reference entry point, role order and centring against the reference functions called
 * directly, with every output and judged statistic of a kernel measured by the accuracy path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "cli.h"
#include "kernel.h"
#include "reference.h"

/* The values stored in results files and compiled into plugins: an op keeps its number. */
static void test_enum_values_fixed(void **state)
{
    (void)state;
    assert_int_equal(LN_OP_LAYERNORM, 0);
    assert_int_equal(LN_OP_RMSNORM, 1);
    assert_int_equal(LN_OP_LAYERNORM_BWD, 2);
    assert_int_equal(LN_OP_RMSNORM_BWD, 3);
    assert_int_equal(LN_OP_ADD_RMSNORM, 4);
    assert_int_equal(LN_OP_ADD_LAYERNORM, 5);
    assert_int_equal(LN_NOPS, 6);
    assert_int_equal(LN_OP_COPY, LN_NOPS);
    const char *names[] = {"layernorm",   "rmsnorm",       "layernorm-bwd", "rmsnorm-bwd",
                           "add-rmsnorm", "add-layernorm", "copy"};
    for (int op = 0; op <= LN_NOPS; op++) {
        assert_string_equal(ln_op_name((ln_op)op), names[op]);
        if (op < LN_NOPS) assert_int_equal(ln_parse_op(names[op]), op);
    }
    assert_null(ln_op_name((ln_op)(LN_NOPS + 1)));
    assert_string_equal(ln_op_list(), "layernorm, rmsnorm, layernorm-bwd, rmsnorm-bwd, add-rmsnorm, add-layernorm");
}

/* ln_args's members by name: a role's field must be the member it is named after, of the kind
 * its shape needs (an element pointer for rows x D and per-column tensors, double * per row). */
static const struct {
    const char *name;
    size_t field;
    ln_shape shape;
} members[] = {
    {"x", offsetof(ln_args, x), LN_SHAPE_ROWS_D},         {"y", offsetof(ln_args, y), LN_SHAPE_ROWS_D},
    {"gamma", offsetof(ln_args, gamma), LN_SHAPE_COLS},   {"beta", offsetof(ln_args, beta), LN_SHAPE_COLS},
    {"mean", offsetof(ln_args, mean), LN_SHAPE_ROWS},     {"rstd", offsetof(ln_args, rstd), LN_SHAPE_ROWS},
    {"dy", offsetof(ln_args, dy), LN_SHAPE_ROWS_D},       {"dx", offsetof(ln_args, dx), LN_SHAPE_ROWS_D},
    {"dgamma", offsetof(ln_args, dgamma), LN_SHAPE_COLS}, {"dbeta", offsetof(ln_args, dbeta), LN_SHAPE_COLS},
    {"r", offsetof(ln_args, r), LN_SHAPE_ROWS_D},         {"h", offsetof(ln_args, h), LN_SHAPE_ROWS_D},
};

static void test_roles_are_ln_args_members(void **state)
{
    (void)state;
    for (int op = 0; op < LN_NOPS; op++) {
        const ln_op_info *o = &ln_ops[op];
        size_t outs = 0, full = 0;
        assert_true(o->n_roles > 0 && o->n_roles <= LN_MAX_ROLES);
        /* x first: the drawn distribution, the input every case and the bench fill from */
        assert_string_equal(o->roles[0].name, "x");
        assert_int_equal(o->roles[0].kind, LN_ROLE_IN);
        for (size_t i = 0; i < o->n_roles; i++) {
            const ln_role *r = &o->roles[i];
            size_t m = 0;
            while (m < sizeof members / sizeof members[0] && strcmp(members[m].name, r->name)) m++;
            assert_true(m < sizeof members / sizeof members[0]);
            assert_int_equal(r->field, members[m].field);
            assert_int_equal(r->shape, members[m].shape);
            for (size_t j = 0; j < i; j++) assert_true(o->roles[j].field != r->field); /* once each */
            outs += r->kind == LN_ROLE_OUT;
            full += r->shape == LN_SHAPE_ROWS_D;
            /* statistics are per row; what the forward op saves is what its backward reads */
            if (r->kind == LN_ROLE_STAT || r->kind == LN_ROLE_SAVED) assert_int_equal(r->shape, LN_SHAPE_ROWS);
            if (r->kind == LN_ROLE_SAVED) {
                const ln_op_info *f = &ln_ops[o->forward];
                size_t j = 0;
                while (j < f->n_roles && strcmp(f->roles[j].name, r->name)) j++;
                assert_true(j < f->n_roles && f->roles[j].kind == LN_ROLE_STAT);
            }
        }
        assert_true(outs >= 1); /* a verdict is on the first output */
        /* at most one normalised tensor, of rows x D; correctly rounded outputs are rows x D */
        size_t normed = 0;
        for (size_t i = 0; i < o->n_roles; i++) {
            normed += !!(o->roles[i].flags & LN_ROLE_NORMED);
            if (o->roles[i].flags & (LN_ROLE_NORMED | LN_ROLE_CR)) assert_int_equal(o->roles[i].shape, LN_SHAPE_ROWS_D);
            if (o->roles[i].flags & LN_ROLE_CR) assert_int_equal(o->roles[i].kind, LN_ROLE_OUT);
        }
        assert_true(normed <= 1);
        /* summed inputs are rows x D inputs, at least two of them, summed into a normalised output */
        size_t summed = 0;
        for (size_t i = 0; i < o->n_roles; i++)
            if (o->roles[i].flags & LN_ROLE_SUMMED) {
                assert_true(o->roles[i].kind == LN_ROLE_IN && o->roles[i].shape == LN_SHAPE_ROWS_D);
                summed++;
            }
        assert_true(summed == 0 || (summed >= 2 && normed == 1));
        /* the bench counts every rows x D tensor read or written once (results/README.md) */
        assert_int_equal(o->bytes, (int)full);
        /* a forward op is its own forward and reads no statistics */
        assert_true(o->forward < LN_NOPS && ln_ops[o->forward].forward == o->forward);
        assert_int_equal(o->centres, ln_ops[o->forward].centres);
        assert_int_equal(o->affine_bound, o->forward == (ln_op)op);
    }
    /* the numbers results/README.md states for GB/s */
    assert_int_equal(ln_ops[LN_OP_LAYERNORM].bytes, 2);
    assert_int_equal(ln_ops[LN_OP_LAYERNORM_BWD].bytes, 3);
    assert_int_equal(ln_ops[LN_OP_ADD_RMSNORM].bytes, 4);
    assert_int_equal(ln_ops[LN_OP_ADD_LAYERNORM].bytes, 4);
}

/* The first kernel of op and dtype f32 this CPU runs, built in. */
static const ln_kernel *kernel_of(ln_op op)
{
    for (size_t i = 0; i < ln_num_kernels; i++)
        if (ln_all_kernels[i]->op == op && ln_all_kernels[i]->dtype == LN_F32 && ln_kernel_available(ln_all_kernels[i]))
            return ln_all_kernels[i];
    for (size_t i = 0; i < ln_num_op_kernels; i++)
        if (ln_op_kernels[i]->op == op && ln_op_kernels[i]->dtype == LN_F32 && ln_kernel_available(ln_op_kernels[i]))
            return ln_op_kernels[i];
    return NULL;
}

enum { ROWS = 3, D = 24 };

/* The case's references against the reference functions called directly on its inputs: the
 * table's entry point, its role order and its centring. */
static void check_reference(const ln_prepared *p, ln_op op)
{
    const ln_op_info *o = &ln_ops[op];
    float want[ROWS * D], dg[D], db[D];
    double hi[ROWS * D], lo[ROWS * D];
    ln_ref_stats st[ROWS];
    if (o->forward == op) {
        /* the fused ops normalise h = x + r, here by double addition (exact for these values)
         * rounded once to fp32; the others x */
        const float *xs = p->x;
        float h[ROWS * D];
        if (o->n_roles > 1 && !strcmp(o->roles[1].name, "r")) {
            for (size_t i = 0; i < ROWS * D; i++)
                h[i] = (float)((double)((const float *)p->x)[i] + ((const float *)p->role[1].data)[i]);
            size_t hi_role = 0;
            while (strcmp(o->roles[hi_role].name, "h")) hi_role++;
            assert_memory_equal(p->role[hi_role].ref, h, sizeof h);
            xs = h;
        }
        for (size_t r = 0; r < ROWS; r++)
            (o->centres ? ln_ref_row : ln_ref_rms_row)(LN_F32, D, xs + r * D, p->gamma, p->beta, 1e-5, want + r * D,
                                                       hi + r * D, lo + r * D, &st[r]);
    } else {
        ln_ref_bwd_rows(o->centres, LN_F32, ROWS, D, p->x, p->dy, p->gamma, 1e-5, want, hi, lo, dg, NULL, NULL, db,
                        NULL, NULL, st);
        assert_memory_equal(p->dg_ref, dg, sizeof dg);
        assert_memory_equal(p->db_ref, db, sizeof db);
        /* the saved statistics given are the exact ones; with them taken as exact, dx again */
        for (size_t r = 0; r < ROWS; r++) {
            assert_true(p->given_rstd[r] == st[r].rstd);
            if (o->centres) assert_true(p->given_mean[r] == st[r].mean);
        }
        float dxs[ROWS * D];
        ln_ref_bwd_saved_rows(o->centres, LN_F32, ROWS, D, p->x, p->dy, p->gamma, p->given_mean, p->given_rstd, dxs,
                              NULL, NULL);
        assert_memory_equal(p->dxs_ref, dxs, sizeof dxs);
    }
    assert_memory_equal(p->y_ref, want, sizeof want);
    assert_memory_equal(p->y_hi, hi, sizeof hi);
    for (size_t r = 0; r < ROWS; r++) {
        assert_true(p->stats[r].rstd == st[r].rstd);
        if (!o->centres) assert_true(p->stats[r].mean == 0);
    }
}

static void test_each_op_measured_through_the_table(void **state)
{
    (void)state;
    for (int op = 0; op < LN_NOPS; op++) {
        const ln_op_info *o = &ln_ops[op];
        const ln_kernel *k = kernel_of((ln_op)op);
        assert_non_null(k);
        ln_case c = {.dtype = LN_F32,
                     .dist = {.kind = LN_DIST_NORMAL, .spec = "normal"},
                     .D = D,
                     .rows = ROWS,
                     .eps = 1e-5,
                     .seed = 11,
                     .affine = 1,
                     .op = (ln_op)op};
        ln_prepared p;
        assert_int_equal(ln_prepare(&c, &p), 0);
        check_reference(&p, (ln_op)op);
        /* every input of the op there (the optional ones with affine), none of another's */
        for (size_t i = 0; i < LN_MAX_ROLES; i++) {
            int in = i < o->n_roles && (o->roles[i].kind == LN_ROLE_IN || o->roles[i].kind == LN_ROLE_SAVED);
            assert_true(!p.role[i].data == !in);
            int out = i < o->n_roles && o->roles[i].kind == LN_ROLE_OUT;
            assert_true(!p.role[i].ref == !out);
        }
        /* a domain is decided on the row facts of the tensor the op normalises: h for the fused ops */
        const float *normed = p.x;
        for (size_t i = 0; i < o->n_roles; i++)
            if (o->roles[i].flags & LN_ROLE_NORMED) normed = p.role[i].ref;
        ln_row_facts f;
        ln_row_facts_of(&p, 1, &f);
        double top = 0;
        for (size_t i = 0; i < D; i++) /* not fmax: gcc 12 for aarch64 fails to vectorize that reduction */
            top = fabs(normed[D + i]) > top ? fabs(normed[D + i]) : top;
        assert_true(f.max_abs_x == top && f.var == p.stats[1].var);
        /* the summed inputs are what the normalised tensor is the sum of, rounded once to fp32 */
        for (size_t k = 0, any = 0; k < ROWS * D; k++) {
            double sum = 0;
            for (size_t i = 0; i < o->n_roles; i++)
                if (o->roles[i].flags & LN_ROLE_SUMMED) sum += ((const float *)p.role[i].data)[k], any = 1;
            if (any) assert_true(normed[k] == (float)sum);
        }
        ln_errors e;
        ln_verdict v;
        float y[ROWS * D];
        ln_measure_kernel(k, &p, &e, y);
        ln_judge(k, &p, y, &v);
        assert_true(v.verdict == LN_PASS || v.verdict == LN_NONE);
        /* every output compared with its reference; every judged statistic measured */
        for (size_t i = 0; i < o->n_roles; i++) {
            const ln_role *r = &o->roles[i];
            if (r->kind == LN_ROLE_OUT) {
                assert_true(isfinite(e.role[i].max_ulp) && isfinite(e.role[i].max_norm));
                assert_true(e.role[i].max_ulp < 1e3);
            } else if (r->kind == LN_ROLE_STAT) { /* measured; held to the bound when judged */
                if (r->flags & LN_ROLE_JUDGED) assert_true(e.role[i].relerr < 1e-5);
                assert_true(isnan(e.role[i].max_ulp));
            } else {
                assert_true(isnan(e.role[i].max_ulp) && isnan(e.role[i].relerr));
            }
        }
        /* the results file's columns are those roles' figures */
        if (o->forward == (ln_op)op) {
            assert_true(isnan(e.dgamma_max_ulp) && isnan(e.dx_saved_max_ulp) && !isnan(e.rstd_relerr));
        } else {
            assert_true(!isnan(e.dgamma_max_ulp) && !isnan(e.dbeta_max_norm) && !isnan(e.dx_saved_max_ulp));
            assert_true(isnan(e.mean_relerr) && isnan(e.rstd_relerr));
        }
        /* a wrong first output is caught, by name */
        y[5] = y[5] * 1.5f + 1;
        ln_judge(k, &p, y, &v);
        assert_int_equal(v.verdict, LN_FAIL);
        size_t first = 0;
        while (o->roles[first].kind != LN_ROLE_OUT) first++;
        assert_string_equal(v.failed_on, o->roles[first].name);
        /* and so is a correctly rounded output off by one ulp, y right */
        for (size_t i = 0; i < o->n_roles; i++) {
            if (!(o->roles[i].flags & LN_ROLE_CR)) continue;
            ln_measure_kernel(k, &p, &e, y);
            float *h = p.run->out[i];
            h[7] = nextafterf(h[7], INFINITY);
            ln_judge(k, &p, y, &v);
            assert_int_equal(v.verdict, LN_FAIL);
            assert_string_equal(v.failed_on, o->roles[i].name);
        }
        ln_prepared_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enum_values_fixed),
        cmocka_unit_test(test_roles_are_ln_args_members),
        cmocka_unit_test(test_each_op_measured_through_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
