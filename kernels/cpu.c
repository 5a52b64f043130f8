#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long xgetbv0(void)
{
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

unsigned ln_cpu_features_hw(void)
{
    unsigned a, b, c, d, f = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return 0;
    unsigned long long xcr0 = xgetbv0();
    int ymm_ok = (xcr0 & 0x6) == 0x6;      /* SSE and AVX state */
    int zmm_ok = (xcr0 & 0xe6) == 0xe6;    /* plus opmask, ZMM_Hi256, Hi16_ZMM */
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    unsigned max_subleaf = a;
    int avx2 = (b >> 5) & 1;
    int avx512 = ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1); /* F DQ BW VL */
    int fp16 = (d >> 23) & 1;
    unsigned a1 = 0, b1, c1, d1;
    if (max_subleaf >= 1) __cpuid_count(7, 1, a1, b1, c1, d1); /* else its registers are undefined */
    int bf16 = (a1 >> 5) & 1;
    if (ymm_ok && avx2 && fma && f16c) f |= LN_ISA_AVX2;
    if (zmm_ok && (f & LN_ISA_AVX2) && avx512) {
        f |= LN_ISA_AVX512;
        if (fp16) f |= LN_ISA_AVX512FP16;
        if (bf16) f |= LN_ISA_AVX512BF16;
    }
    return f;
}

const char *ln_cpu_model(void)
{
    static char brand[49];
    unsigned r[12];
    if ((unsigned)__get_cpuid_max(0x80000000, NULL) < 0x80000004u) return "unknown";
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
    memcpy(brand, r, 48);
    brand[48] = 0;
    char *s = brand;
    while (*s == ' ') s++;
    for (size_t n = strlen(s); n > 0 && s[n - 1] == ' '; n--) s[n - 1] = 0; /* padded on some CPUs */
    return s;
}
#else
unsigned ln_cpu_features_hw(void) { return 0; }
const char *ln_cpu_model(void) { return "unknown"; }
#endif

static const struct {
    const char *name;
    unsigned mask;
} caps[] = {
    {"scalar", 0},
    {"avx2", LN_ISA_AVX2},
    {"avx512", LN_ISA_AVX2 | LN_ISA_AVX512},
    {"avx512bf16", LN_ISA_AVX2 | LN_ISA_AVX512 | LN_ISA_AVX512BF16},
    {"avx512fp16", LN_ISA_AVX2 | LN_ISA_AVX512 | LN_ISA_AVX512BF16 | LN_ISA_AVX512FP16},
    {"native", ~0u},
};

static int cap_index(void)
{
    const char *v = getenv("LNBENCH_ISA");
    if (!v || !*v) return (int)(sizeof caps / sizeof caps[0]) - 1;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        if (strcmp(v, caps[i].name) == 0) return (int)i;
    return -1;
}

const char *ln_cpu_cap_error(void)
{
    static char msg[256];
    if (cap_index() >= 0) return NULL;
    snprintf(msg, sizeof msg,
             "LNBENCH_ISA='%s' is not a valid ISA cap; valid: scalar, avx2, avx512, avx512bf16, "
             "avx512fp16, native",
             getenv("LNBENCH_ISA"));
    return msg;
}

unsigned ln_cpu_cap(void)
{
    int i = cap_index();
    return i < 0 ? 0 : caps[i].mask;
}

unsigned ln_cpu_features(void) { return ln_cpu_features_hw() & ln_cpu_cap(); }

const char *ln_isa_names(unsigned f, char *buf, unsigned long len)
{
    static const char *names[] = {"avx2", "avx512", "avx512fp16", "avx512bf16"};
    buf[0] = 0;
    for (unsigned b = 0; b < 4; b++)
        if (f & (1u << b)) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", n ? " " : "", names[b]);
        }
    if (!buf[0]) snprintf(buf, len, "none");
    return buf;
}
