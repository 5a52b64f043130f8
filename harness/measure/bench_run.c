#include "bench_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_stats.h"
#include "cli.h"
#include "probe.h"
#include "team.h"

/* Rows generated from the distribution per fill; larger inputs repeat them (speed does not
 * depend on which rows follow which, and a 256 MiB fill stays a memcpy). */
#define FILL_BLOCK_BYTES (4u << 20)

/* One thread's inputs and outputs, allocated and first touched by that thread. */
typedef struct {
    /* The tensors of an op's roles (kernels/ops.def), by shape: role i of an op takes the slot of
     * its rank among the op's roles of its shape. full[0] is x (and the probes' input), the other
     * rows x D inputs (dy) copies of it, full[1] the probes' output; cols holds gamma and beta (a
     * backward op's dgamma and dbeta), rows the saved statistics of each row (mean 0, rstd 1). */
    void *full[LN_MAX_ROLES], *cols[LN_MAX_ROLES];
    double *rows[LN_MAX_ROLES];
    ln_args args; /* its share of the case being timed */
    size_t probe_elements;
} thread_buffers;

/* The team and its buffers, kept from one run to the next when the caller holds a pool. */
struct ln_bench_pool {
    ln_team *team;
    int team_threads;
    thread_buffers *buf; /* one per thread of the team */
    int buf_threads;     /* the thread count the buffers are sized for; 0: none yet */
    size_t buf_bytes, affine_bytes;
    size_t n_slots[3];    /* slots allocated per shape (ln_shape) */
    size_t stat_rows;     /* rows of each per-row slot (saved statistics) */
    ln_bench_case filled; /* the case whose inputs the buffers hold (a copy: runs come and go) */
    int have_filled;
};

typedef struct {
    const ln_bench_run_options *o;
    ln_bench_case *cases;
    size_t ncases;
    ln_bench_pool *p;
    const ln_bench_case *current; /* the case a team job works on */
    const ln_bench_case *shown;   /* on the progress line */
} bench_run;

static void *alloc_touched(size_t bytes)
{
    size_t align = bytes >= (2u << 20) ? (2u << 20) : 64; /* whole huge pages for big arrays */
    bytes = (bytes + align - 1) / align * align;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0) ln_die("cannot allocate %zu bytes for the inputs", bytes);
#ifdef MADV_HUGEPAGE
    if (align > 64) madvise(p, bytes, MADV_HUGEPAGE); /* fewer TLB misses; a hint only */
#endif
    memset(p, 0, bytes); /* fault every page in now, not inside a timed loop */
    return p;
}

/* Team job: thread i allocates its buffers and touches them first, so that its pages are
 * local to the CPU it runs on. */
static void alloc_buffers(void *ctx, int i)
{
    ln_bench_pool *p = ((bench_run *)ctx)->p;
    thread_buffers *b = &p->buf[i];
    for (size_t j = 0; j < p->n_slots[LN_SHAPE_ROWS_D]; j++) b->full[j] = alloc_touched(p->buf_bytes);
    for (size_t j = 0; j < p->n_slots[LN_SHAPE_COLS]; j++) b->cols[j] = alloc_touched(p->affine_bytes);
    for (size_t j = 0; j < p->n_slots[LN_SHAPE_ROWS]; j++) b->rows[j] = alloc_touched(p->stat_rows * sizeof(double));
}

/* The op of a kernel's case (NULL for a probe). */
static const ln_op_info *op_of(const ln_bench_case *c) { return c->what == LN_BENCH_KERNEL ? &ln_ops[c->k->op] : NULL; }

/* The slots c's roles need, per shape: a probe reads one rows x D buffer and writes another. */
static void slots_of(const ln_bench_case *c, size_t *n)
{
    const ln_op_info *op = op_of(c);
    n[LN_SHAPE_ROWS_D] = op ? 0 : 2, n[LN_SHAPE_COLS] = n[LN_SHAPE_ROWS] = 0;
    for (size_t i = 0; op && i < op->n_roles; i++) n[op->roles[i].shape] += op->roles[i].kind != LN_ROLE_STAT;
}

