/* CPU dispatch: which lines of the ISA table (isa.def) this CPU runs, and the cap on them. */
#include "cpu.h"

#include <stdio.h>
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

/* The x86 feature bits cpuid and XCR0 report, read once. */
typedef struct {
    int avx2, avx512, fp16, bf16;
} x86_bits;

static x86_bits x86_read(void)
{
    x86_bits r = {0, 0, 0, 0};
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return r;
    int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return r;
    unsigned long long xcr0 = xgetbv0();
    int ymm_ok = (xcr0 & 0x6) == 0x6;   /* SSE and AVX state */
    int zmm_ok = (xcr0 & 0xe6) == 0xe6; /* plus opmask, ZMM_Hi256, Hi16_ZMM */
    if (__get_cpuid_max(0, NULL) < 7) return r;
    __cpuid_count(7, 0, a, b, c, d);
    unsigned max_subleaf = a;
    unsigned a1 = 0, b1, c1, d1;
    if (max_subleaf >= 1) __cpuid_count(7, 1, a1, b1, c1, d1); /* else its registers are undefined */
    r.avx2 = ymm_ok && ((b >> 5) & 1) && fma && f16c;
    r.avx512 =
        r.avx2 && zmm_ok && ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1); /* F DQ BW VL */
    r.fp16 = r.avx512 && ((d >> 23) & 1);
    r.bf16 = r.avx512 && ((a1 >> 5) & 1);
    return r;
}

static const x86_bits *x86(void)
{
    static x86_bits bits;
    static int read;
    if (!read) bits = x86_read(), read = 1;
    return &bits;
}

static int ln_cpu_has_avx2(void) { return x86()->avx2; }
static int ln_cpu_has_avx512(void) { return x86()->avx512; }
static int ln_cpu_has_avx512bf16(void) { return x86()->bf16; }
static int ln_cpu_has_avx512fp16(void) { return x86()->fp16; }

/* The brand string, then cpuid's family and model as /proc/cpuinfo prints them: virtual machines
 * often show a bare brand ("AMD EPYC" on Zen 3, Zen 4 and Zen 5 alike), and the machine's name
 * (results/history/, its tuning file) must not mix CPUs whose best tunables differ. */
const char *ln_cpu_model(void)
{
    static char model[96];
    char brand[49] = "unknown";
    unsigned r[12], a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x80000004u) {
        for (unsigned i = 0; i < 3; i++)
            __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
        memcpy(brand, r, 48);
        brand[48] = 0;
    }
    const char *s = brand;
    while (*s == ' ') s++;
    snprintf(model, sizeof model, "%s", s);
    for (size_t n = strlen(model); n > 0 && model[n - 1] == ' ';) model[--n] = 0; /* padded on some CPUs */
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        unsigned family = (a >> 8) & 0xf, m = (a >> 4) & 0xf;
        if (family == 0x6 || family == 0xf) m |= ((a >> 16) & 0xf) << 4; /* the extended model */
        if (family == 0xf) family += (a >> 20) & 0xff;                   /* the extended family */
        size_t n = strlen(model);
        snprintf(model + n, sizeof model - n, " (family %u model %u)", family, m);
    }
    return model;
}
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

/* The kernel's hardware capability words: what the CPU has and the OS enabled (SVE state
 * included). FEAT_FP16 arithmetic needs both the scalar and the vector half-precision bits. */
static int hwcap(unsigned long bits) { return (getauxval(AT_HWCAP) & bits) == bits; }
static int hwcap2(unsigned long bits) { return (getauxval(AT_HWCAP2) & bits) == bits; }

static int ln_cpu_has_neon(void) { return hwcap(HWCAP_ASIMD); }
static int ln_cpu_has_fp16(void) { return ln_cpu_has_neon() && hwcap(HWCAP_FPHP | HWCAP_ASIMDHP); }
static int ln_cpu_has_bf16(void) { return ln_cpu_has_fp16() && hwcap2(HWCAP2_BF16); }
static int ln_cpu_has_sve(void) { return ln_cpu_has_fp16() && hwcap(HWCAP_SVE); }
static int ln_cpu_has_sve2(void) { return ln_cpu_has_sve() && ln_cpu_has_bf16() && hwcap2(HWCAP2_SVE2); }

/* The SVE vector length in bytes (0 without SVE), from the kernel: this file is not compiled
 * for SVE, so it cannot ask the CPU with RDVL. */
static size_t sve_bytes(void)
{
    int vl = ln_cpu_has_sve() ? prctl(PR_SVE_GET_VL) : -1;
    return vl < 0 ? 0 : (size_t)(vl & PR_SVE_VL_LEN_MASK);
}

/* "implementer 0x41 part 0xd40" from /proc/cpuinfo (ARM CPUs have no brand string). */
const char *ln_cpu_model(void)
{
    static char model[64] = "unknown";
    unsigned impl = 0, part = 0;
    int got = 0;
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return model;
    while (fgets(line, sizeof line, f) && got < 2) {
        if (sscanf(line, "CPU implementer : %x", &impl) == 1) got |= 1;
        if (sscanf(line, "CPU part : %x", &part) == 1) got |= 2;
    }
    fclose(f);
    if (got == 3) snprintf(model, sizeof model, "ARM implementer 0x%02x part 0x%03x", impl, part);
    return model;
}
#else
const char *ln_cpu_model(void) { return "unknown"; }
#endif

size_t ln_isa_vector_bytes(const ln_isa *t)
{
#if defined(__aarch64__)
    if (t->vector_bytes == 0) return sve_bytes();
#endif
    return t->vector_bytes;
}

const ln_isa ln_isas[] = {
#define LN_ISA(name, NAME, arch, test, bytes, flags) {#name, LN_ISA_##NAME, test, bytes, flags},
#include "isa.def"
#undef LN_ISA
    {NULL, 0, NULL, 0, NULL}, /* so the array is never empty; not counted */
};
const size_t ln_num_isas = sizeof ln_isas / sizeof ln_isas[0] - 1;

unsigned ln_cpu_features_hw(void)
{
    unsigned f = 0;
    for (size_t i = 0; i < ln_num_isas; i++)
        if (ln_isas[i].cpu_has()) f |= ln_isas[i].bit;
    return f;
}

static unsigned cap = ~0u;

unsigned ln_cpu_cap(void) { return cap; }
void ln_cpu_set_cap(unsigned mask) { cap = mask; }
unsigned ln_cpu_features(void) { return ln_cpu_features_hw() & cap; }

int ln_cpu_cap_from_name(const char *word, unsigned *mask)
{
    if (!strcmp(word, "native")) return *mask = ~0u, 0;
    if (!strcmp(word, "scalar")) return *mask = 0, 0;
    unsigned m = 0;
    for (size_t i = 0; i < ln_num_isas; i++) {
        m |= ln_isas[i].bit;
        if (!strcmp(word, ln_isas[i].name)) return *mask = m, 0;
    }
    return -1;
}

static void append(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
}

const char *ln_cpu_cap_names(char *buf, size_t len)
{
    buf[0] = 0;
    append(buf, len, "scalar");
    for (size_t i = 0; i < ln_num_isas; i++) append(buf, len, ln_isas[i].name);
    append(buf, len, "native");
    return buf;
}

const char *ln_isa_names(unsigned f, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < ln_num_isas; i++)
        if (f & ln_isas[i].bit) append(buf, len, ln_isas[i].name);
    if (!buf[0]) snprintf(buf, len, "none");
    return buf;
}
