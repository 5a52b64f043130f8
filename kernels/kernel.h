/* The kernel ABI: every LayerNorm variant is one ln_kernel behind this interface.
 *
 *   y[r][i] = (x[r][i] - mean_r) / sqrt(var_r + eps) * gamma[i] + beta[i]
 *   mean_r = sum_i x[r][i] / D,   var_r = sum_i (x[r][i] - mean_r)^2 / D  (population variance)
 */
#ifndef LN_KERNEL_H
#define LN_KERNEL_H

#include <assert.h> /* static_assert: C11 macro, C++ keyword (torch.cc includes this header) */
#include <stddef.h>

#include "dtype.h"

#if defined(__x86_64__) || defined(__i386__)
#define LN_X86 1
#else
#define LN_X86 0
#endif
#if defined(__aarch64__)
#define LN_ARM64 1
#else
#define LN_ARM64 0
#endif

typedef struct {
    size_t rows, D;           /* row-major, contiguous rows of length D */
    const void *x;            /* rows * D elements of the kernel's dtype */
    void *y;                  /* same shape and dtype; may alias x (in place) */
    const void *gamma, *beta; /* D elements each, kernel's dtype; NULL means 1 and 0 */
    double eps;               /* added to the variance inside the square root */
    double *mean, *rstd;      /* optional per-row statistics out (rows each); may be NULL.
                                * Backward ops read them: the statistics saved by the forward
                                * pass (rmsnorm-bwd reads rstd only). */
    /* Backward ops only (docs/ops.md); forward kernels ignore them. */
    const void *dy;       /* rows * D upstream gradient, kernel's dtype */
    void *dx;             /* rows * D gradient of x, kernel's dtype; may alias dy */
    void *dgamma, *dbeta; /* D each, kernel's dtype: sums over the call's rows; may be NULL */
    /* Values of the kernel's tunables, in the order of its .tunables; NULL means every default.
     * Set by the caller (never read from the environment); outputs must not depend on them. */
    const int *params;
    /* The fused residual-add ops only (add-rmsnorm, add-layernorm; docs/ops.md): r the residual
     * (rows * D, the kernel's residual format, ln_kernel_resid), h = x + r rounded once to that
     * format (rows * D, written: the new residual); y is the norm of the stored h. The other ops
     * ignore them. */
    const void *r;
    void *h;
} ln_args;

/* The operator a kernel computes, one line of ops.def each; zero is LayerNorm forward, so kernels
 * that do not say are it.
 *   rmsnorm        y = x / sqrt(mean(x^2) + eps) * gamma + beta    (no centring; beta optional)
 *   layernorm-bwd  g = gamma dy, xhat = (x - mean) rstd:
 *                  dx = rstd (g - mean(g) - xhat mean(g xhat)), dgamma = sum_rows dy xhat,
 *                  dbeta = sum_rows dy
 *   rmsnorm-bwd    xhat = x rstd: dx = rstd (g - xhat mean(g xhat)), dgamma and dbeta as above
 *   add-rmsnorm    h = x + r rounded once, y = rmsnorm(h)      (the residual stream's fused add)
 *   add-layernorm  h = x + r rounded once, y = layernorm(h) */
typedef enum {
#define LN_OP(NAME, ...) LN_OP_##NAME,
#include "ops.def"
#undef LN_OP
    LN_NOPS
} ln_op;
/* The probes' op, y = 0.5 x + 1 over rows * D elements (kernels/simd/copy.h): its kernels are the
 * bandwidth probes timed beside the others (ln_probe_kernels), not an op the harness measures. */
#define LN_OP_COPY ((ln_op)LN_NOPS)

/* One tensor of an op (ops.def): what it is to the kernel, its shape and format, and the ln_args
 * member that carries it (field: its offset, a const void *, void * or double * member). */
