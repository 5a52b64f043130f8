/* Accuracy cases and error metrics; the definitions and their reasons are in docs/metrics.md. */
#include "accuracy.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bounds.h"
#include "cli.h"

static size_t elements(const ln_case *c) { return c->rows * c->D; }

const char *const ln_input_names[] = {"ok", "overflow", "underflow", "collapsed", "nonfinite"};
const char *const ln_verdict_names[] = {"pass", "fail", "outside", "none"};
/* The domain column of a case whose input degenerated. */
static const char *const input_domains[] = {"ok", "input-overflow", "input-underflow", "input-collapsed",
                                            "input-nonfinite"};

/* What rounding the drawn row (D doubles) to t did to it, x the stored row. */
static ln_input classify_row(ln_dtype t, const double *drawn, const void *x, size_t D)
{
    int drawn_constant = 1, stored_constant = 1;
    for (size_t i = 0; i < D; i++)
        if (!isfinite(drawn[i])) return LN_INPUT_NONFINITE;
    for (size_t i = 0; i < D; i++)
        if (isinf(ln_load(t, x, i))) return LN_INPUT_OVERFLOW;
    for (size_t i = 0; i < D; i++)
        if (drawn[i] != 0 && ln_load(t, x, i) == 0) return LN_INPUT_UNDERFLOW;
    for (size_t i = 1; i < D; i++) {
        drawn_constant &= drawn[i] == drawn[0];
        stored_constant &= ln_load(t, x, i) == ln_load(t, x, 0);
    }
    return !drawn_constant && stored_constant ? LN_INPUT_COLLAPSED : LN_INPUT_OK;
}

int ln_isolate_kernels;
void (*ln_kernel_died)(const ln_kernel *k, const char *how);

/* The const inputs of a call, each given to the kernel as a copy and compared with the original
 * after it: a write is caught whatever the kernel does, and the original stays pristine. Writing
 * the copies costs two passes over the inputs per call, far below the reference's cost (measured
 * in docs/metrics.md); read-only pages would need page-aligned copies all the same. */
typedef struct {
    const char *name;
    size_t field; /* the ln_args member it is given in */
    const void *original;
    void *copy;
    size_t bytes;
} guarded;

typedef struct {
    void *data;
    size_t bytes;
} span;

/* Sets the ln_args pointer member at offset field (a const void *, void * or double *). */
static void set_field(ln_args *a, size_t field, const void *ptr) { memcpy((char *)a + field, &ptr, sizeof ptr); }

/* The op's table line (ops.def). */
static const ln_op_info *op_of(const ln_case *c) { return &ln_ops[c->op]; }

/* Elements of a role of shape s in case c, and its element size. */
static size_t role_count(const ln_case *c, ln_shape s)
{
    return s == LN_SHAPE_ROWS_D ? elements(c) : s == LN_SHAPE_COLS ? c->D : c->rows;
}
/* The element format of a tensor role of case c: the dtype, or the residual format (RESID). */
static ln_dtype role_format(const ln_case *c, const ln_role *r) { return ln_role_format(r->flags, c->dtype, c->resid); }
static size_t role_size(const ln_case *c, const ln_role *r)
{
    return r->shape == LN_SHAPE_ROWS ? sizeof(double) : ln_fmt(role_format(c, r))->size;
}
static size_t role_bytes(const ln_case *c, const ln_role *r) { return role_count(c, r->shape) * role_size(c, r); }

/* The index of op's role called name, or -1. */
static int role_index(const ln_op_info *op, const char *name)
{
    for (size_t i = 0; i < op->n_roles; i++)
        if (!strcmp(op->roles[i].name, name)) return (int)i;
    return -1;
}

/* The index of op's first output, the one a verdict is on (every op has one: tests/test_optable.c). */
static int first_output(const ln_op_info *op)
{
    for (size_t i = 0; i < op->n_roles; i++)
        if (op->roles[i].kind == LN_ROLE_OUT) return (int)i;
    return 0;
}

static void die_of_kernel(const ln_kernel *k, const char *how)
{
    if (ln_kernel_died) ln_kernel_died(k, how);
    ln_die("kernel %s %s", k->name, how);
}

/* The index of the first input whose copy differs from its original, or -1. */
static int first_written(const guarded *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++)
        if (memcmp(g[i].original, g[i].copy, g[i].bytes) != 0) return (int)i;
    return -1;
}

/* k->forward(a) in a child process: the outputs (and which input was written) come back through
 * a shared mapping; the parent's memory is never the kernel's. */
static int call_in_child(const ln_kernel *k, const ln_args *a, const span *outs, size_t nouts, const guarded *g,
                         size_t ng)
{
    size_t total = 2 * sizeof(int);
    for (size_t i = 0; i < nouts; i++) total += outs[i].bytes;
    int *shared = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) ln_die("cannot map memory for a kernel's outputs");
    shared[0] = 0; /* set by a child that returns from the kernel */
    fflush(NULL);  /* nothing buffered is written twice by a child that exits through stdio */
    pid_t pid = fork();
    if (pid < 0) ln_die("cannot start a process for kernel %s", k->name);
    if (pid == 0) {
        k->forward(a);
        char *at = (char *)(shared + 2);
        for (size_t i = 0; i < nouts; i++) memcpy(at, outs[i].data, outs[i].bytes), at += outs[i].bytes;
        shared[1] = first_written(g, ng);
        shared[0] = 1;
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) ln_die("lost the process of kernel %s", k->name);
    if (!shared[0]) {
        char how[96];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else snprintf(how, sizeof how, "ended the process (exit status %d) before returning", WEXITSTATUS(status));
        munmap(shared, total);
        die_of_kernel(k, how);
    }
    const char *at = (const char *)(shared + 2);
    for (size_t i = 0; i < nouts; i++) memcpy(outs[i].data, at, outs[i].bytes), at += outs[i].bytes;
    int wrote = shared[1];
    munmap(shared, total);
    return wrote;
}

/* Runs k on a, whose const inputs (g, ng) are given as copies; outs are the buffers it writes.
 * Returns the name of the first input it changed, or NULL; the message names the kernel. */
