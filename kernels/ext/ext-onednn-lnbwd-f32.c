/* oneDNN's fp32 layer normalization backward (libdnnl 2.6) as a peer: prop_kind backward with
 * use_scale and use_shift (dx, dgamma, dbeta), the caller's buffers, one thread. oneDNN takes the
 * saved mean and VARIANCE in fp32: var = 1 / rstd^2 - eps is formed in double from the saved
 * rstd and rounded once. A primitive is kept for the last (rows, D, eps), per calling thread
 * (its memory objects hold the call's pointers), released when the thread exits. */
#include <oneapi/dnnl/dnnl.h>
#include <stdlib.h>

#include "bounds-ops.h"
#include "onednn.h"

#define NAME "ext-onednn-lnbwd-f32"

static _Thread_local struct {
    int registered; /* release() is registered for this thread's exit */
    size_t rows, D;
    float eps;
    dnnl_primitive_t prim;
    dnnl_memory_t src, ddst, dsrc, mean, var, scale, shift, dscale, dshift;
    float *buf; /* mean, var (rows each), ones, dgamma, dbeta scratch (D each) */
} cached;

static void release(void)
{
    if (!cached.prim) return;
    dnnl_primitive_destroy(cached.prim);
    dnnl_memory_t *m[] = {&cached.src,   &cached.ddst,  &cached.dsrc,   &cached.mean,  &cached.var,
                          &cached.scale, &cached.shift, &cached.dscale, &cached.dshift};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++) dnnl_memory_destroy(*m[i]);
    free(cached.buf);
    cached.prim = NULL;
}

static void memory(dnnl_memory_t *m, const dnnl_memory_desc_t *md, dnnl_engine_t engine)
{
    ln_onednn_check(dnnl_memory_create(m, md, engine, DNNL_MEMORY_NONE), NAME, "memory_create");
}

static void prepare(size_t rows, size_t D, float eps, dnnl_engine_t engine)
{
    if (cached.prim && cached.rows == rows && cached.D == D && cached.eps == eps) return;
    release();
    if (!cached.registered) ln_onednn_at_thread_exit(NAME, release), cached.registered = 1;
    const unsigned flags = dnnl_use_scale | dnnl_use_shift;
    dnnl_dims_t dims = {(dnnl_dim_t)rows, (dnnl_dim_t)D}, sdims = {(dnnl_dim_t)rows}, vdims = {(dnnl_dim_t)D};
    dnnl_memory_desc_t data_md, stat_md, vec_md;
    ln_onednn_check(dnnl_memory_desc_init_by_tag(&data_md, 2, dims, dnnl_f32, dnnl_ab), NAME, "memory_desc (data)");
    ln_onednn_check(dnnl_memory_desc_init_by_tag(&stat_md, 1, sdims, dnnl_f32, dnnl_a), NAME, "memory_desc (stats)");
    ln_onednn_check(dnnl_memory_desc_init_by_tag(&vec_md, 1, vdims, dnnl_f32, dnnl_a), NAME, "memory_desc (scale)");
    dnnl_layer_normalization_desc_t fdesc, bdesc;
    dnnl_primitive_desc_t fpd, bpd;
    ln_onednn_check(
        dnnl_layer_normalization_forward_desc_init(&fdesc, dnnl_forward_training, &data_md, &stat_md, eps, flags), NAME,
        "forward desc (hint)");
    ln_onednn_check(dnnl_primitive_desc_create(&fpd, &fdesc, NULL, engine, NULL), NAME, "forward pd (hint)");
    ln_onednn_check(
        dnnl_layer_normalization_backward_desc_init(&bdesc, dnnl_backward, &data_md, &data_md, &stat_md, eps, flags),
        NAME, "backward desc");
    ln_onednn_check(dnnl_primitive_desc_create(&bpd, &bdesc, NULL, engine, fpd), NAME, "backward pd");
    ln_onednn_check(dnnl_primitive_create(&cached.prim, bpd), NAME, "primitive_create");
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
    memory(&cached.src, &data_md, engine), memory(&cached.ddst, &data_md, engine),
        memory(&cached.dsrc, &data_md, engine);
    memory(&cached.mean, &stat_md, engine), memory(&cached.var, &stat_md, engine);
    memory(&cached.scale, &vec_md, engine), memory(&cached.shift, &vec_md, engine);
    memory(&cached.dscale, &vec_md, engine), memory(&cached.dshift, &vec_md, engine);
    cached.buf = malloc((2 * rows + 3 * D) * sizeof(float));
    if (!cached.buf) abort();
    for (size_t i = 0; i < D; i++) cached.buf[2 * rows + i] = 1.0f;
    cached.rows = rows, cached.D = D, cached.eps = eps;
}