typedef enum {
    LN_ROLE_IN,   /* an input the kernel must not write */
    LN_ROLE_OUT,  /* an output compared with the reference's */
    LN_ROLE_STAT, /* a per-row statistic the kernel returns */
    LN_ROLE_SAVED /* a per-row statistic the kernel reads, saved by the op's forward */
} ln_role_kind;
typedef enum {
    LN_SHAPE_ROWS_D, /* rows x D elements of the kernel's dtype (x, y, dy, dx) */
    LN_SHAPE_COLS,   /* D elements of the kernel's dtype, one per column (gamma, beta, dgamma, dbeta) */
    LN_SHAPE_ROWS    /* one double per row (mean, rstd) */
} ln_shape;
enum {
    LN_ROLE_OPT = 1,     /* the caller may pass NULL (gamma, beta: 1 and 0; an output not wanted) */
    LN_ROLE_JUDGED = 2,  /* a returned statistic held to the kernel's bound; else measured only */
    LN_ROLE_NORMED = 4,  /* the rows x D tensor the op normalises (h of the fused ops): its row
                         * facts decide a kernel's domain; x when no role says */
    LN_ROLE_CR = 8,      /* an output every kernel returns correctly rounded (h = x + r, one
                         * rounding): the verdict requires the reference's value */
    LN_ROLE_SUMMED = 16, /* a rows x D input summed into the NORMED tensor (x and r of the fused
                          * ops: h = x + r): a search trades value between such inputs */
    LN_ROLE_RESID = 32,  /* a rows x D tensor of the residual stream (r and h of the fused ops): its
                          * elements are in the kernel's residual format (ln_kernel_resid), which
                          * may be wider than its dtype (fp32 r and h beside 16-bit x and y) */
    LN_ROLE_UNTIMED = 64 /* an OPT input the bench passes as NULL, as models run the op (RMSNorm's
                          * beta: LLaMA's RMSNorm and vLLM's fused add + RMSNorm have a weight and no
                          * bias); accuracy runs give it (bench --every-input times it too) */
};
typedef struct {
    const char *name; /* the ln_args member's name: "x", "gamma", "dy", "mean", ... */
    ln_role_kind kind;
    ln_shape shape;
    unsigned flags; /* LN_ROLE_OPT, LN_ROLE_JUDGED, LN_ROLE_NORMED, LN_ROLE_CR, LN_ROLE_SUMMED,
                     * LN_ROLE_RESID, LN_ROLE_UNTIMED */
    size_t field;   /* offsetof(ln_args, member) */
} ln_role;
enum { LN_MAX_ROLES = 12 };
typedef struct {
    const char *name;  /* "layernorm", "rmsnorm", "layernorm-bwd", "rmsnorm-bwd" */
    const char *title; /* "LayerNorm", ..., "RMSNorm backward" */
    ln_op forward;     /* the forward op whose statistics it reads; itself for a forward op */
    int centres;       /* subtracts the row's mean */
    int bytes;         /* element sizes moved per element of x, as the bench counts them */
    int affine_bound;  /* the bound is scaled by ln_affine_factor (forward ops) */
    /* ln_case_bytes: element sizes and bytes per element of the case, bytes per element of a row */
    double mem_elements, mem_bytes, mem_row_bytes;
    const ln_role *roles; /* in the order given, copied, compared and reported */
    size_t n_roles;
} ln_op_info;
/* The table of ops.def, indexed by ln_op. */
extern const ln_op_info ln_ops[LN_NOPS];

/* "layernorm", "rmsnorm", "layernorm-bwd", "rmsnorm-bwd", "copy" (LN_OP_COPY); NULL for another value. */
const char *ln_op_name(ln_op op);
/* A backward op: it reads the statistics its forward op saved. */
static inline int ln_op_is_backward(ln_op op) { return ln_ops[op].forward != op; }
static inline int ln_op_centres(ln_op op) { return ln_ops[op].centres; }

/* CPU features a kernel needs (bit set), one bit per line of isa.def: LN_ISA_AVX2,
 * LN_ISA_AVX512 (F, BW, VL, DQ), LN_ISA_AVX512BF16, LN_ISA_AVX512FP16 on x86; LN_ISA_NEON,
 * LN_ISA_FP16, LN_ISA_BF16, LN_ISA_SVE, LN_ISA_SVE2 on aarch64; see cpu.h. */