static const char *guarded_call(const ln_kernel *k, ln_args *a, const span *outs, size_t nouts, guarded *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++) {
        g[i].copy = malloc(g[i].bytes ? g[i].bytes : 1);
        if (!g[i].copy) ln_die("out of memory");
        memcpy(g[i].copy, g[i].original, g[i].bytes);
        set_field(a, g[i].field, g[i].copy);
    }
    int w = ln_isolate_kernels ? call_in_child(k, a, outs, nouts, g, ng) : (k->forward(a), first_written(g, ng));
    const char *wrote = w >= 0 ? g[w].name : NULL;
    if (wrote)
        fprintf(stderr,
                "lnbench: kernel %s wrote its const input %s: it fails this case (judged on the input as given)\n",
                k->name, wrote);
    for (size_t i = 0; i < ng; i++) free(g[i].copy);
    return wrote;
}

/* Kernel k (of op `op`, the case's op or the forward op whose statistics it saves) on p's
 * tensors: every input and saved statistic of op's roles, found by name in p (absent: NULL),
 * given as a guarded copy; out[i] the buffer of op's role i when it is an output or a returned
 * statistic. Returns the input it wrote, or NULL. */
static const char *run_kernel(const ln_kernel *k, const ln_op_info *op, const ln_prepared *p, void *const *out)
{
    const ln_case *c = &p->c;
    const ln_op_info *have = op_of(c);
    ln_args a = {.rows = c->rows, .D = c->D, .eps = c->eps};
    guarded g[LN_MAX_ROLES];
    span outs[LN_MAX_ROLES];
    size_t ng = 0, nouts = 0;
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        if (r->kind == LN_ROLE_IN || r->kind == LN_ROLE_SAVED) {
            int j = role_index(have, r->name);
            if (j >= 0 && p->role[j].data)
                g[ng++] = (guarded){r->name, r->field, p->role[j].data, NULL, role_bytes(c, r)};
        } else if (out[i]) {
            set_field(&a, r->field, out[i]);
            outs[nouts++] = (span){out[i], role_bytes(c, r)};
        }
    }
    return guarded_call(k, &a, outs, nouts, g, ng);
}

/* Marks a statistic the kernel did not write: a NaN with a payload no arithmetic produces. */
static const uint64_t not_written_bits = 0x7ff4dead5eed0001u;

/* Buffers for every output and returned statistic of op on case c (NULL for its other roles):
 * NaN in every output first, so an element the kernel forgets to write is a mismatch, and the
 * not-written NaN in every statistic. */
static void alloc_outputs(const ln_case *c, const ln_op_info *op, void **out)
{
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        out[i] = NULL;
        if (r->kind != LN_ROLE_OUT && r->kind != LN_ROLE_STAT) continue;
        size_t n = role_count(c, r->shape);
        out[i] = malloc(role_bytes(c, r) ? role_bytes(c, r) : 1);
        if (!out[i]) ln_die("out of memory");
        for (size_t e = 0; e < n; e++)
            if (r->kind == LN_ROLE_OUT) ln_store(role_format(c, r), out[i], e, NAN);
            else memcpy((double *)out[i] + e, &not_written_bits, sizeof(double));
    }
}

static void free_outputs(const ln_op_info *op, void **out, int keep)
{
    for (size_t i = 0; i < op->n_roles; i++)
        if ((int)i != keep) free(out[i]);
}

/* The statistics a real forward pass saves: c->saved_kernel's (a kernel of the forward op) on
 * the case's inputs and eps, its outputs dropped. A statistic the forward op does not judge (a
 * non-centring op's mean, which its kernels need not write) starts at 0, a judged one at NaN:
 * a forward kernel that returns no rstd gives the backward kernels NaN, never a made-up value. */
static int saved_by_kernel(const ln_case *c, ln_prepared *p)
{
    const ln_kernel *k = c->saved_kernel;
    const ln_op_info *op = op_of(c), *fwd = &ln_ops[op->forward];
    if (k->op != op->forward || k->dtype != c->dtype) {
        fprintf(stderr, "lnbench: saved statistics: %s is a %s %s kernel; this case needs %s %s\n", k->name,
                ln_fmt(k->dtype)->name, ln_op_name(k->op), ln_fmt(c->dtype)->name, fwd->name);
        return -1;
    }
    void *out[LN_MAX_ROLES];
    alloc_outputs(c, fwd, out);
    for (size_t i = 0; i < fwd->n_roles; i++) {
        int j = role_index(op, fwd->roles[i].name);
        if (fwd->roles[i].kind != LN_ROLE_STAT || j < 0 || op->roles[j].kind != LN_ROLE_SAVED) continue;
        for (size_t r = 0; r < c->rows; r++) ((double *)out[i])[r] = fwd->roles[i].flags & LN_ROLE_JUDGED ? NAN : 0;
    }
    (void)run_kernel(k, fwd, p, out); /* a write is named; the inputs stay pristine */
    for (size_t i = 0; i < fwd->n_roles; i++) {
        int j = role_index(op, fwd->roles[i].name);
        if (fwd->roles[i].kind == LN_ROLE_STAT && j >= 0 && op->roles[j].kind == LN_ROLE_SAVED)
            memcpy(p->role[j].data, out[i], c->rows * sizeof(double));
    }
    free_outputs(fwd, out, -1);
    return 0;
}

/* The reference entry points of ops.def, by op: the op's reference, and for the backward ops
 * the one that takes the saved statistics as given. */
static const struct {
    ln_ref_op *reference, *saved;
} references[LN_NOPS] = {
#define LN_OP(NAME, name, title, forward, centres, bytes, affine, mem, ref, saved, ...) {ref, saved},
#include "ops.def"
#undef LN_OP
};

/* A statistic of the reference's by the name of the role that carries it. */
static double ref_stat(const ln_ref_stats *s, const char *name) { return !strcmp(name, "mean") ? s->mean : s->rstd; }

