/* Runtime CPU feature detection, capped by the LNBENCH_ISA environment variable. */
#ifndef LN_CPU_H
#define LN_CPU_H

/* LN_ISA_* bits the CPU and the OS support (cpuid plus the register state enabled in XCR0),
 * intersected with the cap LNBENCH_ISA names: scalar, avx2, avx512, avx512bf16, avx512fp16
 * (each level includes the ones before it) or native (no cap, the default). */
unsigned ln_cpu_features(void);
/* The LN_ISA_* bits LNBENCH_ISA allows (~0u: no cap, or an invalid value's 0). */
unsigned ln_cpu_cap(void);
/* The features the hardware has, without the cap. */
unsigned ln_cpu_features_hw(void);
/* Space-separated names of the bits in f, e.g. "avx2 avx512" ("none" when 0). */
const char *ln_isa_names(unsigned f, char *buf, unsigned long len);
/* The CPU's brand string ("unknown" where cpuid does not give one). */
const char *ln_cpu_model(void);
/* The LNBENCH_ISA value is not one of the names above: the message names the valid ones. */
const char *ln_cpu_cap_error(void);

#endif