enum {
#define LN_ISA(name, NAME, arch, test, bytes, flags) LN_ISA_BIT_##NAME,
#include "isa.def"
#undef LN_ISA
    LN_ISA_COUNT
};
enum {
#define LN_ISA(name, NAME, arch, test, bytes, flags) LN_ISA_##NAME = 1u << LN_ISA_BIT_##NAME,
#include "isa.def"
#undef LN_ISA
    LN_ISA_NONE = 0
};

/* What the harness knows about one row of a case, cheap to compute from the inputs and the
 * reference: the facts a kernel's domain (below) is decided on. Exact statistics come from the
 * reference, of the row as stored in the kernel's dtype. */
typedef struct {
    ln_dtype dtype;
    size_t D;
    double eps;
    int finite;           /* every x_i, gamma_i, beta_i is finite */
    double mean, var;     /* exact mean and population variance of the row */
    double max_abs_x;     /* max_i |x_i| */
    double max_abs_gamma; /* max_i |gamma_i| (1 without gamma) */
    double min_abs_gamma; /* min over nonzero |gamma_i| (1 without gamma; 0 if all zero) */
    double min_abs_beta;  /* min over nonzero |beta_i| (0 without beta or if all zero) */
    double max_abs_y;     /* max_i |y_exact_i| */
    double max_abs_gxhat; /* max_i |gamma_i xhat_i|, xhat_i = (x_i - mean) / sqrt(var + eps) */
    int subnormal_y;      /* some y_exact_i is nonzero and below the smallest normal */
} ln_row_facts;

/* A kernel's contract, checked by the tests, the fuzzer and `lnbench accuracy` alike:
 *  - bound(D, kappa): the largest normwise error max_i |y_i - y_exact_i| / max_i |y_exact_i| on a
 *    row of length D, in units of the dtype's unit roundoff u, for a row whose condition number is
 *    kappa = sqrt(1 + mean^2/(var + eps)), stated for gamma_i in [0.75, 1.25], |beta_i| <= 0.25
 *    (affine gains up to LN_GAIN_ABS and LN_GAIN_REL, bounds.h). For any finite gamma and beta the
 *    bound is bound(D, kappa) times ln_affine_factor(facts) (bounds.h, docs/metrics.md). NULL: the
 *    kernel claims no bound; INFINITY at some kappa: none at that kappa.
 *  - domain(facts): NULL when the row is inside the domain where the bound is promised, else the
 *    name of the first condition that fails (kebab-case, e.g. "sumsq-overflow"; bounds.h lists
 *    them). Decided on ln_row_facts only, never on the kernel's output. NULL (a plugin that
 *    states none): the conditions every bound needs, ln_domain_common.
 *  - agrees_nonfinite: 1 when, on every row of finite inputs, inside the domain or not, an output
 *    is NaN/Inf exactly where the reference's is (no spurious Inf/NaN from overflowed or underflowed
 *    intermediates). Inside the domain every kernel promises that; with 0, outside it nothing.
 * Non-finite inputs must give non-finite outputs where the reference's are (every kernel). */
/* A tunable: a named parameter that picks a loop structure or a distance inside a kernel family
 * (a row-group threshold, a prefetch distance, a streaming threshold). It never changes the
 * output bits, only the speed; `lnbench tune` searches it and the tests check it. */
typedef struct {
    const char *name;  /* "rowwise_min_d": lower-case, unique within the kernel */
    const char *what;  /* one line: what it picks and its unit */
    int def;           /* the built-in default; one of values[] */
    const int *values; /* the allowed values, ascending */
    size_t n_values;
} ln_tunable;