/* The per-column outputs' condition numbers (dgamma_kappa, dbeta_kappa): sum over the rows of
 * |dy xhat| (the gain's gradient) and |dy| (the bias's), over the largest exact output. */
static void column_kappas(const ln_case *c, ln_prepared *p)
{
    if (!p->dy || !p->dg_hi || !p->db_hi) return;
    ln_dtype t = c->dtype;
    double abs_dg = 0, abs_db = 0, max_dg = 0, max_db = 0;
    for (size_t j = 0; j < c->D; j++) {
        double sg = 0, sb = 0;
        for (size_t r = 0; r < c->rows; r++) {
            double dy = fabs(ln_load(t, p->dy, r * c->D + j)), x = ln_load(t, p->x, r * c->D + j);
            sg += dy * fabs((x - p->stats[r].mean) * p->stats[r].rstd);
            sb += dy;
        }
        abs_dg = fmax(abs_dg, sg), abs_db = fmax(abs_db, sb);
        max_dg = fmax(max_dg, fabs(p->dg_hi[j])), max_db = fmax(max_db, fabs(p->db_hi[j]));
    }
    p->dgamma_kappa = abs_dg / max_dg, p->dbeta_kappa = abs_db / max_db;
}

double ln_case_bytes(ln_op op, ln_dtype t, size_t rows, size_t D)
{
    double es = (double)ln_fmt(t)->size, n = (double)rows * (double)D;
    /* measured at D = 1e5 .. 4e5 (f32, f64, bf16): forward 28-31 bytes per element of the case
     * and 146-151 per element of the row the reference works on; backward 52 and 268-273 */
    const ln_op_info *o = &ln_ops[op];
    return n * (o->mem_elements * es + o->mem_bytes) + (double)D * o->mem_row_bytes;
}

/* The arrays of p by name (accuracy.h), for the readers that know their op: to_roles 0 names
 * the role arrays; 1 takes the role arrays from the names, for a case built by hand. */
static void link_names(ln_prepared *p, int to_roles)
{
    const ln_op_info *op = op_of(&p->c);
#define LINK(role_field, named) (to_roles ? (void)((role_field) = (named)) : (void)((named) = (role_field)))
    static const char *const inputs[] = {"x", "gamma", "beta", "dy", "mean", "rstd"};
    void **in_names[] = {&p->x, &p->gamma, &p->beta, &p->dy, (void **)&p->given_mean, (void **)&p->given_rstd};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        int i = role_index(op, inputs[k]);
        if (i >= 0 && op->roles[i].kind != LN_ROLE_STAT) LINK(p->role[i].data, *in_names[k]);
    }
    int i = role_index(op, "dgamma");
    if (i >= 0) LINK(p->role[i].ref, p->dg_ref), LINK(p->role[i].hi, p->dg_hi), LINK(p->role[i].lo, p->dg_lo);
    if ((i = role_index(op, "dbeta")) >= 0)
        LINK(p->role[i].ref, p->db_ref), LINK(p->role[i].hi, p->db_hi), LINK(p->role[i].lo, p->db_lo);
    i = first_output(op);
    LINK(p->role[i].ref, p->y_ref), LINK(p->role[i].hi, p->y_hi), LINK(p->role[i].lo, p->y_lo);
    LINK(p->role[i].sref, p->dxs_ref), LINK(p->role[i].shi, p->dxs_hi), LINK(p->role[i].slo, p->dxs_lo);
#undef LINK
}

/* p itself when its role arrays are set (ln_prepare), else a copy in *tmp whose role arrays are
 * its named ones (a case built by hand: x, gamma, beta, y_ref, ...). */
static const ln_prepared *with_roles(const ln_prepared *p, ln_prepared *tmp)
{
    if (p->role[0].data) return p;
    *tmp = *p;
    link_names(tmp, 1);
    return tmp;
}

/* Allocates every array of p's roles; 0, or -1 when out of memory. Optional inputs are given
 * with c->affine only. */
static int alloc_roles(const ln_case *c, ln_prepared *p)
{
    const ln_op_info *op = op_of(c);
    int out0 = first_output(op), ok = 1;
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        ln_role_data *d = &p->role[i];
        size_t n = role_count(c, r->shape), bytes = role_bytes(c, r);
        if (r->kind == LN_ROLE_IN && (!(r->flags & LN_ROLE_OPT) || c->affine)) ok &= !!(d->data = malloc(bytes));
        if (r->kind == LN_ROLE_SAVED) ok &= !!(d->data = malloc(bytes));
        if (r->kind != LN_ROLE_OUT) continue;
        d->ref = malloc(bytes), d->hi = malloc(n * sizeof(double)), d->lo = malloc(n * sizeof(double));
        ok &= d->ref && d->hi && d->lo;
        if ((int)i == out0 && references[c->op].saved) {
            d->sref = malloc(bytes), d->shi = malloc(n * sizeof(double)), d->slo = malloc(n * sizeof(double));
            ok &= d->sref && d->shi && d->slo;
        }
    }
    link_names(p, 0);
    return ok ? 0 : -1;
}

/* The inputs other than x and the affine ones: each further rows x D input (dy) normal with a
 * seed of its own. */
static void fill_other_inputs(const ln_case *c, ln_prepared *p)
{
    const ln_op_info *op = op_of(c);
    uint64_t salt = 0;
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        if (r->kind != LN_ROLE_IN || r->shape != LN_SHAPE_ROWS_D || p->role[i].data == p->x) continue;
        ln_dist normal = {.kind = LN_DIST_NORMAL};
        salt += 0x9e3779b97f4a7c15u;
        if (c->input_src[i])
            for (size_t e = 0; e < elements(c); e++)
                ln_store(role_format(c, r), p->role[i].data, e, c->input_src[i][e]);
        else ln_dist_fill(&normal, role_format(c, r), c->rows, c->D, c->seed ^ salt, p->role[i].data);
    }
}

/* The saved statistics: the exact ones rounded to double (or to fp32 with saved_f32), or
 * c->saved_kernel's. */
