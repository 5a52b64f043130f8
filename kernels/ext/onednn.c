/* The oneDNN layer normalization shared by the ext-onednn-<dtype> kernels: see onednn.h. */
#include "onednn.h"

#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu.h"
#include "half.h"

typedef struct {
    ln_dtype dtype;
    size_t rows, D;
    float eps;
    unsigned flags;
    dnnl_primitive_t prim;
    dnnl_memory_t src, dst, scale, shift;
    float *affine; /* 2 D floats: gamma and beta widened, for 16-bit dtypes */
} onednn_entry;

/* What one calling thread owns: its primitives and memory objects (a memory object carries
 * the data pointers of the call in progress, so two threads must never share one) and its
 * stream. Created at the thread's first call, released when the thread exits (the key's
 * destructor); the main thread's is reclaimed by the process's exit. */
#define CACHE_SIZE 8
typedef struct {
    onednn_entry cache[CACHE_SIZE];
    size_t cache_next;
    dnnl_stream_t stream;
    void (*at_exit[4])(void); /* other oneDNN kernels' per-thread releases */
    int nat_exit;
} thread_state;

static _Thread_local thread_state *mine;
static pthread_key_t state_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine; /* one for the process: oneDNN's engines are thread-safe */
static void (*set_num_threads)(int);

static void check(dnnl_status_t s, const char *name, const char *what)
{
    if (s != dnnl_success) {
        fprintf(stderr, "%s: %s failed (dnnl status %d)\n", name, what, (int)s);
        exit(1);
    }
}

/* oneDNN's dispatch capped as LNBENCH_ISA caps lnbench's (oneDNN has no scalar level: its
 * lowest, SSE4.1, stands for "scalar"); DNNL_MAX_CPU_ISA, when set, is left to decide. */
static void cap_isa(void)
{
    unsigned cap = ln_cpu_cap();
    if (cap == ~0u || getenv("DNNL_MAX_CPU_ISA")) return;
    dnnl_cpu_isa_t isa = (cap & LN_ISA_AVX512FP16)   ? dnnl_cpu_isa_all
                         : (cap & LN_ISA_AVX512BF16) ? dnnl_cpu_isa_avx512_core_bf16
                         : (cap & LN_ISA_AVX512)     ? dnnl_cpu_isa_avx512_core
                         : (cap & LN_ISA_AVX2)       ? dnnl_cpu_isa_avx2
                                                     : dnnl_cpu_isa_sse41;
    dnnl_set_max_cpu_isa(isa); /* only the first call in a process counts */
}

static void release(onednn_entry *e);

static void release_state(void *p)
{
    thread_state *st = p;
    for (int i = 0; i < st->nat_exit; i++) st->at_exit[i]();
    for (size_t i = 0; i < CACHE_SIZE; i++) release(&st->cache[i]);
    dnnl_stream_destroy(st->stream);
    free(st);
}

static void create_engine(void)
{
    cap_isa();
    *(void **)&set_num_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) engine = NULL;
    if (pthread_key_create(&state_key, release_state) != 0) engine = NULL;
}

static void init_once(const char *name)
{
    pthread_once(&once, create_engine);
    if (!engine) check(dnnl_runtime_error, name, "dnnl_engine_create");
}

/* The calling thread's state, created at its first call; and oneDNN set to one OpenMP thread
 * for this thread's next execution (libgomp's team size is the calling thread's). */
static thread_state *this_thread(const char *name)
{
    init_once(name);
    if (set_num_threads) set_num_threads(1);
    if (mine) return mine;
    thread_state *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "%s: out of memory\n", name);
        exit(1);
    }
    check(dnnl_stream_create(&st->stream, engine, dnnl_stream_default_flags), name, "dnnl_stream_create");
    (void)pthread_setspecific(state_key, st);
    return mine = st;
}

void ln_onednn_session(const char *name, void **engine_out, void **stream_out)
{
    thread_state *st = this_thread(name);
    *engine_out = engine;
    *stream_out = st->stream;
}

void ln_onednn_at_thread_exit(const char *name, void (*fn)(void))
{
    thread_state *st = this_thread(name);
    if (st->nat_exit == (int)(sizeof st->at_exit / sizeof *st->at_exit)) {
        fprintf(stderr, "%s: too many oneDNN kernels keep per-thread state\n", name);
        exit(1);
    }
    st->at_exit[st->nat_exit++] = fn;
}

void ln_onednn_check(int status, const char *name, const char *what) { check((dnnl_status_t)status, name, what); }

static dnnl_data_type_t dnnl_type(ln_dtype t) { return t == LN_BF16 ? dnnl_bf16 : t == LN_F16 ? dnnl_f16 : dnnl_f32; }

static void release(onednn_entry *e)
{
    if (!e->prim) return;
    dnnl_primitive_destroy(e->prim);
    dnnl_memory_destroy(e->src);
    dnnl_memory_destroy(e->dst);
    dnnl_memory_destroy(e->scale);
    dnnl_memory_destroy(e->shift);
    free(e->affine);
    *e = (onednn_entry){0};
}

