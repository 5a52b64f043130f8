#include "replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"

enum { HEAD = 13 }; /* flags, eps selector, D (2), rows byte, eps (8) */

/* The header of a row of D elements of t at eps, raw values and raw gamma and beta; rows_mark
 * the rows byte's top six bits. */
static void header(uint8_t *head, ln_dtype t, size_t D, double eps, int rows_mark)
{
    if (D == 0 || D > 65535) ln_die_usage("a replay file holds rows of 1 to 65535 elements, not %zu", D);
    head[0] = (uint8_t)(t | 2 << 2); /* raw values, raw gamma and beta */
    head[1] = 0xff;                  /* eps follows in full */
    head[2] = (uint8_t)(D & 0xff);
    head[3] = (uint8_t)(D >> 8);
    head[4] = (uint8_t)(rows_mark | 1);
    uint64_t bits;
    memcpy(&bits, &eps, sizeof bits);
    for (int i = 0; i < 8; i++) head[5 + i] = (uint8_t)(bits >> (8 * i));
}

void ln_replay_write_row(const char *path, ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta,
                         double eps)
{
    uint8_t head[HEAD];
    header(head, t, D, eps, D <= LN_REPLAY_MAX_SHORT_D ? 0 : LN_REPLAY_LONG_ROW);
    size_t es = ln_fmt(t)->size;
    ln_outfile o;
    ln_out_open(&o, path);
    /* the formats' bit patterns, little-endian, as the fuzzer's byte source reads them */
    fwrite(head, 1, sizeof head, o.f);
    fwrite(x, es, D, o.f);
    fwrite(gamma, es, D, o.f);
    fwrite(beta, es, D, o.f);
    ln_out_commit(&o);
}

void ln_replay_write_op_row(const char *path, ln_op op, ln_dtype t, size_t D, const void *const *in, double eps)
{
    if (op == 0) { /* the fuzzer's own problem: x, gamma, beta */
        ln_replay_write_row(path, t, D, in[0], in[1], in[2], eps);
        return;
    }
    uint8_t head[HEAD + 1];
    header(head, t, D, eps, LN_REPLAY_OP_ROW);
    head[HEAD] = (uint8_t)op;
    const ln_op_info *info = &ln_ops[op];
    ln_outfile o;
    ln_out_open(&o, path);
    fwrite(head, 1, sizeof head, o.f);
    for (size_t i = 0, n = 0; i < info->n_roles; i++)
        if (info->roles[i].kind == LN_ROLE_IN) fwrite(in[n++], ln_fmt(t)->size, D, o.f);
    ln_out_commit(&o);
}

int ln_replay_has_op(const uint8_t *data, size_t size) { return size > 4 && (data[4] & 0xfc) == LN_REPLAY_OP_ROW; }

int ln_replay_read(const uint8_t *data, size_t size, ln_replay_row *r)
{
    memset(r, 0, sizeof *r);
    if (!ln_replay_has_op(data, size) || size < HEAD + 1 || data[1] < 20 || data[HEAD] >= LN_NOPS) return -1;
    r->t = (ln_dtype)(data[0] & 3);
    r->D = (size_t)data[2] | (size_t)data[3] << 8;
    r->op = (ln_op)data[HEAD];
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits |= (uint64_t)data[5 + i] << (8 * i);
    memcpy(&r->eps, &bits, sizeof r->eps);
    const ln_op_info *info = &ln_ops[r->op];
    size_t es = ln_fmt(r->t)->size, at = HEAD + 1, n_in = 0;
    for (size_t i = 0; i < info->n_roles; i++) n_in += info->roles[i].kind == LN_ROLE_IN;
    if (r->D == 0 || !(r->eps >= 0) || size < at + n_in * r->D * es) return -1;
    for (size_t i = 0; i < info->n_roles; i++) {
        if (info->roles[i].kind != LN_ROLE_IN) continue;
        if (!(r->in[i] = malloc(r->D * sizeof(double)))) ln_die("out of memory");
        for (size_t j = 0; j < r->D; j++) {
            double e; /* the file's values lie at any alignment: each copied out first */
            memcpy(&e, data + at + j * es, es);
            r->in[i][j] = ln_load(r->t, &e, 0);
        }
        at += r->D * es;
    }
    return 0;
}

void ln_replay_row_free(ln_replay_row *r)
{
    for (size_t i = 0; i < LN_MAX_ROLES; i++) free(r->in[i]);
    memset(r, 0, sizeof *r);
}