static int fill_saved(const ln_case *c, ln_prepared *p)
{
    const ln_op_info *op = op_of(c);
    if (c->saved_kernel) return saved_by_kernel(c, p);
    for (size_t i = 0; i < op->n_roles; i++) {
        if (op->roles[i].kind != LN_ROLE_SAVED) continue;
        double *s = p->role[i].data;
        for (size_t r = 0; r < c->rows; r++) {
            double v = ref_stat(&p->stats[r], op->roles[i].name);
            s[r] = c->saved_f32 ? (float)v : v;
        }
    }
    return 0;
}

/* Calls the op's reference (saved: the second one, into sref, shi, slo) on p's inputs. */
static void call_reference(const ln_case *c, ln_prepared *p, int saved)
{
    const ln_op_info *op = op_of(c);
    const void *in[LN_MAX_ROLES];
    ln_ref_out out[LN_MAX_ROLES];
    size_t ni = 0, no = 0;
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        ln_role_data *d = &p->role[i];
        if (r->kind == LN_ROLE_IN || r->kind == LN_ROLE_SAVED) in[ni++] = d->data;
        if (r->kind == LN_ROLE_OUT)
            out[no++] = saved ? (ln_ref_out){d->sref, d->shi, d->slo} : (ln_ref_out){d->ref, d->hi, d->lo};
    }
    ln_ref_op *ref = saved ? references[c->op].saved : c->screen ? c->screen : references[c->op].reference;
    ref(c->dtype, ln_resid_format(c->dtype, c->resid), c->rows, c->D, c->eps, in, out, saved ? NULL : p->stats);
}

ln_ref_op *ln_op_screen(ln_op op)
{
    ln_ref_op *s = ln_ref_screen_of(references[op].reference);
    return s ? s : references[op].reference;
}

/* The references of p's inputs and what follows from them (the statistics, the column kappas,
 * the saved statistics and the second reference); the second one is left out under a screen. */
static int compute_references(const ln_case *c, ln_prepared *p)
{
    call_reference(c, p, 0);
    column_kappas(c, p);
    if (references[c->op].saved) {
        if (fill_saved(c, p) != 0) return -1;
        if (!c->screen) call_reference(c, p, 1);
    }
    return 0;
}

int ln_prepared_update(ln_prepared *p) { return compute_references(&p->c, p); }

int ln_prepare(const ln_case *c, ln_prepared *p)
{
    memset(p, 0, sizeof *p);
    p->c = *c;
    p->dgamma_kappa = p->dbeta_kappa = NAN;
    ln_dtype t = c->dtype;
    size_t n = elements(c), size = ln_fmt(t)->size;
    if (c->D == 0 || c->rows == 0 || n / c->D != c->rows || n > ((size_t)-1) / 32 || (unsigned)c->op >= LN_NOPS) {
        fprintf(stderr, "lnbench: a case of %zu rows x %zu is not possible\n", c->rows, c->D);
        return -1;
    }
    if (c->dist.kind == LN_DIST_FILE && (c->rows != c->dist.file_rows || c->D != c->dist.file_D)) {
        fprintf(stderr, "lnbench: %s holds %zu x %zu values, not %zu x %zu\n", c->dist.path, c->dist.file_rows,
                c->dist.file_D, c->rows, c->D);
        return -1;
    }
    const ln_op_info *op = op_of(c);
    int roles_ok = alloc_roles(c, p) == 0;
    p->stats = malloc(c->rows * sizeof *p->stats);
    p->input = malloc(c->rows);
    p->run = calloc(1, sizeof *p->run);
    if (p->run)
        for (size_t i = 0; i < op->n_roles; i++) {
            if (op->roles[i].kind == LN_ROLE_STAT) roles_ok &= !!(p->run->stat[i] = malloc(c->rows * sizeof(double)));
            if (op->roles[i].flags & LN_ROLE_CR) roles_ok &= !!(p->run->out[i] = malloc(role_bytes(c, &op->roles[i])));
        }
    double *drawn = malloc(n * sizeof *drawn);
    if (!roles_ok || !p->x || !p->stats || !p->input || !drawn || !p->run) {
        fprintf(stderr, "lnbench: out of memory for a case of %zu rows x %zu %s\n", c->rows, c->D, ln_fmt(t)->name);
        free(drawn);
        ln_prepared_free(p);
        return -1;
    }
    if (c->affine) {
        ln_affine_fill(t, c->D, c->seed, c->gamma_src ? NULL : p->gamma, c->beta_src ? NULL : p->beta);
        for (size_t i = 0; i < c->D; i++) {
            if (c->gamma_src && p->gamma) ln_store(t, p->gamma, i, c->gamma_src[i]);
            if (c->beta_src && p->beta) ln_store(t, p->beta, i, c->beta_src[i]);
        }
    }
    int xi = role_index(op, "x");
    if (xi >= 0 && c->input_src[xi]) memcpy(drawn, c->input_src[xi], n * sizeof *drawn);
    else ln_dist_draw(&c->dist, t, c->rows, c->D, c->seed, drawn);
    for (size_t i = 0; i < n; i++) ln_store(t, p->x, i, drawn[i]);
    for (size_t r = 0; r < c->rows; r++)
        p->input[r] = (unsigned char)classify_row(t, drawn + r * c->D, (const char *)p->x + r * c->D * size, c->D);
    free(drawn);
    fill_other_inputs(c, p);
    if (compute_references(c, p) != 0) {
        ln_prepared_free(p);
        return -1;
    }
    return 0;
}

void ln_prepared_free(ln_prepared *p)
{
    if (!p->role[0].data) { /* a case built by hand owns the arrays it named */
        free(p->x), free(p->gamma), free(p->beta), free(p->dy), free(p->y_ref), free(p->y_hi), free(p->y_lo);
        free(p->dg_ref), free(p->dg_hi), free(p->dg_lo), free(p->db_ref), free(p->db_hi), free(p->db_lo);
        free(p->given_mean), free(p->given_rstd), free(p->dxs_ref), free(p->dxs_hi), free(p->dxs_lo);
    }
    for (size_t i = 0; i < LN_MAX_ROLES; i++) {
        ln_role_data *d = &p->role[i];
        free(d->data), free(d->ref), free(d->hi), free(d->lo), free(d->sref), free(d->shi), free(d->slo);
    }
    free(p->stats);
    free(p->input);
    if (p->run) {
        for (size_t i = 0; i < LN_MAX_ROLES; i++) free(p->run->stat[i]), free(p->run->out[i]);
        free(p->run);
    }
    memset(p, 0, sizeof *p);
}