/* The buffer of role i of c's op on thread buffers b (a returned statistic has none: NULL). */
static void *role_buffer(const ln_bench_case *c, const thread_buffers *b, size_t i)
{
    const ln_op_info *op = op_of(c);
    size_t rank = 0;
    if (op->roles[i].kind == LN_ROLE_STAT) return NULL;
    for (size_t j = 0; j < i; j++)
        rank += op->roles[j].shape == op->roles[i].shape && op->roles[j].kind != LN_ROLE_STAT;
    ln_shape s = op->roles[i].shape;
    return s == LN_SHAPE_ROWS_D ? b->full[rank] : s == LN_SHAPE_COLS ? b->cols[rank] : (void *)b->rows[rank];
}

/* The element size of role i of c's op relative to x's: 2 for the fp32 residual (r, h) of a
 * mixed-format kernel with 16-bit x, else 1. */
static double role_scale(const ln_bench_case *c, const ln_role *r)
{
    return (double)ln_fmt(ln_role_format(r->flags, c->k->dtype, c->k->resid))->size / (double)ln_fmt(c->k->dtype)->size;
}

/* Bytes moved per call as counted (kernels/ops.def: the rows x D tensors read and written, each
 * in its own format, so a mixed-format kernel's fp32 r and h count 4 bytes an element beside 2
 * for x and y; a probe reads x and writes y). */
static double moved_bytes(const ln_bench_case *c)
{
    const ln_op_info *op = op_of(c);
    double n = op ? op->bytes : 2;
    for (size_t i = 0; op && i < op->n_roles; i++)
        if (op->roles[i].flags & LN_ROLE_RESID) n += role_scale(c, &op->roles[i]) - 1;
    return n * (double)c->xbytes;
}

/* The widest rows x D role of c relative to x (the buffers' size). */
static double widest_scale(const ln_bench_case *c)
{
    const ln_op_info *op = op_of(c);
    double w = 1;
    for (size_t i = 0; op && i < op->n_roles; i++)
        if (op->roles[i].shape == LN_SHAPE_ROWS_D && role_scale(c, &op->roles[i]) > w) w = role_scale(c, &op->roles[i]);
    return w;
}

static void free_buffers(ln_bench_pool *p)
{
    for (int i = 0; i < p->buf_threads; i++) {
        thread_buffers *b = &p->buf[i];
        for (size_t j = 0; j < LN_MAX_ROLES; j++) free(b->full[j]), free(b->cols[j]), free(b->rows[j]);
    }
    if (p->buf) memset(p->buf, 0, p->buf_threads * sizeof *p->buf); /* none before the first run */
    p->buf_threads = 0;
    p->have_filled = 0;
}

ln_bench_pool *ln_bench_pool_create(void)
{
    ln_bench_pool *p = calloc(1, sizeof *p);
    if (!p) ln_die("out of memory");
    return p;
}

void ln_bench_pool_free(ln_bench_pool *p)
{
    if (!p) return;
    free_buffers(p);
    if (p->team) ln_team_free(p->team);
    free(p->buf), free(p);
}

/* A team (and buffer slots) for at least `threads` threads. */
static void pool_threads(ln_bench_pool *p, int threads)
{
    if (p->team_threads >= threads) return;
    free_buffers(p);
    if (p->team) ln_team_free(p->team);
    free(p->buf);
    p->team = ln_team_create(threads);
    if (!(p->buf = calloc(threads, sizeof *p->buf))) ln_die("out of memory");
    p->team_threads = threads;
}

/* Thread i's share of c, in bytes of its widest rows x D tensor (x, or a wider residual). */
static size_t share_bytes(const ln_bench_case *c, int i)
{
    if (c->what != LN_BENCH_KERNEL) return ln_bench_share(c->D, c->threads, i, NULL) * ln_fmt(c->dtype)->size;
    return ln_bench_share(c->rows, c->threads, i, NULL) * c->D * (size_t)(ln_fmt(c->dtype)->size * widest_scale(c));
}

/* Buffers for c's thread count, sized for the largest share of any case of that count (those
 * of a pool's earlier run are kept when they are large enough). */
