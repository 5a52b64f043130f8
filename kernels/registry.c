#include <string.h>

#include "cpu.h"
#include "kernel.h"

#define LN_KERNEL(id) extern const ln_kernel ln_##id;
#define LN_OP_KERNEL(id) extern const ln_kernel ln_##id;
#define LN_PROBE_KERNEL(id) extern const ln_kernel ln_##id;
#include "kernels.inc"
#undef LN_KERNEL
#undef LN_OP_KERNEL
#undef LN_PROBE_KERNEL

const ln_kernel *const ln_all_kernels[] = {
#define LN_KERNEL(id) &ln_##id,
#define LN_OP_KERNEL(id)
#define LN_PROBE_KERNEL(id)
#include "kernels.inc"
#undef LN_KERNEL
#undef LN_OP_KERNEL
#undef LN_PROBE_KERNEL
};
const size_t ln_num_kernels = sizeof ln_all_kernels / sizeof ln_all_kernels[0];

const ln_kernel *const ln_op_kernels[] = {
#define LN_KERNEL(id)
#define LN_OP_KERNEL(id) &ln_##id,
#define LN_PROBE_KERNEL(id)
#include "kernels.inc"
#undef LN_KERNEL
#undef LN_OP_KERNEL
#undef LN_PROBE_KERNEL
};
const size_t ln_num_op_kernels = sizeof ln_op_kernels / sizeof ln_op_kernels[0];

const ln_kernel *const ln_probe_kernels[] = {
#define LN_KERNEL(id)
#define LN_OP_KERNEL(id)
#define LN_PROBE_KERNEL(id) &ln_##id,
#include "kernels.inc"
#undef LN_KERNEL
#undef LN_OP_KERNEL
#undef LN_PROBE_KERNEL
};
const size_t ln_num_probe_kernels = sizeof ln_probe_kernels / sizeof ln_probe_kernels[0];

/* ops.def's roles, one array per op, then the table. OPT, JUDGED, NORMED, CR, SUMMED, RESID and UNTIMED are
 * the .def's shorthands. */
#define OPT LN_ROLE_OPT
#define JUDGED LN_ROLE_JUDGED
#define NORMED LN_ROLE_NORMED
#define CR LN_ROLE_CR
#define SUMMED LN_ROLE_SUMMED
#define RESID LN_ROLE_RESID
#define UNTIMED LN_ROLE_UNTIMED
#define LN_IN(f, shape, flags)                                          \
    {                                                                   \
#f, LN_ROLE_IN, LN_SHAPE_##shape, (flags), offsetof(ln_args, f) \
    }
#define LN_OUT(f, shape, flags)                                          \
    {                                                                    \
#f, LN_ROLE_OUT, LN_SHAPE_##shape, (flags), offsetof(ln_args, f) \
    }
#define LN_STAT(f, flags)                                              \
    {                                                                  \
#f, LN_ROLE_STAT, LN_SHAPE_ROWS, (flags), offsetof(ln_args, f) \
    }
#define LN_SAVED(f)                                               \
    {                                                             \
#f, LN_ROLE_SAVED, LN_SHAPE_ROWS, 0, offsetof(ln_args, f) \
    }
#define LN_OP(NAME, name, title, forward, centres, bytes, affine, mem, ref, saved, ...) \
    static const ln_role roles_##NAME[] = {__VA_ARGS__};
#include "ops.def"
#undef LN_OP
#define LN_MEM(elements, bytes, row_bytes) (elements), (bytes), (row_bytes)
#define LN_OP(NAME, name, title, forward, centres, bytes, affine, mem, ref, saved, ...) \
    {name, title, LN_OP_##forward, centres, bytes, affine, mem, roles_##NAME, sizeof roles_##NAME / sizeof(ln_role)},
const ln_op_info ln_ops[LN_NOPS] = {
#include "ops.def"
};
#undef LN_OP
#undef LN_MEM
#undef LN_IN
#undef LN_OUT
#undef LN_STAT
#undef LN_SAVED
#undef OPT
#undef JUDGED
#undef NORMED
#undef CR
#undef SUMMED
#undef RESID
#undef UNTIMED
_Static_assert(sizeof ln_ops / sizeof ln_ops[0] == LN_NOPS, "one ln_ops entry per ops.def line");

const char *ln_op_name(ln_op op)
{
    if ((unsigned)op < LN_NOPS) return ln_ops[op].name;
    return op == LN_OP_COPY ? "copy" : NULL;
}

int ln_kernel_available(const ln_kernel *k)
{
    return (k->isa & ~ln_cpu_features()) == 0 && (!k->usable || k->usable());
}

size_t ln_kernel_vector_width(const ln_kernel *k)
{
    size_t bytes = 0;
    for (size_t i = 0; i < ln_num_isas; i++)
        if ((k->isa & ln_isas[i].bit) && ln_isa_vector_bytes(&ln_isas[i]) > bytes)
            bytes = ln_isa_vector_bytes(&ln_isas[i]);
    return bytes ? bytes / ln_fmt(k->dtype)->size : 1;
}

const ln_kernel *ln_kernel_find(const char *name)
{
    for (size_t i = 0; i < ln_num_kernels; i++)
        if (strcmp(ln_all_kernels[i]->name, name) == 0) return ln_all_kernels[i];
    for (size_t i = 0; i < ln_num_op_kernels; i++)
        if (strcmp(ln_op_kernels[i]->name, name) == 0) return ln_op_kernels[i];
    return NULL;
}

/* Peer libraries are named ext-<library>-<dtype>: their "ISA" is the library's own dispatch. */
static int is_external(const ln_kernel *k) { return k->external; }

const char *ln_kernel_isa_name(const ln_kernel *k)
{
    if (is_external(k)) return "library";
    const char *dash = strrchr(k->name, '-');
    return dash ? dash + 1 : k->name;
}

const char *ln_kernel_algorithm(const ln_kernel *k, char *buf, size_t len)
{
    const char *first = strchr(k->name, '-'), *last = strrchr(k->name, '-');
    if (is_external(k)) last = strchr(first + 1, '-'); /* ext-onednn-f32 -> onednn */
    size_t n = (first && last > first) ? (size_t)(last - first - 1) : 0;
    if (n >= len) n = len - 1;
    memcpy(buf, first ? first + 1 : k->name, n);
    buf[n] = 0;
    return buf;
}
