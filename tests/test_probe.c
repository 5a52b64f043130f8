/* The bandwidth probes compute what they claim on every element: y = 0.5 x + 1, over heads
 * before the aligned stores, vector bodies and tails (fp32, and fp16 rounded once), with the
 * ordinary and the non-temporal stores alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "half.h"
#include "probe.h"

#define MAX_N 300

static void test_fp32_probes(void **state)
{
    (void)state;
    _Alignas(64) float x[MAX_N + 16], y[MAX_N + 16];
    for (size_t i = 0; i < MAX_N + 16; i++) x[i] = (float)i - 100.0f;
    for (size_t off = 0; off < 16; off += 3)
        for (size_t n = 0; n <= MAX_N; n += 7)
            for (int stream = 0; stream < 2; stream++) {
                memset(y, 0, sizeof y);
                (stream ? ln_probe_stream : ln_probe_copy)(x + 1, y + off, n);
                for (size_t i = 0; i < n; i++) assert_true(y[off + i] == 0.5f * x[1 + i] + 1.0f);
                for (size_t i = 0; i < off; i++) assert_true(y[i] == 0.0f);
            }
}

static void test_fp16_probes(void **state)
{
    (void)state;
    _Alignas(64) uint16_t x[MAX_N + 32], y[MAX_N + 32];
    for (size_t i = 0; i < MAX_N + 32; i++) x[i] = ln_f32_to_f16((float)i * 0.37f - 50.0f);
    for (size_t off = 0; off < 32; off += 5)
        for (size_t n = 0; n <= MAX_N; n += 7)
            for (int stream = 0; stream < 2; stream++) {
                memset(y, 0, sizeof y);
                (stream ? ln_probe_stream16 : ln_probe_copy16)(x + 1, y + off, n);
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(y[off + i], ln_f32_to_f16(0.5f * ln_f16_to_f32(x[1 + i]) + 1.0f));
                for (size_t i = 0; i < off; i++) assert_int_equal(y[i], 0);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp32_probes),
        cmocka_unit_test(test_fp16_probes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