/* ulp of the exact value hi + lo. ln_ulp(t, hi) is right unless rounding to double carried hi
 * up to a power of two while the exact value lies just below it (lo of the other sign): then
 * the exact value's binade, and its ulp, is the one below. */
static double exact_ulp(ln_dtype t, double hi, double lo)
{
    double u = ln_ulp(t, hi);
    int e = ilogb(hi);
    if (hi != 0 && isfinite(hi) && lo != 0 && signbit(lo) != signbit(hi) && fabs(hi) == ldexp(1.0, e) &&
        e > ln_fmt(t)->emin)
        u /= 2;
    return u;
}

/* Output i of p (flattened) agrees with the reference numerically: +0 and -0 agree; NaN agrees
 * with NaN. */
static int agrees(double yv, double ref) { return yv == ref || (isnan(yv) && isnan(ref)); }

/* A rows x D tensor's reference: rounded to its format t (ref) and exact (hi + lo). */
typedef struct {
    ln_dtype t;
    size_t rows, D;
    const void *ref;
    const double *hi, *lo;
} tensor_ref;

/* The case's output (y, or dx for the backward ops). */
static tensor_ref output_ref(const ln_prepared *p)
{
    return (tensor_ref){.t = p->c.dtype, .rows = p->c.rows, .D = p->c.D, .ref = p->y_ref, .hi = p->y_hi, .lo = p->y_lo};
}

/* Row r's normwise error in u (docs/metrics.md) over its finite pairs; *mismatch gets the count
 * of non-finite disagreements, *worst_col the element with the largest error (or the first
 * mismatch). NaN when no pair is finite. */
static double row_norm_error(const tensor_ref *R, const void *y, size_t r, size_t *mismatch, size_t *worst_col)
{
    const ln_dtype t = R->t;
    double row_err = 0, row_max = 0;
    int has_pair = 0;
    *mismatch = 0, *worst_col = 0;
    for (size_t i = 0; i < R->D; i++) {
        size_t k = r * R->D + i;
        double yv = ln_load(t, y, k), ref = ln_load(t, R->ref, k), hi = R->hi[k], lo = R->lo[k];
        if (!isfinite(yv) || !isfinite(ref)) {
            if (!agrees(yv, ref) && (*mismatch)++ == 0) *worst_col = i;
            continue;
        }
        double err = fabs((yv - hi) - lo);
        if (err > row_err && !*mismatch) *worst_col = i;
        row_err = fmax(row_err, err);
        row_max = fmax(row_max, fabs(hi));
        has_pair = 1;
    }
    /* Rows whose exact output is (near) zero: error relative to the smallest normal. */
    return has_pair ? row_err / fmax(row_max, ldexp(1.0, ln_fmt(t)->emin)) / ln_unit_roundoff(t) : NAN;
}

/* The metrics of tensor y against its reference R (worst_x is x's element only when y is rows x
 * D of the case, i.e. y or dx). */
static void measure_tensor(const ln_prepared *p, const tensor_ref *R, const void *y, ln_errors *e)
{
    const ln_case *c = &p->c;
    const ln_dtype t = R->t;
    double sum_ulp = 0;
    size_t finite_pairs = 0, agree = 0;
    memset(e, 0, sizeof *e);
    e->max_ulp = e->mean_ulp = e->max_norm = NAN;
    e->worst_x = e->worst_y = e->worst_y_exact = NAN;
    e->mean_relerr = e->rstd_relerr = NAN;
    for (size_t i = 0; i < LN_MAX_ROLES; i++)
        e->role[i].max_ulp = e->role[i].max_norm = e->role[i].relerr = e->role[i].saved_max_ulp =
            e->role[i].saved_max_norm = NAN;
    for (size_t r = 0; r < R->rows; r++) {
        for (size_t i = 0; i < R->D; i++) {
            size_t k = r * R->D + i;
            double yv = ln_load(t, y, k), ref = ln_load(t, R->ref, k), hi = R->hi[k], lo = R->lo[k];
            agree += agrees(yv, ref);
            if (!isfinite(yv) || !isfinite(ref)) {
                e->nonfinite += !agrees(yv, ref);
                continue;
            }
            /* y - hi is exact when y is within a factor 2 of hi (Sterbenz), the only case where
             * the error is small enough for a rounding to matter; subtracting lo then rounds
             * once, a relative 2^-53 of the error. */
            double err = fabs((yv - hi) - lo), ulps = err / exact_ulp(t, hi, lo);
            if (finite_pairs == 0 || ulps > e->max_ulp) {
                e->max_ulp = ulps;
                e->worst_row = r, e->worst_col = i;
                e->worst_x = R->rows == c->rows ? ln_load(c->dtype, p->x, k) : NAN, e->worst_y = yv,
                e->worst_y_exact = hi + lo;
            }
            sum_ulp += ulps;
            finite_pairs++;
        }
        size_t mismatch, col;
        double norm = row_norm_error(R, y, r, &mismatch, &col);
        if (!isnan(norm) && !(norm <= e->max_norm)) e->max_norm = norm; /* rows with no finite pair: NaN, passed over */
    }
    if (finite_pairs) e->mean_ulp = sum_ulp / (double)finite_pairs;
    /* A non-finite output where the reference is finite (or the reverse) is an unbounded error:
     * the maxima say so, never a finite figure taken over the other elements. */
    if (e->nonfinite) e->max_ulp = e->max_norm = INFINITY;
    e->cr_frac = R->rows > 0 && R->D > 0 ? (double)agree / (double)(R->rows * R->D) : NAN;
    e->dgamma_max_ulp = e->dgamma_max_norm = e->dbeta_max_ulp = e->dbeta_max_norm = NAN;
    e->dx_saved_max_ulp = e->dx_saved_max_norm = NAN;
}

