/* The kernel registry and the ISA cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
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
                    strncmp(k->name, "ext-", 4) == 0);
        assert_true(strlen(ln_kernel_algorithm(k, alg, sizeof alg)) > 0);
        assert_non_null(k->forward);
        assert_non_null(k->bound);
        assert_true(k->how && strlen(k->how) > 20);
        assert_ptr_equal(ln_kernel_find(k->name), k);
        for (size_t j = 0; j < i; j++) assert_string_not_equal(k->name, ln_all_kernels[j]->name);
    }
    assert_null(ln_kernel_find("f32-nonexistent-scalar"));
}

static void test_isa_cap(void **state)
{
    (void)state;
    setenv("LNBENCH_ISA", "scalar", 1);
    assert_int_equal(ln_cpu_features(), 0);
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        /* portable kernels stay; a peer library may have nothing for the capped CPU */
        if (k->usable) assert_true(!ln_kernel_available(k) || k->isa == 0);
        else assert_int_equal(ln_kernel_available(k), k->isa == 0);
    }
    setenv("LNBENCH_ISA", "avx2", 1);
    assert_int_equal(ln_cpu_features() & ~(unsigned)LN_ISA_AVX2, 0);
    setenv("LNBENCH_ISA", "bogus", 1);
    assert_non_null(ln_cpu_cap_error());
    unsetenv("LNBENCH_ISA");
    assert_null(ln_cpu_cap_error());
    assert_int_equal(ln_cpu_features(), ln_cpu_features_hw());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_unique_and_well_formed),
        cmocka_unit_test(test_isa_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
