/* The Google Benchmark C shim: a C function registered at run time is run, its counters come
 * back through ln_gb_run as rates, repetitions yield the aggregates, flags are parsed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbench.h"

typedef struct {
    float data[256];
    long calls; /* how many times Google Benchmark called the function */
    int has_arg;
    int64_t range0; /* the argument seen */
} trivial_ctx;

static void trivial(ln_gb_state *st, void *ctx)
{
    trivial_ctx *c = ctx;
    c->calls++;
    if (c->has_arg) c->range0 = ln_gb_range(st, 0);
    while (ln_gb_keep_running(st)) {
        for (int i = 0; i < 256; i++) c->data[i] = c->data[i] * 0.5f + 1.0f;
        ln_do_not_optimize(c->data);
        ln_clobber_memory();
    }
    ln_gb_counter(st, "bytes_per_second", 2.0 * sizeof c->data, LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
    ln_gb_counter(st, "items", 256, 0);
}

static void init_flags(const char *extra)
{
    /* static: Google Benchmark keeps argv[0] for its reports */
    static char prog[] = "test_gbench", min_time[] = "--benchmark_min_time=0.002", fmt[] = "--benchmark_format=console";
    static char extra_copy[64];
    snprintf(extra_copy, sizeof extra_copy, "%s", extra);
    char *argv[] = {prog, min_time, fmt, extra_copy, NULL};
    int argc = 4;
    ln_gb_init(&argc, argv);
    assert_int_equal(argc, 1); /* every flag was recognised and removed */
}

static void test_counter_is_a_positive_rate(void **state)
{
    (void)state;
    init_flags("--benchmark_repetitions=1");
    trivial_ctx c = {.has_arg = 1};
    ln_gb_bench *b = ln_gb_register("c-trivial", trivial, &c);
    assert_non_null(b);
    ln_gb_arg(b, 7);
    ln_gb_use_real_time(b);
    ln_gb_add_context("lnbench_test", "yes");
    ln_gb_result *r;
    size_t n = ln_gb_run(&r);
    assert_true(c.calls >= 1);
    assert_int_equal(c.range0, 7);
    assert_int_equal(n, 1);
    assert_string_equal(r[0].name, "c-trivial/7/real_time");
    assert_string_equal(r[0].aggregate, "");
    assert_true(r[0].iterations >= 1);
    assert_true(r[0].real_ns > 0);
    double bps = ln_gb_lookup(r, n, "c-trivial/7/real_time", "", "bytes_per_second");
    /* A rate: bytes x iterations / seconds, so positive and finite, and consistent with the
     * reported time per iteration. */
    assert_true(isfinite(bps) && bps > 0);
    assert_true(fabs(bps * r[0].real_ns * 1e-9 / (2.0 * sizeof c.data) - 1) < 1e-6);
    /* A plain counter is reported as set. */
    assert_true(ln_gb_lookup(r, n, "c-trivial/7/real_time", "", "items") == 256);
    assert_true(isnan(ln_gb_lookup(r, n, "c-trivial/7/real_time", "", "absent")));
    assert_true(isnan(ln_gb_lookup(r, n, "absent", "", "items")));
    free(r);
}

static void test_repetitions_give_aggregates(void **state)
{
    (void)state;
    init_flags("--benchmark_repetitions=1");
    trivial_ctx c = {.has_arg = 0};
    ln_gb_bench *b = ln_gb_register("c-repeated", trivial, &c);
    ln_gb_repetitions(b, 3); /* overrides the flag */
    ln_gb_min_time(b, 0.001);
    ln_gb_use_real_time(b);
    ln_gb_min_max_statistics(b);
    ln_gb_result *r;
    size_t n = ln_gb_run(&r);
    int reps = 0;
    for (size_t i = 0; i < n; i++) {
        reps += r[i].aggregate[0] == 0;
        assert_int_equal(r[i].repetitions, 3);
    }
    assert_int_equal(reps, 3);
    const char *name = "c-repeated/min_time:0.001/repeats:3/real_time";
    double lo = ln_gb_lookup(r, n, name, "min", "bytes_per_second");
    double hi = ln_gb_lookup(r, n, name, "max", "bytes_per_second");
    double med = ln_gb_lookup(r, n, name, "median", "bytes_per_second");
    double cv = ln_gb_lookup(r, n, name, "cv", "bytes_per_second");
    assert_true(lo > 0 && lo <= med && med <= hi);
    assert_true(cv >= 0 && isfinite(cv));
    /* min and max are those of the repetitions */
    double rlo = INFINITY, rhi = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].aggregate[0]) continue;
        double v = r[i].counters[0].value;
        assert_string_equal(r[i].counters[0].name, "bytes_per_second");
        rlo = v < rlo ? v : rlo;
        rhi = v > rhi ? v : rhi;
    }
    assert_true(rlo == lo && rhi == hi);
    free(r);
}

