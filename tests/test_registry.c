/* The kernel registry and the ISA cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "kernel.h"

static void test_names_are_unique_and_well_formed(void **state)
{
    (void)state;
    assert_true(ln_num_kernels > 0);
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        char alg[64];
        /* dtype-algorithm-isa: starts with the dtype (or "ext-"), has an algorithm part */
        assert_true(strncmp(k->name, ln_fmt(k->dtype)->name, strlen(ln_fmt(k->dtype)->name)) == 0 ||
                    (k->external && strncmp(k->name, "ext-", 4) == 0));
        assert_true(strlen(ln_kernel_algorithm(k, alg, sizeof alg)) > 0);
        assert_non_null(k->forward);
        assert_non_null(k->bound);
        assert_non_null(k->domain); /* every kernel states its contract (kernel.h) */
        assert_true(k->how && strlen(k->how) > 20);
        assert_ptr_equal(ln_kernel_find(k->name), k);
        for (size_t j = 0; j < i; j++) assert_string_not_equal(k->name, ln_all_kernels[j]->name);
    }
    assert_null(ln_kernel_find("f32-nonexistent-scalar"));
}

static void test_isa_cap(void **state)
{
    (void)state;
    unsigned mask;
    assert_int_equal(ln_cpu_cap_from_name("scalar", &mask), 0);
    ln_cpu_set_cap(mask);
    assert_int_equal(ln_cpu_features(), 0);
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        /* portable kernels stay; a peer library may have nothing for the capped CPU */
        if (k->usable) assert_true(!ln_kernel_available(k) || k->isa == 0);
        else assert_int_equal(ln_kernel_available(k), k->isa == 0);
    }
    /* each word allows its ISA and every one before it in the table */
    for (size_t i = 0; i < ln_num_isas; i++) {
        assert_int_equal(ln_cpu_cap_from_name(ln_isas[i].name, &mask), 0);
        for (size_t j = 0; j < ln_num_isas; j++) assert_int_equal((mask & ln_isas[j].bit) != 0, j <= i);
    }
    assert_int_equal(ln_cpu_cap_from_name("bogus", &mask), -1);
    assert_int_equal(ln_cpu_cap_from_name("native", &mask), 0);
    ln_cpu_set_cap(mask);
    assert_int_equal(ln_cpu_features(), ln_cpu_features_hw());
}

/* The ISA table: distinct names and bits, a CPU test and flags for each (none for the
 * architecture's baseline, NEON), the widths in bytes (scalable ones, SVE, as the CPU sets them:
 * a power of two from 16 to 256). */
static void test_isa_table(void **state)
{
    (void)state;
    unsigned seen = 0;
    for (size_t i = 0; i < ln_num_isas; i++) {
        const ln_isa *t = &ln_isas[i];
        assert_non_null(t->cpu_has);
        assert_true(t->cflags && (t->cflags[0] == '-' || (i == 0 && t->cflags[0] == 0)));
        if (t->vector_bytes) {
            assert_true(t->vector_bytes == 16 || t->vector_bytes == 32 || t->vector_bytes == 64);
        } else if (t->cpu_has()) {
            size_t b = ln_isa_vector_bytes(t);
            assert_true(b >= 16 && b <= 256 && (b & (b - 1)) == 0);
        }
        assert_int_equal(seen & t->bit, 0);
        assert_int_equal(t->bit & (t->bit - 1), 0); /* one bit */
        seen |= t->bit;
        if (t->cpu_has()) assert_true(ln_cpu_features_hw() & t->bit);
    }
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        assert_int_equal(k->isa & ~seen, 0); /* every bit a kernel needs is a line of the table */
        /* a kernel built for an ISA is named after it (peers excepted: their ISA is the library's) */
        for (size_t j = 0; j < ln_num_isas; j++)
            if (!strcmp(ln_kernel_isa_name(k), ln_isas[j].name)) assert_true(k->isa & ln_isas[j].bit);
    }
}

/* The CPU's name carries cpuid's family and model as the OS reads them (/proc/cpuinfo), so that
 * two CPUs with the same bare brand string get different machine names and tuning files. */
static void test_cpu_model_names_family_and_model(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) skip();
    char line[512];
    int family = -1, model = -1;
    while (fgets(line, sizeof line, f) && (family < 0 || model < 0)) {
        if (family < 0) sscanf(line, "cpu family : %d", &family);
        if (model < 0) sscanf(line, "model : %d", &model);
    }
    fclose(f);
    if (family < 0 || model < 0) skip();
    char want[64];
    snprintf(want, sizeof want, " (family %d model %d)", family, model);
    const char *got = ln_cpu_model();
    assert_true(strlen(got) > strlen(want));
    assert_string_equal(got + strlen(got) - strlen(want), want);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_unique_and_well_formed),
        cmocka_unit_test(test_isa_cap),
        cmocka_unit_test(test_isa_table),
        cmocka_unit_test(test_cpu_model_names_family_and_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