void ln_measure_output(const ln_prepared *p, const void *y, ln_errors *e)
{
    tensor_ref R = output_ref(p);
    measure_tensor(p, &R, y, e);
}

static int not_written(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b == not_written_bits;
}

/* Row r's error of a returned statistic (the role called name), divided by the row's scale; Inf
 * for an unwritten value, or a NaN where the reference has a number (or the reverse). */
static double stat_row_error(const ln_prepared *p, const double *got, size_t r, const char *name)
{
    const ln_ref_stats *s = &p->stats[r];
    int is_mean = !strcmp(name, "mean");
    double want = ref_stat(s, name);
    /* mean: relative to the row's scale max(|mean|, sigma), so a mean near 0 (a sum that
     * cancels) is judged against the spread it is subtracted from; rstd: relative. */
    double scale = is_mean ? fmax(fabs(s->mean), sqrt(s->var + p->c.eps)) : fabs(s->rstd);
    if (not_written(got[r])) return INFINITY;
    if (got[r] == want || (isnan(got[r]) && isnan(want))) return 0;
    if (isnan(got[r]) || isnan(want)) return INFINITY;
    return scale > 0 && isfinite(scale) ? fabs(got[r] - want) / scale : INFINITY;
}

static int any_written(const ln_prepared *p, const double *got)
{
    for (size_t r = 0; r < p->c.rows; r++)
        if (!not_written(got[r])) return 1;
    return 0;
}

/* Largest error of a returned statistic over the rows; NaN when no row was written (the kernel
 * returns none), Inf for a NaN or an unwritten row among written ones. */
static double stat_error(const ln_prepared *p, const double *got, const char *name)
{
    if (!any_written(p, got)) return NAN;
    double worst = 0;
    for (size_t r = 0; r < p->c.rows; r++) worst = fmax(worst, stat_row_error(p, got, r, name));
    return worst;
}

/* The results files' per-role columns from e->role (NaN where the op has no such role). */
static void named_columns(const ln_op_info *op, ln_errors *e)
{
    int i;
    e->mean_relerr = (i = role_index(op, "mean")) >= 0 ? e->role[i].relerr : NAN;
    e->rstd_relerr = (i = role_index(op, "rstd")) >= 0 ? e->role[i].relerr : NAN;
    e->dgamma_max_ulp = (i = role_index(op, "dgamma")) >= 0 ? e->role[i].max_ulp : NAN;
    e->dgamma_max_norm = i >= 0 ? e->role[i].max_norm : NAN;
    e->dbeta_max_ulp = (i = role_index(op, "dbeta")) >= 0 ? e->role[i].max_ulp : NAN;
    e->dbeta_max_norm = i >= 0 ? e->role[i].max_norm : NAN;
    i = first_output(op);
    e->dx_saved_max_ulp = e->role[i].saved_max_ulp, e->dx_saved_max_norm = e->role[i].saved_max_norm;
}

void ln_measure_kernel(const ln_kernel *k, const ln_prepared *p, ln_errors *e, void *y_out)
{
    const ln_case *c = &p->c;
    if (!ln_kernel_formats(k, c->dtype, c->resid))
        ln_die("%s is a %s kernel (residual %s), the case is %s (residual %s)", k->name, ln_fmt(k->dtype)->name,
               ln_fmt(ln_kernel_resid(k))->name, ln_fmt(c->dtype)->name,
               ln_fmt(ln_resid_format(c->dtype, c->resid))->name);
    if (k->op != c->op) ln_die("%s computes %s, the case is %s", k->name, ln_op_name(k->op), ln_op_name(c->op));
    const ln_op_info *op = op_of(c);
    int out0 = first_output(op);
    void *out[LN_MAX_ROLES];
    ln_prepared tmp;
    p = with_roles(p, &tmp);
    alloc_outputs(c, op, out);
    const char *wrote = run_kernel(k, op, p, out);
    /* every output against its reference (the first one's metrics are e's own), every returned
     * statistic against the reference's */
    ln_measure_output(p, out[out0], e);
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        const ln_role_data *d = &p->role[i];
        ln_errors t;
        if (r->kind == LN_ROLE_STAT) e->role[i].relerr = stat_error(p, out[i], r->name);
        if (r->kind != LN_ROLE_OUT) continue;
        size_t rows = r->shape == LN_SHAPE_ROWS_D ? c->rows : 1;
        if ((int)i != out0) {
            measure_tensor(
                p,
                &(tensor_ref){.t = role_format(c, r), .rows = rows, .D = c->D, .ref = d->ref, .hi = d->hi, .lo = d->lo},
                out[i], &t);
            e->role[i].max_ulp = t.max_ulp, e->role[i].max_norm = t.max_norm;
        } else e->role[i].max_ulp = e->max_ulp, e->role[i].max_norm = e->max_norm;
        if (d->sref && !c->screen) {
            measure_tensor(
                p,
                &(tensor_ref){
                    .t = role_format(c, r), .rows = rows, .D = c->D, .ref = d->sref, .hi = d->shi, .lo = d->slo},
                out[i], &t);
            e->role[i].saved_max_ulp = t.max_ulp, e->role[i].saved_max_norm = t.max_norm;
        }
    }
    named_columns(op, e);
    if (p->run) { /* for ln_judge */
        p->run->k = k, p->run->wrote = wrote;
        for (size_t i = 0; i < op->n_roles; i++)
            if (op->roles[i].kind == LN_ROLE_STAT) memcpy(p->run->stat[i], out[i], c->rows * sizeof(double));
            else if (p->run->out[i]) memcpy(p->run->out[i], out[i], role_bytes(c, &op->roles[i]));
    }
    if (y_out) memcpy(y_out, out[out0], elements(c) * ln_fmt(c->dtype)->size);
    free_outputs(op, out, -1);
}
/* The rows x D tensor the op normalises: the NORMED role's values (an output's: its correctly
 * rounded reference, what a kernel that meets its contract normalises), else x; *t its format. */
