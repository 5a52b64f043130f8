/* One claim per kernel: the bound a kernel's .how text states is its bound() function. Every
 * kernel with a bound ends its .how with the values of bound() at two points,
 *     "...; bound(768, 1) = V1, bound(4096, 1e3) = V2"
 * (normwise error in units of the dtype's u, three significant digits, "inf" for no claim), and
 * this test parses them and compares them with bound() itself, for every kernel this CPU runs
 * (bound() of a kernel built for another ISA may use its instructions). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel.h"

typedef struct {
    size_t D;
    double kappa, value; /* value INFINITY for "inf" */
} claim;

/* The "bound(D, kappa) = V" clauses of how, up to max; returns how many (-1 on a malformed one). */
static int parse_claims(const char *how, claim *c, int max)
{
    int n = 0;
    for (const char *p = strstr(how, "bound("); p; p = strstr(p + 1, "bound(")) {
        char v[32];
        int used = 0;
        if (n == max || sscanf(p, "bound(%zu, %lf) = %31[^,;]%n", &c[n].D, &c[n].kappa, v, &used) != 3) return -1;
        if (!strcmp(v, "inf")) c[n].value = INFINITY;
        else {
            char *end;
            c[n].value = strtod(v, &end);
            if (*end || !(c[n].value > 0)) return -1;
        }
        n++;
    }
    return n;
}

/* Whether the stated value is bound() to the three digits printed. */
static int agrees(double stated, double actual)
{
    if (isinf(stated) || isinf(actual)) return isinf(stated) && isinf(actual);
    return fabs(stated - actual) <= 5e-3 * actual;
}

static void check_list(const ln_kernel *const *ks, size_t n, size_t *checked)
{
    for (size_t i = 0; i < n; i++) {
        const ln_kernel *k = ks[i];
        claim c[4];
        int m = parse_claims(k->how, c, 4);
        if (m < 0) fail_msg("%s: malformed bound clause in .how: %s", k->name, k->how);
        if (!k->bound) {
            if (m) fail_msg("%s states a bound but has no bound()", k->name);
            continue;
        }
        if (m < 2) fail_msg("%s: .how states bound() at %d points, expected 2: %s", k->name, m, k->how);
        if (!ln_kernel_available(k)) continue;
        for (int j = 0; j < m; j++) {
            double b = k->bound(c[j].D, c[j].kappa);
            if (!agrees(c[j].value, b))
                fail_msg("%s: .how says bound(%zu, %g) = %g, bound() gives %.6g", k->name, c[j].D, c[j].kappa,
                         c[j].value, b);
        }
        (*checked)++;
    }
}

static void test_how_states_bound(void **state)
{
    (void)state;
    size_t checked = 0;
    check_list(ln_all_kernels, ln_num_kernels, &checked);
    check_list(ln_op_kernels, ln_num_op_kernels, &checked);
    assert_true(checked >= 20); /* the portable kernels at least */
}

/* The parser itself: a wrong number or a missing clause must be caught. */
static void test_parser(void **state)
{
    (void)state;
    claim c[4];
    assert_int_equal(parse_claims("x; bound(768, 1) = 300, bound(4096, 1e3) = inf", c, 4), 2);
    assert_true(c[0].D == 768 && c[0].kappa == 1 && c[0].value == 300 && c[1].kappa == 1e3 && isinf(c[1].value));
    assert_int_equal(parse_claims("no clause", c, 4), 0);
    assert_int_equal(parse_claims("bound(768, 1) = many", c, 4), -1);
    assert_true(agrees(5.87e5, 587432.0) && !agrees(5.87e5, 592432.0) && !agrees(INFINITY, 1e300));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parser),
        cmocka_unit_test(test_how_states_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