typedef struct ln_kernel {
    const char *name; /* "<dtype>-<algorithm>-<isa>", e.g. "f32-welford-avx512" */
    ln_dtype dtype;   /* storage type of x, y, gamma, beta */
    unsigned isa;     /* LN_ISA_* bits the kernel needs; 0 = portable C */
    void (*forward)(const ln_args *);
    /* one line: how mean, var and y are computed, and the claimed bound, ending (where bound is
     * not NULL) with bound() at two points, "; bound(768, 1) = V1, bound(4096, 1e3) = V2"
     * (tests/test_claims.c checks them) */
    const char *how;
    double (*bound)(size_t D, double kappa);
    const char *(*domain)(const ln_row_facts *);
    int agrees_nonfinite;
    /* 1 for a peer library's kernel (kernels/ext): judged by the same contract, but its failures
     * are findings about the library, which lnbench cannot fix: the fuzzer and the tests do not
     * require it to pass, `lnbench accuracy --check` does. */
    int external;
    /* A run-time condition beyond .isa, for kernels whose support the CPU bits do not decide
     * (a peer library with no implementation of this dtype for this CPU); NULL = none. */
    int (*usable)(void);
    /* The operator (ln_op): 0 is LayerNorm forward. For the other ops `forward` computes that op
     * and `bound` states its error in the same units: for rmsnorm kappa is 1 (no centring); for
     * the backward ops the bound is on dx, kappa the row's condition number of dx (docs/ops.md). */
    ln_op op;
    /* The kernel's tunables (NULL / 0: none); ln_args.params gives their values in this order. */
    const ln_tunable *tunables;
    size_t n_tunables;
    /* The fused residual-add ops: the format of r and h (the RESID roles of ops.def), when it is
     * not the dtype: LN_F32 for a 16-bit kernel that keeps the residual stream in fp32. 0 (LN_F64,
     * or absent) means the dtype itself; read it through ln_kernel_resid. */
    ln_dtype resid;
} ln_kernel;

/* The format of a residual role (LN_ROLE_RESID) for dtype t and a residual field resid (an
 * ln_kernel's or a problem's): resid, or t where resid is 0 (LN_F64: an f64 residual is the f64
 * kernels' own, so 0 can stand for "the dtype"). */
static inline ln_dtype ln_resid_format(ln_dtype t, ln_dtype resid) { return resid != LN_F64 ? resid : t; }
static inline ln_dtype ln_kernel_resid(const ln_kernel *k) { return ln_resid_format(k->dtype, k->resid); }
/* Whether k's formats are dtype t with residual format resid (a problem's, 0: t). */
static inline int ln_kernel_formats(const ln_kernel *k, ln_dtype t, ln_dtype resid)
{
    return k->dtype == t && ln_kernel_resid(k) == ln_resid_format(t, resid);
}
/* The format of role flags `flags` (an ln_role's) for dtype t and residual format resid. */
static inline ln_dtype ln_role_format(unsigned flags, ln_dtype t, ln_dtype resid)
{
    return flags & LN_ROLE_RESID ? ln_resid_format(t, resid) : t;
}

/* Value i of the tunables table t (the kernel's .tunables) for the call a: a->params[i], or the
 * default without params. Read once per call, never per element. */
static inline int ln_param(const ln_args *a, const ln_tunable *t, size_t i)
{
    return a->params ? a->params[i] : t[i].def;
}

/* Defines the ln_kernel `id`, every field an explicit argument (no name taken from the scope):
 *   name, dtype, isa (LN_ISA_* bits, 0 portable C), op (ln_op), forward, bound, domain,
 *   agrees_nonfinite, tunables (LN_TUNABLES(table) or LN_NO_TUNABLES) and how, the one-line
 *   description, whose bound part tests/test_claims.c checks against bound().
 * LN_SIMD_KERNEL (below) names a template's kernel after the ISA it is built for; LN_PEER_KERNEL defines a peer library's kernel (kernels/ext: external, any row claimed, no
 * agreement on non-finite outputs promised, usable its run-time condition or NULL). */
#define LN_TUNABLES(table) (table)
#define LN_NO_TUNABLES NULL
/* The fields; n_tunables is the table's length (sizeof NULL / sizeof(ln_tunable) is 0): tunables
 * must be an array, not a pointer to one. */
