// PyTorch's layer norm shared by the ext-torch-<dtype> kernels: see torch.h.
#include "torch.h"

// The builds of ATen's CPU kernels Debian's x86-64 libtorch_cpu carries (its dispatch entry
// point takes DEFAULT, AVX512 and AVX2): ATen's headers must be told, as its build was.
#if defined(__x86_64__)
#define HAVE_AVX512_CPU_DEFINITION 1
#define HAVE_AVX2_CPU_DEFINITION 1
#endif

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/layer_norm.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/layer_norm.h>
#include <ATen/ops/ones.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "cpu.h"
}

namespace
{

at::ScalarType scalar_type(ln_dtype t)
{
    return t == LN_BF16 ? at::kBFloat16 : t == LN_F16 ? at::kHalf : t == LN_F64 ? at::kDouble : at::kFloat;
}

// Tensors wrapping caller buffers, cached per (pointer, shape, dtype): a hit costs a compare,
// a miss a from_blob (a few hundred ns). The tensors do not own their memory. Per thread, as
// the stats below: `lnbench bench --threads N` calls the kernel from N threads at once.
struct view_entry {
    const void *ptr = nullptr;
    int64_t rows = 0, D = 0;
    ln_dtype t = LN_F32;
    at::Tensor tensor;
};
constexpr int kViews = 16;
thread_local view_entry views[kViews];
thread_local int views_next;

at::Tensor view(const void *p, int64_t rows, int64_t D, ln_dtype t)
{
    for (auto &e : views)
        if (e.ptr == p && e.rows == rows && e.D == D && e.t == t) return e.tensor;
    view_entry &e = views[views_next];
    views_next = (views_next + 1) % kViews;
    e.tensor = rows ? at::from_blob(const_cast<void *>(p), {rows, D}, at::TensorOptions().dtype(scalar_type(t)))
                    : at::from_blob(const_cast<void *>(p), {D}, at::TensorOptions().dtype(scalar_type(t)));
    e.ptr = p;
    e.rows = rows;
    e.D = D;
    e.t = t;
    return e.tensor;
}

// Mean and rstd as the kernel writes them (in the data type: fp32, or bf16 for bf16 data),
// kept per (rows, dtype) like layer_norm_cpu's, but allocated once.
struct stats_entry {
    int64_t rows = -1;
    ln_dtype t = LN_F32;
    at::Tensor mean, rstd;
};
thread_local stats_entry stats;

void stats_for(int64_t rows, ln_dtype t)
{
    if (stats.rows == rows && stats.t == t) return;
    auto opts = at::TensorOptions().dtype(scalar_type(t));
    stats.mean = at::empty({rows}, opts);
    stats.rstd = at::empty({rows}, opts);
    stats.rows = rows;
    stats.t = t;
}

// ATen picks its kernels' build (DEFAULT, AVX2, AVX-512) once, at its first dispatch, from
// ATEN_CPU_CAPABILITY or else the CPU: set that variable first, from the same features (capped
// by LNBENCH_ISA) and the same tests (AVX-512 F/BW/VL/DQ, AVX2 + FMA) ATen applies, so the
// capability in use is known (ATen 1.13 has no call that reports it).
// Decided once per process (a function-local static: thread-safe initialization).
const char *capability()
{
    static const char *const cap = [] {
        const char *env = getenv("ATEN_CPU_CAPABILITY");
        if (!env || !*env) {
            unsigned f = ln_cpu_features();
            env = (f & LN_ISA_AVX512) ? "avx512" : (f & LN_ISA_AVX2) ? "avx2" : "default";
            setenv("ATEN_CPU_CAPABILITY", env, 1);
        }
        return env;
    }();
    return cap;
}

// One intra-op thread for calls from this thread (OpenMP's team size is the caller's).
void one_thread()
{
    capability();
    if (at::get_num_threads() != 1) at::set_num_threads(1);
}

// The statistics widened to double (no tensor conversion: nothing allocated per call).
double stat(const at::Tensor &v, int64_t i)
{
    if (v.scalar_type() == at::kBFloat16) return (double)(float)v.data_ptr<at::BFloat16>()[i];
    return (double)v.data_ptr<float>()[i];
}

void store_stats(const ln_args *a, const at::Tensor &mean, const at::Tensor &rstd)
{
    for (size_t r = 0; r < a->rows; r++) {
        if (a->mean) a->mean[r] = stat(mean, (int64_t)r);
        if (a->rstd) a->rstd[r] = stat(rstd, (int64_t)r);
    }
}

[[noreturn]] void fail(const char *name, const c10::Error &e)
{
    fprintf(stderr, "%s: libtorch: %s\n", name, e.what_without_backtrace());
    exit(1);
}

} // namespace

// The kernel on the caller's buffers, or (op) the public operator and a copy into y; with add,
// first h = x + r over the whole tensor (at::add_out into the caller's h), then the kernel on h.
static void run(const ln_args *a, ln_dtype t, const char *name, bool op, bool add)
{
    if (a->rows == 0 || a->D == 0) return;
    one_thread();
    int64_t M = (int64_t)a->rows, N = (int64_t)a->D;
    try {
        at::Tensor x = view(a->x, M, N, t), y = view(a->y, M, N, t);
        if (add) {
            at::Tensor h = view(a->h, M, N, t);
            at::add_out(h, x, view(a->r, M, N, t));
            x = h;
        }
        at::Tensor gamma = a->gamma ? view(a->gamma, 0, N, t) : at::Tensor();
        at::Tensor beta = a->beta ? view(a->beta, 0, N, t) : at::Tensor();
        if (op) {
            y.copy_(at::layer_norm(x, {N}, gamma, beta, a->eps));
            return;
        }
        stats_for(M, t);
        at::native::LayerNormKernel(at::kCPU, x, gamma, beta, M, N, a->eps, &y, &stats.mean, &stats.rstd);
        store_stats(a, stats.mean, stats.rstd);
    } catch (const c10::Error &e) {
        fail(name, e);
    }
}

extern "C" void ln_torch_forward(const ln_args *a, ln_dtype t, const char *name) { run(a, t, name, false, false); }

extern "C" void ln_torch_forward_op(const ln_args *a, ln_dtype t, const char *name) { run(a, t, name, true, false); }

extern "C" void ln_torch_add_forward(const ln_args *a, ln_dtype t, const char *name) { run(a, t, name, false, true); }

extern "C" int ln_torch_usable(ln_dtype t)
{
    static std::atomic<char> known[LN_NDTYPES]; // per dtype: 0 not asked yet, 1 no, 2 yes
    if (known[t]) return known[t] == 2;
    char ok = 1;
    one_thread();
    try {
        auto opts = at::TensorOptions().dtype(scalar_type(t));
        at::Tensor x = at::ones({2, 8}, opts), y = at::empty({2, 8}, opts);
        at::Tensor mean = at::empty({2}, opts), rstd = at::empty({2}, opts);
        at::native::LayerNormKernel(at::kCPU, x, at::Tensor(), at::Tensor(), 2, 8, 1e-5, &y, &mean, &rstd);
        ok = 2;
    } catch (const c10::Error &) {
    }
    known[t] = ok;
    return ok == 2;
}

extern "C" int ln_torch_num_threads(void)
{
    one_thread();
    return at::get_num_threads();
}

extern "C" const char *ln_torch_capability(void) { return capability(); }