static const void *normed_tensor(const ln_prepared *p, ln_dtype *t)
{
    const ln_op_info *op = op_of(&p->c);
    for (size_t i = 0; i < op->n_roles; i++)
        if (op->roles[i].flags & LN_ROLE_NORMED) {
            const void *v = op->roles[i].kind == LN_ROLE_OUT ? p->role[i].ref : p->role[i].data;
            *t = role_format(&p->c, &op->roles[i]);
            if (v) return v;
        }
    *t = p->c.dtype;
    return p->x;
}

void ln_row_facts_of(const ln_prepared *p, size_t r, ln_row_facts *f)
{
    const ln_case *c = &p->c;
    ln_dtype t = c->dtype, xt; /* the facts' format is the outputs' (y's); the normed tensor's is xt */
    const void *xs = normed_tensor(p, &xt);
    const ln_ref_stats *st = &p->stats[r];
    size_t off = r * c->D;
    double smallest = ldexp(1.0, ln_fmt(t)->emin), rstd = 1.0 / sqrt(st->var + c->eps);
    *f = (ln_row_facts){.dtype = t,
                        .D = c->D,
                        .eps = c->eps,
                        .finite = 1,
                        .mean = st->mean,
                        .var = st->var,
                        .max_abs_gamma = p->gamma ? 0 : 1,
                        .min_abs_gamma = p->gamma ? INFINITY : 1};
    for (size_t i = 0; i < c->D; i++) {
        double x = ln_load(xt, xs, off + i), g = p->gamma ? ln_load(t, p->gamma, i) : 1;
        double b = p->beta ? ln_load(t, p->beta, i) : 0, y = fabs(p->y_hi[off + i] + p->y_lo[off + i]);
        f->finite &= isfinite(x) && isfinite(g) && isfinite(b);
        f->max_abs_x = fmax(f->max_abs_x, fabs(x));
        f->max_abs_gamma = fmax(f->max_abs_gamma, fabs(g));
        if (g != 0) f->min_abs_gamma = fmin(f->min_abs_gamma, fabs(g));
        if (b != 0) f->min_abs_beta = f->min_abs_beta == 0 ? fabs(b) : fmin(f->min_abs_beta, fabs(b));
        f->max_abs_y = fmax(f->max_abs_y, y);
        /* xhat from the exact statistics; a var + eps of 0 (0/0 rows) leaves the scale at 0 */
        if (isfinite(rstd)) f->max_abs_gxhat = fmax(f->max_abs_gxhat, fabs(g * (x - st->mean) * rstd));
        f->subnormal_y |= y != 0 && y < smallest;
    }
    if (isinf(f->min_abs_gamma)) f->min_abs_gamma = 0;
}

/* The row's bound in u from its facts f: bound(D, kappa) x ln_affine_factor, NaN when k claims
 * none or it is infinite. */
static double bound_of_facts(const ln_kernel *k, const ln_prepared *p, size_t r, const ln_row_facts *f)
{
    if (!k->bound) return NAN;
    /* A backward bound carries gamma in its kappa (docs/ops.md): no affine factor on top. */
    double b = k->bound(p->c.D, p->stats[r].kappa) * (ln_ops[k->op].affine_bound ? ln_affine_factor(f) : 1);
    return isfinite(b) ? b : NAN;
}

const char *ln_row_contract(const ln_kernel *k, const ln_prepared *p, size_t r, double *bound)
{
    *bound = NAN; /* no bound is read on a degenerate input */
    if (p->input && p->input[r] != LN_INPUT_OK) return input_domains[p->input[r]];
    /* Backward bounds are stated for the exact statistics rounded to double; rounded to fp32 they
     * move dx by up to kappa_f 2^-24 before any kernel arithmetic, and a forward kernel's
     * statistics by its own error (docs/ops.md). */
    if (references[p->c.op].saved && p->c.saved_f32) return "saved-stats-f32";
    if (references[p->c.op].saved && p->c.saved_kernel) return "saved-stats-kernel";
    ln_row_facts f;
    ln_row_facts_of(p, r, &f); /* once: it is a pass over the row, the cost of a hunt's candidate */
    *bound = bound_of_facts(k, p, r, &f);
    const char *dom = k->domain ? k->domain(&f) : ln_domain_common(&f);
    if (dom) return dom;
    if (k->bound && !isfinite(k->bound(p->c.D, p->stats[r].kappa))) return "kappa-beyond-bound";
    /* A bound that allows an error as large as the outputs themselves (an affine factor blown up
     * by outputs far smaller than gamma, e.g. eps far above var) would pass any output, zeros
     * included: nothing is promised there, so nothing is judged. */
    if (*bound >= 1 / ln_unit_roundoff(p->c.dtype)) return "bound-vacuous";
    return NULL;
}

/* The verdict on one row: the domain condition it fails (NULL: inside), its bound in u (NaN
 * outside), and its error. */
static const char *judge_row(const ln_kernel *k, const ln_prepared *p, const void *y, size_t r, double *bound,
                             double *error, size_t *col, size_t *mismatch)
{
    tensor_ref R = output_ref(p);
    *error = row_norm_error(&R, y, r, mismatch, col);
    if (*mismatch) *error = INFINITY;
    const char *dom = ln_row_contract(k, p, r, bound);
    if (dom) *bound = NAN;
    return dom;
}

/* A bound too large to judge by is still a claim: there the kernel owes finite outputs wherever
 * the reference's are finite. ("kappa-beyond-bound" is not: the kernel claims nothing at that
 * kappa, as outside its domain, and agrees_nonfinite says what it promises there.) */
static int bound_condition(const char *dom) { return !strcmp(dom, "bound-vacuous"); }

/* Row r's returned statistics (forward ops, a kernel that returns them) against the reference's:
 * each relative error (docs/metrics.md) at most the row's bound in u, and finite where the
 * reference's is. *what names the failing one; *error and *limit get its error and bound in u. */
