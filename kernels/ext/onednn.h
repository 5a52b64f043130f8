/* oneDNN's layer normalization (libdnnl 2.6 C API) behind the kernel ABI, shared by the
 * ext-onednn-<dtype> wrappers: one engine for the process; per calling thread, a primitive
 * cache, its memory objects and a stream; oneDNN itself at one thread per call.
 *
 * Threads: Debian's libdnnl is built with DNNL_CPU_RUNTIME = OMP (libgomp), which reads
 * OMP_NUM_THREADS when the library is loaded, before main, so setenv() is too late. libgomp's
 * omp_set_num_threads() is looked up at run time (dlsym: no -fopenmp or -lgomp needed) and
 * called before every execution; it sets the calling thread's team size (each thread outside
 * an OpenMP region has its own), which is what oneDNN asks omp_get_max_threads() for. So with
 * `lnbench bench --threads N` each of the N threads runs oneDNN single-threaded on its own
 * share, as the other kernels do. A memory object holds the data pointers of the call in
 * progress, hence per thread; the state of a thread is released when it exits.
 *
 * Primitives are cached per (dtype, rows, D, eps, scale/shift flags), so a timing loop measures
 * the kernel, not the primitive creation (a few hundred microseconds). Inference mode does not
 * return the statistics: mean and rstd are left untouched. */
#ifndef LN_EXT_ONEDNN_H
#define LN_EXT_ONEDNN_H

#include "kernel.h"

/* Runs oneDNN's layer_normalization_forward (inference, use_scale/use_shift when gamma/beta are
 * given) on a, whose x and y are of dtype t (LN_F32 or LN_BF16). oneDNN 2.6 takes scale and
 * shift in fp32 whatever the data type: 16-bit gamma/beta are widened (exactly) on each call
 * into a buffer kept with the cached primitive. name prefixes error messages. */
void ln_onednn_forward(const ln_args *a, ln_dtype t, const char *name);

/* The name of the implementation oneDNN picks for dtype t on this CPU ("jit:avx512_core",
 * "ref:any", ...), for the docs and tests; NULL when it has none. */
const char *ln_onednn_impl(ln_dtype t);

/* Whether oneDNN has a layer normalization for dtype t on this CPU (2.6 has bf16 only where
 * it finds AVX-512): the ext kernels' usable() condition. Decided once per process, since
 * oneDNN's ISA cap (LNBENCH_ISA, mapped at its first use) is. */
int ln_onednn_usable(ln_dtype t);

/* For the other oneDNN kernels (ext-onednn-lnbwd-f32.c): the shared engine and the calling
 * thread's stream (dnnl_engine_t, dnnl_stream_t), created on first use with oneDNN's ISA capped
 * as above, and oneDNN set to one thread for this thread's next execution; and the check that exits with a message on a failed call. */
void ln_onednn_session(const char *name, void **engine, void **stream);
/* Registers fn to release the calling thread's state of another oneDNN kernel when the thread
 * exits (at most 4 per thread). */
void ln_onednn_at_thread_exit(const char *name, void (*fn)(void));
void ln_onednn_check(int status, const char *name, const char *what);

#endif