static void set(dnnl_memory_t m, const void *p)
{
    ln_onednn_check(dnnl_memory_set_data_handle(m, (void *)p), NAME, "set_data_handle");
}

static void backward(const ln_args *a)
{
    if (a->rows == 0 || a->D == 0) return;
    void *engine, *stream;
    ln_onednn_session(NAME, &engine, &stream);
    prepare(a->rows, a->D, (float)a->eps, engine);
    const size_t rows = a->rows, D = a->D;
    float *mean = cached.buf, *var = mean + rows, *ones = var + rows, *dg = ones + D, *db = dg + D;
    for (size_t r = 0; r < rows; r++) {
        mean[r] = (float)a->mean[r];
        var[r] = (float)(1.0 / (a->rstd[r] * a->rstd[r]) - (double)(float)a->eps);
    }
    set(cached.src, a->x), set(cached.ddst, a->dy), set(cached.dsrc, a->dx);
    set(cached.mean, mean), set(cached.var, var), set(cached.scale, a->gamma ? a->gamma : ones);
    set(cached.shift, ones); /* not used by the gradients, but 2.6 asks for it with use_shift */
    set(cached.dscale, a->dgamma ? a->dgamma : dg), set(cached.dshift, a->dbeta ? a->dbeta : db);
    dnnl_exec_arg_t args[] = {
        {DNNL_ARG_SRC, cached.src},     {DNNL_ARG_DIFF_DST, cached.ddst},     {DNNL_ARG_DIFF_SRC, cached.dsrc},
        {DNNL_ARG_MEAN, cached.mean},   {DNNL_ARG_VARIANCE, cached.var},      {DNNL_ARG_SCALE, cached.scale},
        {DNNL_ARG_SHIFT, cached.shift}, {DNNL_ARG_DIFF_SCALE, cached.dscale}, {DNNL_ARG_DIFF_SHIFT, cached.dshift}};
    ln_onednn_check(dnnl_primitive_execute(cached.prim, (dnnl_stream_t)stream, (int)(sizeof args / sizeof *args), args),
                    NAME, "primitive_execute");
    ln_onednn_check(dnnl_stream_wait((dnnl_stream_t)stream), NAME, "stream_wait");
}

static int usable(void) { return ln_onednn_usable(LN_F32); }

/* Sums in an order we do not control: claimed as sequential sums, plus two roundings of the
 * radicand (var to fp32, eps to fp32). */
static double bound(size_t n, double kappa) { return ln_bound_norm_bwd((double)n + 2, kappa, 0x1p-24, 0x1p-24); }

LN_PEER_KERNEL(ln_ext_onednn_lnbwd_f32, NAME, LN_F32, LN_OP_LAYERNORM_BWD, backward, bound, usable,
               "oneDNN 2.6 layer_normalization_backward (use_scale/use_shift, one thread) from the saved "
               "mean and var = 1/rstd^2 - eps in fp32; claimed as sequential sums"
               "; bound(768, 1) = 1.56e+03, bound(4096, 1e3) = 8.21e+06");