static int stats_break(const ln_prepared *p, const ln_run_record *run, size_t r, double bound, const char **what,
                       double *error, double *limit)
{
    const ln_op_info *op = op_of(&p->c);
    double u = ln_unit_roundoff(p->c.dtype), tol = isnan(bound) ? INFINITY : fmax(bound, 1);
    for (size_t i = 0; i < op->n_roles; i++) { /* the judged statistics, in the table's order */
        const ln_role *role = &op->roles[i];
        if (role->kind != LN_ROLE_STAT || !(role->flags & LN_ROLE_JUDGED)) continue;
        const double *got = run->stat[i];
        double want = ref_stat(&p->stats[r], role->name);
        if (!any_written(p, got)) continue;
        double err = stat_row_error(p, got, r, role->name) / u;
        if ((isfinite(want) && !isfinite(got[r])) || err > tol) {
            *what = role->name, *error = err, *limit = tol;
            return 1;
        }
    }
    return 0;
}

/* Row r of the outputs every kernel returns correctly rounded (LN_ROLE_CR, other than the first)
 * against the reference's values: 1 when an element differs (+-0 and NaNs agree), with *what its
 * role's name, *error the row's normwise error in u (Inf for a non-finite mismatch), *limit 0. */
static int cr_break(const ln_prepared *p, const ln_run_record *run, size_t r, const char **what, double *error,
                    double *limit)
{
    const ln_op_info *op = op_of(&p->c);
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role_data *d = &p->role[i];
        const ln_dtype t = role_format(&p->c, &op->roles[i]);
        if (!run->out[i] || !d->ref) continue;
        for (size_t j = r * p->c.D; j < (r + 1) * p->c.D; j++)
            if (!agrees(ln_load(t, run->out[i], j), ln_load(t, d->ref, j))) {
                tensor_ref R = {.t = t, .rows = p->c.rows, .D = p->c.D, .ref = d->ref, .hi = d->hi, .lo = d->lo};
                size_t mismatch, col;
                *error = row_norm_error(&R, run->out[i], r, &mismatch, &col);
                if (mismatch || isnan(*error)) *error = INFINITY;
                *what = op->roles[i].name, *limit = 0;
                return 1;
            }
    }
    return 0;
}

void ln_judge(const ln_kernel *k, const ln_prepared *p, const void *y, ln_verdict *v)
{
    *v = (ln_verdict){.verdict = k->bound ? LN_PASS : LN_NONE,
                      .input = LN_INPUT_OK,
                      .domain = "ok",
                      .bound = NAN,
                      .error = NAN,
                      .failed_on = ""};
    const ln_run_record *run = p->run && p->run->k == k ? p->run : NULL;
    const char *output = op_of(&p->c)->roles[first_output(op_of(&p->c))].name;
    double worst_ratio = -1, case_bound = 0, worst_bound = NAN, worst_error = NAN, error_aside = NAN;
    const char *first_aside = NULL, *worst_domain = NULL, *worst_on = "";
    int broke_promise = 0;
    for (size_t r = 0; r < p->c.rows; r++) {
        if (p->input && p->input[r] != LN_INPUT_OK && v->input == LN_INPUT_OK) v->input = (ln_input)p->input[r];
        double bound, error, limit = NAN;
        size_t col, mismatch;
        const char *dom = judge_row(k, p, y, r, &bound, &error, &col, &mismatch), *on = output;
        int finite_input = !(p->input && p->input[r] != LN_INPUT_OK);
        /* A row is set aside when its input degenerated or it lies outside the domain; the others
         * are judged one by one. Non-finite outputs where the reference's are finite break the
         * promise whatever the bound (none claimed, or one too large to judge by). */
        int broken = finite_input && mismatch &&
                     (!dom || bound_condition(dom) || (k->agrees_nonfinite && strcmp(dom, "nonfinite-input") != 0));
        /* a correctly rounded output (h = x + r) owes its bits inside the domain or not; judged
         * first, since the first output is computed from it */
        if (!broken && finite_input && run && cr_break(p, run, r, &on, &error, &limit)) broken = 1, bound = limit;
        if (!broken && !dom && k->bound && error > bound) broken = 1;
        if (!broken && !dom && run && stats_break(p, run, r, k->bound ? bound : NAN, &on, &error, &limit))
            broken = 1, bound = limit;
        if (dom) {
            v->rows_set_aside++;
            if (!first_aside) first_aside = dom;
            if (!(error <= error_aside)) error_aside = error;
        } else {
            v->rows_judged++;
            case_bound = fmax(case_bound, bound);
            if (!(error <= v->error)) v->error = error; /* NaN (no finite pair) passes over */
        }
        broke_promise |= broken;
        double ratio = broken ? INFINITY : dom ? 0 : error / bound;
        if (ratio > worst_ratio) {
            worst_ratio = ratio, worst_bound = bound, worst_error = error, worst_domain = dom, worst_on = on;
            v->row = r, v->col = col;
        }
    }
    if (!v->rows_judged) v->error = error_aside;
    if (run && run->wrote) {
        /* a kernel that changes its const inputs breaks the contract whatever its outputs */
        v->verdict = LN_FAIL, v->failed_on = "input-written";
        v->error = worst_error, v->bound = worst_bound;
        return;
    }
    if (broke_promise) {
        /* the failing row's own error, bound and domain ("ok" inside it), so the error exceeds
         * the bound in the record too */
        v->verdict = LN_FAIL;
        v->error = worst_error;
        v->bound = worst_bound;
        v->failed_on = worst_on;
        if (worst_domain) v->domain = worst_domain;
    } else if (!v->rows_judged) {
        v->verdict = LN_OUTSIDE;
        v->domain = first_aside;
    } else if (k->bound) {
        v->bound = case_bound; /* every judged row within its own bound, so within the largest */
    }
}

double ln_kappa_max(const ln_prepared *p)
{
    double k = 0;
    for (size_t r = 0; r < p->c.rows; r++) k = fmax(k, p->stats[r].kappa);
    return k;
}