static void ensure_buffers(bench_run *r, const ln_bench_case *c)
{
    ln_bench_pool *p = r->p;
    size_t bytes = 64, max_D = 1, stat_rows = 0, slots[3] = {0, 0, 0};
    for (size_t j = 0; j < r->ncases; j++) {
        const ln_bench_case *o = &r->cases[j];
        if (o->threads != c->threads) continue;
        for (int i = 0; i < o->threads; i++) bytes = share_bytes(o, i) > bytes ? share_bytes(o, i) : bytes;
        size_t rows = ln_bench_share(o->rows, o->threads, 0, NULL), n[3]; /* share 0 is never the smaller */
        slots_of(o, n);
        for (int s = 0; s < 3; s++) slots[s] = n[s] > slots[s] ? n[s] : slots[s];
        if (n[LN_SHAPE_ROWS] && rows > stat_rows) stat_rows = rows;
        if (o->what == LN_BENCH_KERNEL) max_D = o->D > max_D ? o->D : max_D;
    }
    if (p->buf_threads == c->threads && bytes <= p->buf_bytes && max_D * sizeof(double) <= p->affine_bytes &&
        stat_rows <= p->stat_rows && slots[0] <= p->n_slots[0] && slots[1] <= p->n_slots[1] &&
        slots[2] <= p->n_slots[2])
        return;
    free_buffers(p);
    p->buf_bytes = bytes;
    p->affine_bytes = max_D * sizeof(double);
    p->stat_rows = stat_rows;
    memcpy(p->n_slots, slots, sizeof slots);
    ln_team_run(p->team, c->threads, alloc_buffers, r);
    p->buf_threads = c->threads;
}

static int same_inputs(const ln_bench_case *a, const ln_bench_case *b)
{
    if (a->threads != b->threads) return 0;
    if (a->what != LN_BENCH_KERNEL || b->what != LN_BENCH_KERNEL)
        return a->what != LN_BENCH_KERNEL && b->what != LN_BENCH_KERNEL;
    return a->dtype == b->dtype && a->resid == b->resid && a->D == b->D && a->rows == b->rows &&
           !strcmp(a->dist.spec, b->dist.spec) && a->seed == b->seed;
}

/* Team job: thread i fills its share of the current case's x (and its gamma, beta). */
static void fill_share(void *ctx, int i)
{
    bench_run *r = ctx;
    const ln_bench_case *c = r->current;
    thread_buffers *b = &r->p->buf[i];
    if (c->what != LN_BENCH_KERNEL) {
        float *x = b->full[0]; /* read as fp16 by the 16-bit probes: 0 and 1.875, as finite */
        for (size_t j = 0; j < r->p->buf_bytes / sizeof(float); j++) x[j] = 1.0f;
        return;
    }
    size_t rows = ln_bench_share(c->rows, c->threads, i, NULL);
    if (rows == 0) return;
    size_t row_bytes = c->D * ln_fmt(c->dtype)->size;
    size_t block = FILL_BLOCK_BYTES / row_bytes;
    block = block < 1 ? 1 : block > rows ? rows : block;
    char *x = b->full[0];
    ln_dist_fill(&c->dist, c->dtype, block, c->D, c->seed, x);
    for (size_t done = block; done < rows;) {
        size_t n = done < rows - done ? done : rows - done;
        memcpy(x + done * row_bytes, x, n * row_bytes);
        done += n;
    }
    /* the op's other inputs: per column the affine pair (gamma, then beta), per row the saved
     * statistics of a standardised row, and every further rows x D input a copy of x */
    const ln_op_info *op = op_of(c);
    void *affine[2] = {NULL, NULL};
    size_t na = 0;
    for (size_t k = 0; k < op->n_roles; k++) {
        const ln_role *role = &op->roles[k];
        void *buf = role_buffer(c, b, k);
        if (role->kind == LN_ROLE_IN && role->shape == LN_SHAPE_COLS && na < 2) affine[na++] = buf;
        if (role->kind == LN_ROLE_IN && role->shape == LN_SHAPE_ROWS_D && buf != x) {
            ln_dtype f = ln_role_format(role->flags, c->dtype, c->resid);
            if (f == c->dtype) memcpy(buf, x, rows * row_bytes);
            else /* a wider residual: x's values, exactly */
                for (size_t j = 0; j < rows * c->D; j++) ln_store(f, buf, j, ln_load(c->dtype, x, j));
        }
        if (role->kind == LN_ROLE_SAVED)
            for (size_t j = 0; j < rows; j++) ((double *)buf)[j] = !strcmp(role->name, "mean") ? 0 : 1;
    }
    ln_affine_fill(c->dtype, c->D, c->seed, affine[0], affine[1]);
}