#define LN_KERNEL_FIELDS(name_, dtype_, isa_, op_, forward_, bound_, domain_, agrees_, tunables_, how_)       \
    .name = (name_), .dtype = (dtype_), .isa = (isa_), .op = (op_), .forward = (forward_), .bound = (bound_), \
    .domain = (domain_), .agrees_nonfinite = (agrees_), .tunables = (tunables_),                              \
    .n_tunables = sizeof(tunables_) / sizeof(ln_tunable), .how = (how_)
#define LN_KERNEL_DEFINE(id, ...) const ln_kernel id = {LN_KERNEL_FIELDS(__VA_ARGS__)}
#define LN_PEER_KERNEL(id, name, dtype, op, forward, bound, usable_, how)                                        \
    const ln_kernel id = {LN_KERNEL_FIELDS(name, dtype, 0, op, forward, bound, ln_domain_any_row, 0, NULL, how), \
                          .external = 1, .usable = (usable_)}
static_assert(sizeof(ln_tunable) > sizeof(void *), "LN_NO_TUNABLES (NULL) must count 0 tunables");
/* The ln_kernel of a template's algorithm (kernels/simd/) for the ISA the including file is built
 * for: its name is prefix-<isa> (e.g. "f32-shifted-avx2"), its isa the layer's bits (LN_VEC_NAME
 * and LN_VEC_ISA, which every vector layer defines); every other field is an argument. */
#define LN_SIMD_KERNEL(id, prefix, dtype, op, ...) \
    LN_KERNEL_DEFINE(id, prefix "-" LN_VEC_NAME, dtype, LN_VEC_ISA, op, __VA_ARGS__)

/* Kernels from outside: a shared library loaded with `lnbench --plugin lib.so` exports
 *     const ln_plugin ln_plugin_kernels = {LN_ABI_VERSION, count, kernels};
 * and its kernels are listed, measured and timed beside the built-in ones (docs/plugins.md).
 * LN_ABI_VERSION changes whenever ln_args, ln_kernel or the LN_ISA_* bits change in layout or
 * meaning; lnbench refuses a library built for another version. */
#define LN_ABI_VERSION 5
typedef struct {
    int abi_version; /* LN_ABI_VERSION of the kernel.h the library was built with */
    size_t count;
    const ln_kernel *const *kernels; /* count kernels, each with a unique name and a forward */
} ln_plugin;

/* Every LayerNorm forward kernel compiled into this binary, available on this CPU or not, in
 * kernels.inc order (LN_KERNEL lines). */
extern const ln_kernel *const ln_all_kernels[];
extern const size_t ln_num_kernels;
/* The kernels of the other ops (LN_OP_KERNEL lines), each with its .op. */
extern const ln_kernel *const ln_op_kernels[];
extern const size_t ln_num_op_kernels;

/* The copy op's kernels (LN_PROBE_KERNEL lines), portable first, then by ISA: the probes run the
 * last one of their dtype that the CPU runs. */
extern const ln_kernel *const ln_probe_kernels[];
extern const size_t ln_num_probe_kernels;

/* Whether the running CPU (capped by ln_cpu_set_cap) has every feature kernel k needs, and k's
 * usable() condition, if any, holds. */
int ln_kernel_available(const ln_kernel *k);
/* Elements of k's dtype in the widest vector k uses: 64 bytes for AVX-512 kernels, 32 for AVX2
 * ones, 1 for portable C (for tests that sweep every tail length). */
size_t ln_kernel_vector_width(const ln_kernel *k);
/* The kernel called name, or NULL. */
const ln_kernel *ln_kernel_find(const char *name);
/* The algorithm part of k's name: "f32-welford-avx512" -> "welford" (static buffer per call). */
const char *ln_kernel_algorithm(const ln_kernel *k, char *buf, size_t len);
/* The ISA part of k's name: the last dash-separated word. */
const char *ln_kernel_isa_name(const ln_kernel *k);

#endif