/* The primitive descriptor for rows x D of t, or NULL (status in *s) when oneDNN has none. */
static dnnl_primitive_desc_t make_pd(ln_dtype t, size_t rows, size_t D, float eps, unsigned flags,
                                     dnnl_memory_desc_t *data_md, dnnl_status_t *s)
{
    dnnl_dims_t dims = {(dnnl_dim_t)rows, (dnnl_dim_t)D};
    dnnl_layer_normalization_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    *s = dnnl_memory_desc_init_by_tag(data_md, 2, dims, dnnl_type(t), dnnl_ab);
    if (*s == dnnl_success)
        *s = dnnl_layer_normalization_forward_desc_init(&desc, dnnl_forward_inference, data_md, NULL, eps, flags);
    if (*s == dnnl_success) *s = dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL);
    return *s == dnnl_success ? pd : NULL;
}

static onednn_entry *lookup(thread_state *st, ln_dtype t, size_t rows, size_t D, float eps, unsigned flags,
                            const char *name)
{
    for (size_t i = 0; i < CACHE_SIZE; i++) {
        onednn_entry *e = &st->cache[i];
        if (e->prim && e->dtype == t && e->rows == rows && e->D == D && e->eps == eps && e->flags == flags) return e;
    }
    onednn_entry *e = &st->cache[st->cache_next];
    st->cache_next = (st->cache_next + 1) % CACHE_SIZE;
    release(e);

    dnnl_memory_desc_t data_md, vec_md;
    dnnl_dims_t vdims = {(dnnl_dim_t)D};
    dnnl_status_t s;
    dnnl_primitive_desc_t pd = make_pd(t, rows, D, eps, flags, &data_md, &s);
    check(s, name, "layer normalization primitive descriptor");
    check(dnnl_primitive_create(&e->prim, pd), name, "dnnl_primitive_create");
    dnnl_primitive_desc_destroy(pd);
    check(dnnl_memory_desc_init_by_tag(&vec_md, 1, vdims, dnnl_f32, dnnl_a), name, "memory_desc_init (scale)");
    /* handles are set before each execution */
    check(dnnl_memory_create(&e->src, &data_md, engine, DNNL_MEMORY_NONE), name, "memory_create (src)");
    check(dnnl_memory_create(&e->dst, &data_md, engine, DNNL_MEMORY_NONE), name, "memory_create (dst)");
    check(dnnl_memory_create(&e->scale, &vec_md, engine, DNNL_MEMORY_NONE), name, "memory_create (scale)");
    check(dnnl_memory_create(&e->shift, &vec_md, engine, DNNL_MEMORY_NONE), name, "memory_create (shift)");
    if (t != LN_F32 && !(e->affine = malloc(2 * D * sizeof(float)))) {
        fprintf(stderr, "%s: out of memory\n", name);
        exit(1);
    }
    e->dtype = t;
    e->rows = rows;
    e->D = D;
    e->eps = eps;
    e->flags = flags;
    return e;
}

/* gamma or beta as oneDNN wants it: the caller's fp32 array, or the 16-bit one widened into
 * buf (exact). */
static void *affine_f32(ln_dtype t, const void *v, float *buf, size_t D)
{
    if (t == LN_F32) return (void *)v;
    for (size_t i = 0; i < D; i++) buf[i] = ln_half_load(t, v, i);
    return buf;
}

void ln_onednn_forward(const ln_args *a, ln_dtype t, const char *name)
{
    if (a->rows == 0 || a->D == 0) return;
    thread_state *st = this_thread(name);
    unsigned flags = (a->gamma ? dnnl_use_scale : 0u) | (a->beta ? dnnl_use_shift : 0u);
    onednn_entry *e = lookup(st, t, a->rows, a->D, (float)a->eps, flags, name);
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}};
    int nargs = 2;
    check(dnnl_memory_set_data_handle(e->src, (void *)a->x), name, "set_data_handle (src)");
    check(dnnl_memory_set_data_handle(e->dst, a->y), name, "set_data_handle (dst)");
    if (a->gamma) {
        check(dnnl_memory_set_data_handle(e->scale, affine_f32(t, a->gamma, e->affine, a->D)), name,
              "set_data_handle (scale)");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, e->scale};
    }
    if (a->beta) {
        check(dnnl_memory_set_data_handle(e->shift, affine_f32(t, a->beta, e->affine ? e->affine + a->D : NULL, a->D)),
              name, "set_data_handle (shift)");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SHIFT, e->shift};
    }
    check(dnnl_primitive_execute(e->prim, st->stream, nargs, args), name, "dnnl_primitive_execute");
    check(dnnl_stream_wait(st->stream), name, "dnnl_stream_wait");
}

int ln_onednn_usable(ln_dtype t)
{
    static char known[LN_NDTYPES]; /* per dtype: 0 not asked yet, 1 no, 2 yes */
    if (!known[t]) known[t] = ln_onednn_impl(t) ? 2 : 1;
    return known[t] == 2;
}

const char *ln_onednn_impl(ln_dtype t)
{
    static char buf[64];
    init_once("oneDNN");
    dnnl_memory_desc_t md;
    dnnl_status_t s;
    dnnl_primitive_desc_t pd = make_pd(t, 4, 256, 1e-5f, dnnl_use_scale | dnnl_use_shift, &md, &s);
    if (!pd) return NULL;
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl) impl = "?";
    snprintf(buf, sizeof buf, "%s", impl);
    dnnl_primitive_desc_destroy(pd);
    return buf;
}
