/* Run-time CPU feature detection over the ISA table (isa.def), and the cap the harness sets.
 * The kernel layer reads no environment: the harness parses the user's cap (LNBENCH_ISA) and
 * hands it over with ln_cpu_set_cap. */
#ifndef LN_CPU_H
#define LN_CPU_H

#include <stddef.h>

/* One line of isa.def. */
typedef struct {
    const char *name;     /* "avx512": the kernel files' suffix and the cap's word */
    unsigned bit;         /* its LN_ISA_* bit */
    int (*cpu_has)(void); /* CPU and OS support it (cpuid, XCR0 register state) */
    size_t vector_bytes;  /* the widest vector its kernels use; 0: scalable (SVE), see below */
    const char *cflags;   /* what its kernel files are compiled with */
} ln_isa;

extern const ln_isa ln_isas[];
/* The vector width of t's kernels in bytes on this CPU: vector_bytes, or for a scalable ISA the
 * length the CPU and OS set (0 where the CPU lacks it). */
size_t ln_isa_vector_bytes(const ln_isa *t);
extern const size_t ln_num_isas;

/* LN_ISA_* bits the CPU and the OS support, intersected with the cap. */
unsigned ln_cpu_features(void);
/* The features the hardware has, without the cap. */
unsigned ln_cpu_features_hw(void);
/* The LN_ISA_* bits kernels may use (~0u, no cap, until ln_cpu_set_cap is called). */
unsigned ln_cpu_cap(void);
void ln_cpu_set_cap(unsigned mask);
/* The cap a word names: "scalar" (no SIMD), an ISA's name (it and every ISA before it in the
 * table) or "native" (no cap). Returns 0 and sets *mask, or -1 for an unknown word. */
int ln_cpu_cap_from_name(const char *word, unsigned *mask);
/* The cap's words, space-separated: "scalar avx2 ... native". */
const char *ln_cpu_cap_names(char *buf, size_t len);
/* Space-separated names of the bits in f, in table order, e.g. "avx2 avx512" ("none" when 0). */
const char *ln_isa_names(unsigned f, char *buf, size_t len);
/* The CPU's brand string ("unknown" where cpuid does not give one). */
const char *ln_cpu_model(void);

#endif