/* Team job, once per timed iteration: thread i's share of one call. */
static void call_share(void *ctx, int i)
{
    bench_run *r = ctx;
    const ln_bench_case *c = r->current;
    thread_buffers *b = &r->p->buf[i];
    if (c->what == LN_BENCH_KERNEL) {
        if (b->args.rows) c->k->forward(&b->args);
    } else if (c->what == LN_BENCH_PROBE_COPY) {
        ln_probe_copy(b->full[0], b->full[1], b->probe_elements);
    } else if (c->what == LN_BENCH_PROBE_STREAM) {
        ln_probe_stream(b->full[0], b->full[1], b->probe_elements);
    } else if (c->what == LN_BENCH_PROBE_COPY_16) {
        ln_probe_copy16(b->full[0], b->full[1], b->probe_elements);
    } else {
        ln_probe_stream16(b->full[0], b->full[1], b->probe_elements);
    }
    ln_clobber_memory();
}

/* Whether c would take over --max-call-seconds per call, judged from the rate the same kernel
 * reached at the smaller size earlier in this run (slow kernels, such as emulated f16
 * arithmetic, are compute-bound: their rate hardly depends on the size). */
static int too_slow(const bench_run *r, ln_bench_case *c)
{
    if (r->o->max_call_seconds <= 0 || c->what != LN_BENCH_KERNEL || !c->smaller) return 0;
    const ln_gb_result *res;
    size_t n = ln_gb_results_so_far(&res);
    ln_bench_stats s;
    /* from CPU time, so that other processes taking the CPU do not change what is skipped */
    if (!ln_bench_stats_of(res, n, c->smaller, &s) || !(s.gbps_cpu > 0)) return 0;
    double seconds = moved_bytes(c) / (s.gbps_cpu * 1e9); /* the rate counted the same bytes */
    if (seconds <= r->o->max_call_seconds) return 0;
    c->predicted_s = seconds;
    return 1;
}

