/* oneDNN's fp32 layer normalization (libdnnl 2.6 C API) behind the kernel ABI, as a peer to
 * compare against: dnnl_layer_normalization_forward in inference mode with scale and shift,
 * memory objects wrapping the caller's buffers, one thread.
 *
 * Threads: Debian's libdnnl is built with DNNL_CPU_RUNTIME = OMP (libgomp), which reads
 * OMP_NUM_THREADS when the library is loaded, before main, so setenv() is too late. libgomp's
 * omp_set_num_threads() is looked up at run time (dlsym: no -fopenmp or -lgomp needed) and
 * called before every execution; it sets the calling thread's team size, which is what oneDNN
 * asks omp_get_max_threads() for.
 *
 * Primitives are cached per (rows, D, eps, scale/shift flags), so a timing loop measures the
 * kernel, not the primitive creation (a few hundred microseconds). Inference mode does not
 * return the statistics: mean and rstd are left untouched. */
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>

#include "bounds.h"
#include "kernel.h"

typedef struct {
    size_t rows, D;
    float eps;
    unsigned flags;
    dnnl_primitive_t prim;
    dnnl_memory_t src, dst, scale, shift;
} onednn_entry;

#define CACHE_SIZE 8
static onednn_entry cache[CACHE_SIZE];
static size_t cache_next;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static void (*set_num_threads)(int);

static void check(dnnl_status_t s, const char *what)
{
    if (s != dnnl_success) {
        fprintf(stderr, "ext-onednn-f32: %s failed (dnnl status %d)\n", what, (int)s);
        exit(1);
    }
}

static void init_once(void)
{
    if (engine) return;
    *(void **)&set_num_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    check(dnnl_engine_create(&engine, dnnl_cpu, 0), "dnnl_engine_create");
    check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), "dnnl_stream_create");
}

static void release(onednn_entry *e)
{
    if (!e->prim) return;
    dnnl_primitive_destroy(e->prim);
    dnnl_memory_destroy(e->src);
    dnnl_memory_destroy(e->dst);
    dnnl_memory_destroy(e->scale);
    dnnl_memory_destroy(e->shift);
    *e = (onednn_entry){0};
}

static onednn_entry *lookup(size_t rows, size_t D, float eps, unsigned flags)
{
    for (size_t i = 0; i < CACHE_SIZE; i++) {
        onednn_entry *e = &cache[i];
        if (e->prim && e->rows == rows && e->D == D && e->eps == eps && e->flags == flags) return e;
    }
    onednn_entry *e = &cache[cache_next];
    cache_next = (cache_next + 1) % CACHE_SIZE;
    release(e);

    dnnl_memory_desc_t data_md, vec_md;
    dnnl_dims_t dims = {(dnnl_dim_t)rows, (dnnl_dim_t)D}, vdims = {(dnnl_dim_t)D};
    check(dnnl_memory_desc_init_by_tag(&data_md, 2, dims, dnnl_f32, dnnl_ab), "memory_desc_init (data)");
    check(dnnl_memory_desc_init_by_tag(&vec_md, 1, vdims, dnnl_f32, dnnl_a), "memory_desc_init (scale)");
    dnnl_layer_normalization_desc_t desc;
    check(dnnl_layer_normalization_forward_desc_init(&desc, dnnl_forward_inference, &data_md, NULL, eps, flags),
          "dnnl_layer_normalization_forward_desc_init");
    dnnl_primitive_desc_t pd;
    check(dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL), "dnnl_primitive_desc_create");
    check(dnnl_primitive_create(&e->prim, pd), "dnnl_primitive_create");
    dnnl_primitive_desc_destroy(pd);
    /* handles are set before each execution */
    check(dnnl_memory_create(&e->src, &data_md, engine, DNNL_MEMORY_NONE), "memory_create (src)");
    check(dnnl_memory_create(&e->dst, &data_md, engine, DNNL_MEMORY_NONE), "memory_create (dst)");
    check(dnnl_memory_create(&e->scale, &vec_md, engine, DNNL_MEMORY_NONE), "memory_create (scale)");
    check(dnnl_memory_create(&e->shift, &vec_md, engine, DNNL_MEMORY_NONE), "memory_create (shift)");
    e->rows = rows;
    e->D = D;
    e->eps = eps;
    e->flags = flags;
    return e;
}

static void forward(const ln_args *a)
{
    if (a->rows == 0 || a->D == 0) return;
    init_once();
    if (set_num_threads) set_num_threads(1);
    unsigned flags = (a->gamma ? dnnl_use_scale : 0u) | (a->beta ? dnnl_use_shift : 0u);
    onednn_entry *e = lookup(a->rows, a->D, (float)a->eps, flags);
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}};
    int nargs = 2;
    check(dnnl_memory_set_data_handle(e->src, (void *)a->x), "set_data_handle (src)");
    check(dnnl_memory_set_data_handle(e->dst, a->y), "set_data_handle (dst)");
    if (a->gamma) {
        check(dnnl_memory_set_data_handle(e->scale, (void *)a->gamma), "set_data_handle (scale)");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCALE, e->scale};
    }
    if (a->beta) {
        check(dnnl_memory_set_data_handle(e->shift, (void *)a->beta), "set_data_handle (shift)");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SHIFT, e->shift};
    }
    check(dnnl_primitive_execute(e->prim, stream, nargs, args), "dnnl_primitive_execute");
    check(dnnl_stream_wait(stream), "dnnl_stream_wait");
}

/* Two-pass in fp32 (mean, then mean of squared deviations) in an order we do not control:
 * claim the sequential-sum bound, which any summation order meets ((n - 1) u), with eps rounded
 * to float (one more ua in the radicand, inside the epilogue's allowance). */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24, nn = (double)n, dm = (nn + 1.0) * u * (kappa + 1.0);
    return ln_bound_mean(nn + 1.0, kappa, u, u) + ln_bound_var((nn + 3.0) * u + dm * dm, u) + ln_bound_epilogue(u, u);
}

const ln_kernel ln_ext_onednn_f32 = {
    .name = "ext-onednn-f32",
    .dtype = LN_F32,
    .isa = 0,
    .forward = forward,
    .how = "oneDNN 2.6 layer_normalization_forward (inference, use_scale/use_shift, one thread): "
           "fp32 two-pass; claimed as sequential sums, var rel. error <= (n+3) u + (n+1)^2 kappa^2 u^2",
    .bound = bound,
};