/* The function runs its loop exactly max_iterations times: what helper threads are told. */
static void count_iterations(ln_gb_state *st, void *ctx)
{
    int64_t *counts = ctx, n = 0;
    int64_t promised = ln_gb_max_iterations(st);
    while (ln_gb_keep_running(st)) n++;
    if (n != promised) counts[1] = 1; /* a mismatch, seen by the test */
    counts[0] += n;
    ln_gb_counter(st, "bytes_per_second", 64, LN_GB_RATE | LN_GB_ITERATION_INVARIANT);
}

/* Every repetition and every aggregate of every benchmark comes back as a struct, by name. */
static void test_every_run_and_aggregate_is_handed_back(void **state)
{
    (void)state;
    init_flags("--benchmark_repetitions=2");
    int64_t counts[2][2] = {{0}};
    const char *names[] = {"c-first", "c-second"};
    for (int b = 0; b < 2; b++) {
        ln_gb_bench *h = ln_gb_register(names[b], count_iterations, counts[b]);
        ln_gb_use_real_time(h);
        ln_gb_min_max_statistics(h);
    }
    ln_gb_result *r;
    size_t n = ln_gb_run(&r);
    const char *aggregates[] = {"mean", "median", "stddev", "cv", "min", "max"};
    assert_int_equal(n, 2 * (2 + 6));
    for (int b = 0; b < 2; b++) {
        char run_name[64];
        snprintf(run_name, sizeof run_name, "%s/real_time", names[b]);
        assert_true(counts[b][0] > 0);
        assert_int_equal(counts[b][1], 0);
        int reps = 0;
        for (size_t i = 0; i < n; i++)
            reps += !strcmp(r[i].name, run_name) && r[i].aggregate[0] == 0 && r[i].repetition >= 0;
        assert_int_equal(reps, 2);
        for (size_t a = 0; a < 6; a++) {
            const ln_gb_result *found = ln_gb_find(r, n, run_name, aggregates[a]);
            if (!found) fail_msg("no %s aggregate for %s", aggregates[a], run_name);
            double v = ln_gb_counter_value(found, "bytes_per_second");
            if (strcmp(aggregates[a], "stddev") && strcmp(aggregates[a], "cv")) assert_true(v > 0 && isfinite(v));
            else assert_true(v >= 0 && isfinite(v));
        }
    }
    free(r);
}

/* --benchmark_filter as Google Benchmark applies it: searched, "all", negation. */
static void test_filter_selects(void **state)
{
    (void)state;
    init_flags("--benchmark_filter=f32-.*/D:64");
    assert_int_equal(ln_gb_filter_selects("f32-twopass-scalar/D:64/rows:4/real_time"), 1);
    assert_int_equal(ln_gb_filter_selects("f64-twopass-scalar/D:64/rows:4/real_time"), 0);
    init_flags("--benchmark_filter=-probe");
    assert_int_equal(ln_gb_filter_selects("probe-copy/bytes:1M/real_time"), 0);
    assert_int_equal(ln_gb_filter_selects("f32-twopass-scalar/D:64/rows:4/real_time"), 1);
    init_flags("--benchmark_filter=(");
    assert_int_equal(ln_gb_filter_selects("x"), -1);
    init_flags("--benchmark_filter=all");
    assert_int_equal(ln_gb_filter_selects("x"), 1);
}

static void test_unknown_flags_stay(void **state)
{
    (void)state;
    static char prog[] = "lnbench", bad[] = "--benchmark_foo=1", badval[] = "--benchmark_min_time=0.5s",
                good[] = "--benchmark_repetitions=2";
    char *argv[] = {prog, bad, good, badval, NULL};
    int argc = 4;
    ln_gb_init(&argc, argv);
    assert_int_equal(argc, 3);
    assert_string_equal(argv[1], "--benchmark_foo=1");
    assert_string_equal(argv[2], "--benchmark_min_time=0.5s");
    assert_int_equal(ln_gb_unrecognized(argc, argv), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_is_a_positive_rate),
        cmocka_unit_test(test_repetitions_give_aggregates),
        cmocka_unit_test(test_every_run_and_aggregate_is_handed_back),
        cmocka_unit_test(test_filter_selects),
        cmocka_unit_test(test_unknown_flags_stay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