static void show_progress(bench_run *r, const ln_bench_case *c)
{
    if (!r->o->quiet || r->o->silent || c == r->shown || !isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s", c->index + 1, r->ncases, c->name);
    r->shown = c;
}

/* The buffers for c, filled with its inputs unless they hold them already, and each thread's
 * arguments for its share of c (with c's tunables). */
static void prepare(bench_run *r, const ln_bench_case *c)
{
    ln_bench_pool *p = r->p;
    ensure_buffers(r, c);
    r->current = c;
    if (!p->have_filled || !same_inputs(&p->filled, c)) ln_team_run(p->team, c->threads, fill_share, r);
    p->filled = *c, p->have_filled = 1;
    for (int i = 0; i < c->threads; i++) {
        thread_buffers *b = &p->buf[i];
        b->args = (ln_args){
            .rows = ln_bench_share(c->rows, c->threads, i, NULL), .D = c->D, .eps = c->eps, .params = c->params};
        const ln_op_info *op = op_of(c);
        for (size_t k = 0; op && k < op->n_roles; k++) { /* the roles given; the rest stay NULL */
            void *buf = ln_bench_gives(c, &op->roles[k]) ? role_buffer(c, b, k) : NULL;
            memcpy((char *)&b->args + op->roles[k].field, &buf, sizeof buf);
        }
        b->probe_elements = ln_bench_share(c->D, c->threads, i, NULL);
    }
}

/* Each case's run: the benchmark function Google Benchmark calls (several times per case). */
typedef struct {
    bench_run *run;
    ln_bench_case *c;
} case_ref;

static void run_case(ln_gb_state *st, void *ctx)
{
    bench_run *r = ((case_ref *)ctx)->run;
    ln_bench_case *c = ((case_ref *)ctx)->c;
    show_progress(r, c);
    if (too_slow(r, c)) {
        char msg[160];
        snprintf(msg, sizeof msg, "skipped: one call would take ~%.1f s (> --max-call-seconds %g)", c->predicted_s,
                 r->o->max_call_seconds);
        ln_gb_skip_with_error(st, msg);
        return;
    }
    prepare(r, c);
    ln_team_start(r->p->team, c->threads, call_share, r, ln_gb_max_iterations(st));
    while (ln_gb_keep_running(st)) {
        call_share(r, 0);
        ln_team_step(r->p->team);
    }
    ln_team_finish(r->p->team);
    /* the rows x D tensors read and written per call by all the threads together (ops.def's
     * bytes: x read + y written; backward: x and dy read, dx written); the per-column and per-row
     * ones (gamma, beta, dgamma, dbeta, statistics) are not counted. Rates are over wall-clock time
     * (use_real_time). */
    ln_gb_counter(st, "bytes_per_second", moved_bytes(c), LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
    ln_gb_counter(st, "rows_per_second", (double)c->rows, LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
}

/* A 64-bit hash of n bytes (n a multiple of 8 for the outputs hashed here; a tail is folded in
 * byte by byte), continuing from h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

/* One call of c's kernel on thread share a (from the caller's thread), its outputs poisoned
 * first so that an output the call leaves unwritten cannot pass for a match; with_stats: the
 * per-row statistics the op returns asked for too, which may take another path. Outputs are
 * hashed in the order of the op's roles. */
static uint64_t hash_share(const ln_bench_case *c, ln_args a, int with_stats, uint64_t h)
{
    const ln_op_info *op = op_of(c);
    void *mine[LN_MAX_ROLES] = {NULL};
    size_t bytes[LN_MAX_ROLES] = {0};
    for (size_t i = 0; i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        if (r->kind == LN_ROLE_STAT && with_stats) {
            if (!(mine[i] = malloc(a.rows * sizeof(double)))) ln_die("out of memory");
            memcpy((char *)&a + r->field, &mine[i], sizeof mine[i]);
        }
        if (r->kind == LN_ROLE_OUT || (r->kind == LN_ROLE_STAT && with_stats)) {
            size_t esize = ln_fmt(ln_role_format(r->flags, c->dtype, c->resid))->size;
            bytes[i] = r->shape == LN_SHAPE_ROWS_D ? a.rows * c->D * esize
                       : r->shape == LN_SHAPE_COLS ? c->D * esize
                                                   : a.rows * sizeof(double);
            void *out;
            memcpy(&out, (char *)&a + r->field, sizeof out);
            memset(out, 0xa5, bytes[i]);
        }
    }
    c->k->forward(&a);
    for (size_t i = 0; i < op->n_roles; i++)
        if (bytes[i]) {
            void *out;
            memcpy(&out, (char *)&a + op->roles[i].field, sizeof out);
            h = hash_bytes(h, out, bytes[i]);
        }
    for (size_t i = 0; i < op->n_roles; i++) free(mine[i]);
    return h;
}

uint64_t ln_bench_output_hash(ln_bench_pool *pool, const ln_bench_case *c)
{
    bench_run r = {.cases = (ln_bench_case *)c, .ncases = 1, .p = pool};
    pool_threads(pool, c->threads);
    prepare(&r, c);
    uint64_t h = 0xcbf29ce484222325ull;
    int has_stats = 0;
    for (size_t i = 0; i < op_of(c)->n_roles; i++) has_stats |= op_of(c)->roles[i].kind == LN_ROLE_STAT;
    for (int with_stats = 0; with_stats <= has_stats; with_stats++)
        for (int i = 0; i < c->threads; i++)
            if (pool->buf[i].args.rows) h = hash_share(c, pool->buf[i].args, with_stats, h);
    return h;
}

/* Real time always; with threads, the process's CPU time (all threads), which Google Benchmark
 * names /process_time. */
void ln_bench_set_run_name(ln_bench_case *c)
{
    snprintf(c->run_name, sizeof c->run_name, "%s%s/real_time", c->name, c->threads > 1 ? "/process_time" : "");
}

size_t ln_bench_run(ln_bench_case *cases, size_t ncases, const ln_bench_run_options *o, ln_gb_result **out)
{
    int threads = 1;
    for (size_t i = 0; i < ncases; i++) threads = cases[i].threads > threads ? cases[i].threads : threads;
    bench_run r = {.o = o, .cases = cases, .ncases = ncases, .p = o->pool ? o->pool : ln_bench_pool_create()};
    pool_threads(r.p, threads);
    case_ref *refs = malloc(ncases * sizeof *refs);
    if (!refs) ln_die("out of memory");
    ln_gb_set_display(!o->quiet);
    for (size_t i = 0; i < ncases; i++) {
        refs[i] = (case_ref){.run = &r, .c = &cases[i]};
        ln_gb_bench *b = ln_gb_register(cases[i].name, run_case, &refs[i]);
        ln_gb_use_real_time(b);
        if (cases[i].threads > 1) ln_gb_process_cpu_time(b); /* every thread's share, not thread 0's */
        ln_gb_min_max_statistics(b);
        if (o->repetitions > 0) ln_gb_repetitions(b, o->repetitions);
        if (o->min_time > 0) ln_gb_min_time(b, o->min_time);
    }
    size_t n = ln_gb_run(out);
    if (o->quiet && !o->silent && isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
    if (!o->pool) ln_bench_pool_free(r.p);
    free(refs);
    return n;
}
