/* lnbench tune and the tuning files (docs/tune.md), on the test kernels of
 * tests/fixtures/plugin_tune.c ($LNBENCH_PLUGIN_DIR/tests/plugin-tune.so): a setting that changes
 * the output bits is refused and never timed; the search finds the planted best setting; a tuning
 * file reads back as written; bench --tuning runs each case with its entry's parameters (the
 * params column) and refuses a bad file with exit status 2. $LNBENCH is the binary (make test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "lnbench_run.h"
#include "plugin.h"
#include "results.h"
#include "table.h"
#include "tmpdir.h"
#include "tuning.h"

static char plugin[512];

/* The entry of kernel at D in a tuning file (exactly one), read back. */
static ln_tuning_entry entry_of(const char *path, const char *kernel, size_t D)
{
    ln_tuning t;
    char err[512];
    if (ln_tuning_read(path, &t, err, sizeof err) != 0) fail_msg("%s", err);
    const ln_tuning_entry *e = NULL;
    for (size_t i = 0; i < t.n; i++)
        if (!strcmp(t.e[i].kernel, kernel) && t.e[i].D == D) e = &t.e[i];
    if (!e) fail_msg("%s has no entry for %s at D %zu", path, kernel, D);
    ln_tuning_entry out = *e;
    ln_tuning_free(&t);
    return out;
}

static void test_output_changing_setting_refused(void **state)
{
    (void)state;
    const char *out = test_path("bits.json");
    int rc = run("tune --plugin %s --kernels f32-tunebits-scalar --D 256,1024 --bytes 64K --seconds 3 --out %s", plugin,
                 out);
    if (rc != 1) fail_msg("tune exited %d, not 1, on a kernel whose tunable changes the output: %s", rc, run_output);
    if (!strstr(run_output, "REFUSED f32-tunebits-scalar with nudge=1") || !strstr(run_output, "output bits differ"))
        fail_msg("no loud refusal of nudge=1: %s", run_output);
    ln_tuning_entry e = entry_of(out, "f32-tunebits-scalar", 256);
    assert_int_equal(e.refused, 1);
    assert_int_equal(e.candidates, 0); /* never timed */
    assert_int_equal(e.value[0], 0);   /* the defaults stay */
    assert_int_equal(e.best[0], 0);
    assert_false(e.significant);
    assert_no_temp_files();
    /* the D ranges split at the geometric mean of 256 and 1024 */
    assert_int_equal(e.D_min, 1);
    assert_int_equal(e.D_max, 512);
    e = entry_of(out, "f32-tunebits-scalar", 1024);
    assert_int_equal(e.D_min, 513);
    assert_int_equal(e.D_max, 0);
}

/* A budget spent before the last searches: the file holds those finished, says it is not complete,
 * and the run says how many were left out. */
static void test_budget_cut_keeps_finished(void **state)
{
    (void)state;
    const char *out = test_path("cut.json");
    run("tune --plugin %s --kernels f32-tunebits-scalar --D 256,1024,4096 --bytes 64K --seconds 0.001 --out %s", plugin,
        out);
    if (!strstr(run_output, "the budget ran out: 2 searches left out"))
        fail_msg("no word of the searches left out: %s", run_output);
    ln_tuning t;
    char err[512];
    if (ln_tuning_read(out, &t, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(t.n, 1);
    assert_int_equal(t.e[0].D, 256);
    assert_false(t.complete);
    double first_used = t.seconds_used;
    ln_tuning_free(&t);
    assert_no_temp_files();
    /* a second run adding another kernel to the file: its header sums both runs' budgets and
     * times, and stays incomplete, since the first run's cases are still missing */
    run("tune --plugin %s --kernels f32-tuneplant-scalar --D 256 --bytes 64K --seconds 0.5 --out %s", plugin, out);
    if (ln_tuning_read(out, &t, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(t.n, 2);
    assert_true(fabs(t.seconds_budget - 0.501) < 1e-9);
    assert_true(t.seconds_used > first_used);
    assert_false(t.complete);
    ln_tuning_free(&t);
}

/* The defaults do ~40 times the work of spin=5, unroll=4: coordinate descent must walk there and
 * the final comparison must find it significantly faster, whatever the machine's noise. */
static void test_search_finds_planted_best(void **state)
{
    (void)state;
    const char *out = test_path("plant.json");
    int rc =
        run("tune --plugin %s --kernels f32-tuneplant-scalar --D 1024 --bytes 64K --seconds 5 --out %s", plugin, out);
    if (rc != 0) fail_msg("tune exited %d: %s", rc, run_output);
    assert_non_null(strstr(run_output, "spin=5;unroll=4"));
    {
        size_t D = 1024;
        ln_tuning_entry e = entry_of(out, "f32-tuneplant-scalar", D);
        assert_string_equal(e.name[0], "spin");
        assert_string_equal(e.name[1], "unroll");
        if (e.value[0] != 5 || e.value[1] != 4 || !e.significant)
            fail_msg("D %zu: chose spin=%d unroll=%d (significant %d, gain %g, p %g): not the planted best", D,
                     e.value[0], e.value[1], e.significant, e.gain, e.p_value);
        assert_string_equal(e.search, "coordinate");
        assert_true(e.gain > 1.0); /* at least twice the defaults' rate: the work differs 40-fold */
        assert_true(e.p_value < 0.05);
        assert_int_equal(e.refused, 0);
        assert_string_equal(e.regime, "cache");
        assert_int_equal(e.threads, 1);
        assert_true(e.ntimed >= 10); /* the first pass at least: 7 spins, 3 unrolls */
    }
}

static ln_tuning_entry sample_entry(const char *kernel, size_t D, size_t D_min, size_t D_max, int spin, int unroll)
{
    ln_tuning_entry e = {.op = LN_OP_LAYERNORM,
                         .threads = 1,
                         .D = D,
                         .D_min = D_min,
                         .D_max = D_max,
                         .bytes = 65536,
                         .nparams = 2,
                         .gbps = 1.5,
                         .gbps_default = 0.5,
                         .gain = 2.0,
                         .p_value = 0.00108,
                         .repetitions = 10,
                         .significant = 1,
                         .candidates = 19,
                         .seconds = 2.5};
    snprintf(e.kernel, sizeof e.kernel, "%s", kernel);
    snprintf(e.regime, sizeof e.regime, "cache");
    snprintf(e.search, sizeof e.search, "coordinate");
    snprintf(e.name[0], sizeof e.name[0], "spin");
    snprintf(e.name[1], sizeof e.name[1], "unroll");
    e.value[0] = e.best[0] = spin, e.value[1] = e.best[1] = unroll;
    e.def[0] = 0, e.def[1] = 1;
    return e;
}

static void test_file_round_trip(void **state)
{
    (void)state;
    ln_tuning t = {.seconds_budget = 60, .seconds_used = 59.5, .complete = 1};
    ln_tuning_machine(&t);
    snprintf(t.date, sizeof t.date, "2026-12-03T10:00:00Z");
    snprintf(t.git_commit, sizeof t.git_commit, "abc123");
    ln_tuning_entry first = sample_entry("f32-tuneplant-scalar", 256, 1, 512, 5, 4);
    first.ntimed = 2;
    first.timed[0] = (ln_tuning_timed){{5, 1}, 2.5};
    first.timed[1] = (ln_tuning_timed){{5, 4}, 14.25};
    ln_tuning_add(&t, &first);
    ln_tuning_entry kept = sample_entry("f32-tuneplant-scalar", 1024, 513, 0, 3, 2);
    kept.significant = 0, kept.value[0] = 0, kept.value[1] = 1, kept.gain = NAN; /* NaN goes as null */
    snprintf(kept.regime, sizeof kept.regime, "memory");
    kept.op = LN_OP_RMSNORM;
    ln_tuning_add(&t, &kept);
    const char *path = test_path("round.json");
    ln_tuning_write(path, &t);

    ln_tuning r;
    char err[512];
    if (ln_tuning_read(path, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_string_equal(r.cpu_model, t.cpu_model);
    assert_string_equal(r.isa_cap, t.isa_cap);
    assert_string_equal(r.machine_id, t.machine_id);
    assert_string_equal(r.date, t.date);
    assert_string_equal(r.git_commit, "abc123");
    assert_true(r.complete);
    assert_true(fabs(r.seconds_used - 59.5) < 1e-9);
    assert_int_equal(r.n, 2);
    for (size_t i = 0; i < 2; i++) {
        const ln_tuning_entry *a = &t.e[i], *b = &r.e[i];
        assert_string_equal(a->kernel, b->kernel);
        assert_int_equal(a->op, b->op);
        assert_string_equal(a->regime, b->regime);
        assert_int_equal(a->threads, b->threads);
        assert_int_equal(a->D, b->D);
        assert_int_equal(a->D_min, b->D_min);
        assert_int_equal(a->D_max, b->D_max);
        assert_int_equal(a->bytes, b->bytes);
        assert_int_equal(a->nparams, b->nparams);
        for (int j = 0; j < a->nparams; j++) {
            assert_string_equal(a->name[j], b->name[j]);
            assert_int_equal(a->value[j], b->value[j]);
            assert_int_equal(a->def[j], b->def[j]);
            assert_int_equal(a->best[j], b->best[j]);
        }
        assert_int_equal(a->significant, b->significant);
        assert_int_equal(a->repetitions, b->repetitions);
        assert_int_equal(a->candidates, b->candidates);
        assert_true(fabs(a->p_value - b->p_value) <= 1e-6 * a->p_value);
        assert_true(isnan(a->gain) ? isnan(b->gain) : fabs(a->gain - b->gain) < 1e-6);
        assert_string_equal(a->search, b->search);
        assert_int_equal(a->ntimed, b->ntimed);
        for (int j = 0; j < a->ntimed; j++) {
            assert_memory_equal(a->timed[j].v, b->timed[j].v, a->nparams * sizeof(int));
            assert_true(fabs(a->timed[j].vs_default - b->timed[j].vs_default) < 1e-6 * a->timed[j].vs_default);
        }
    }
    /* lookups by D range, regime, op and threads */
    assert_ptr_equal(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_LAYERNORM, "cache", 1, 512), &r.e[0]);
    assert_ptr_equal(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_LAYERNORM, "cache", 1, 1), &r.e[0]);
    assert_null(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_LAYERNORM, "cache", 1, 513));
    assert_null(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_LAYERNORM, "memory", 1, 256));
    assert_null(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_LAYERNORM, "cache", 2, 256));
    assert_ptr_equal(ln_tuning_find(&r, "f32-tuneplant-scalar", LN_OP_RMSNORM, "memory", 1, 1 << 20), &r.e[1]);
    const char *why;
    assert_true(ln_tuning_for_this_machine(&r, &why));
    ln_tuning_free(&t), ln_tuning_free(&r);
}

/* Values go to a kernel in its tunables' order, whatever the file's; a tunable the entry lacks
 * keeps its default; an unknown name or a value not allowed is an error naming it. */
static void test_params_mapping_and_checks(void **state)
{
    (void)state;
    static const int a_values[] = {1, 2, 4}, b_values[] = {0, 64, 128};
    ln_tunable tun[] = {{"alpha", "", 2, a_values, 3}, {"beta", "", 64, b_values, 3}};
    ln_kernel k = {.name = "f32-fake-scalar", .dtype = LN_F32, .tunables = tun, .n_tunables = 2};
    ln_tuning_entry e = {.nparams = 1, .value = {128}};
    snprintf(e.name[0], sizeof e.name[0], "beta");
    int out[2];
    char err[256], buf[128];
    assert_int_equal(ln_tuning_params(&e, &k, out, err, sizeof err), 0);
    assert_int_equal(out[0], 2); /* alpha: its default */
    assert_int_equal(out[1], 128);
    assert_string_equal(ln_params_format(&k, out, buf, sizeof buf), "alpha=2;beta=128");
    assert_string_equal(ln_params_format(&k, NULL, buf, sizeof buf), "-");
    e.value[0] = 100;
    assert_int_equal(ln_tuning_params(&e, &k, out, err, sizeof err), -1);
    assert_non_null(strstr(err, "beta=100"));
    snprintf(e.name[0], sizeof e.name[0], "gamma");
    assert_int_equal(ln_tuning_params(&e, &k, out, err, sizeof err), -1);
    assert_non_null(strstr(err, "'gamma'"));

    assert_null(ln_tunables_check(&k));
    tun[1].def = 65;
    assert_non_null(strstr(ln_tunables_check(&k), "default 65"));
    tun[1].def = 64, tun[1].name = "alpha";
    assert_non_null(strstr(ln_tunables_check(&k), "twice"));
    static const int unsorted[] = {4, 2};
    tun[1] = (ln_tunable){"beta", "", 4, unsorted, 2};
    assert_non_null(strstr(ln_tunables_check(&k), "ascending"));
}

/* In process: the output hash tells the defaults from a setting that moves one output by one ulp,
 * and not from one that changes only the speed. */
static void test_output_hash(void **state)
{
    (void)state;
    ln_plugin_load(plugin);
    const ln_kernel *plant = NULL, *bits = NULL;
    for (size_t i = 0; i < ln_kernel_count(); i++) {
        if (!strcmp(ln_kernel_at(i)->name, "f32-tuneplant-scalar")) plant = ln_kernel_at(i);
        if (!strcmp(ln_kernel_at(i)->name, "f32-tunebits-scalar")) bits = ln_kernel_at(i);
    }
    assert_non_null(plant), assert_non_null(bits);
    ln_dist dist;
    ln_dist_parse("normal", &dist);
    ln_bench_pool *pool = ln_bench_pool_create();
    static const int spin_unroll[] = {5, 4}, nudge[] = {1}, no_nudge[] = {0};
    for (int threads = 1; threads <= 2; threads++) {
        ln_bench_case c = {.what = LN_BENCH_KERNEL,
                           .label = "x",
                           .k = plant,
                           .dtype = LN_F32,
                           .D = 300,
                           .rows = 7,
                           .xbytes = 7 * 300 * 4,
                           .size = 7 * 300 * 4,
                           .threads = threads,
                           .dist = dist,
                           .eps = 1e-5,
                           .seed = 1};
        uint64_t h0 = ln_bench_output_hash(pool, &c);
        c.params = spin_unroll;
        assert_true(ln_bench_output_hash(pool, &c) == h0);
        c.k = bits, c.params = NULL;
        uint64_t b0 = ln_bench_output_hash(pool, &c);
        assert_true(b0 == h0); /* the same arithmetic */
        c.params = no_nudge;
        assert_true(ln_bench_output_hash(pool, &c) == b0);
        c.params = nudge;
        assert_true(ln_bench_output_hash(pool, &c) != b0);
    }
    ln_bench_pool_free(pool);
    ln_dist_free(&dist);
}

/* Every kernel this CPU runs that has tunables (the SIMD kernels), each tunable set to each of its
 * values, the others at their defaults: the output bits (y, mean and rstd; dx, dgamma, dbeta) are
 * the defaults', at a D below and above the usual thresholds and odd for the tails. The streaming
 * thresholds (in bytes) are left to tune's own check at the sizes it times. */
static void test_builtin_tunables_keep_output_bits(void **state)
{
    (void)state;
    static const size_t Ds[] = {300, 4099, 16411};
    ln_dist dist;
    ln_dist_parse("normal", &dist);
    ln_bench_pool *pool = ln_bench_pool_create();
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_kernels + ln_num_op_kernels; i++) { /* the built-in ones, not plugins' */
        const ln_kernel *k = ln_kernel_at(i);
        if (!k->n_tunables || !ln_kernel_available(k)) continue;
        const char *bad = ln_tunables_check(k);
        if (bad) fail_msg("%s: %s", k->name, bad);
        for (size_t d = 0; d < sizeof Ds / sizeof Ds[0]; d++) {
            size_t esize = ln_fmt(k->dtype)->size;
            ln_bench_case c = {.what = LN_BENCH_KERNEL,
                               .label = k->name,
                               .k = k,
                               .dtype = k->dtype,
                               .D = Ds[d],
                               .rows = 5,
                               .xbytes = 5 * Ds[d] * esize,
                               .size = 5 * Ds[d] * esize,
                               .threads = 1,
                               .dist = dist,
                               .eps = 1e-5,
                               .seed = 2};
            uint64_t h0 = ln_bench_output_hash(pool, &c);
            int params[LN_TUNING_MAXP];
            for (size_t j = 0; j < k->n_tunables; j++)
                for (size_t v = 0; v < k->tunables[j].n_values; v++) {
                    for (size_t q = 0; q < k->n_tunables; q++) params[q] = k->tunables[q].def;
                    params[j] = k->tunables[j].values[v];
                    c.params = params;
                    if (ln_bench_output_hash(pool, &c) != h0)
                        fail_msg("%s at D %zu: %s=%d changes the output bits", k->name, Ds[d], k->tunables[j].name,
                                 params[j]);
                    checked++;
                }
        }
    }
    printf("checked %zu settings of the built-in kernels' tunables\n", checked);
    ln_bench_pool_free(pool);
    ln_dist_free(&dist);
}

/* A tuning of this machine applied by bench: the cases inside an entry's D range and regime run
 * with its values (params column), the others at the defaults ("-"); the metadata, bench.json and
 * the report name the tuning. */
static void test_bench_applies_tuning(void **state)
{
    (void)state;
    ln_tuning t = {.complete = 1};
    ln_tuning_machine(&t);
    snprintf(t.date, sizeof t.date, "2026-12-03T10:00:00Z");
    ln_tuning_entry e = sample_entry("f32-tuneplant-scalar", 256, 1, 512, 5, 4);
    ln_tuning_add(&t, &e);
    const char *tuning = test_path("mine.json");
    ln_tuning_write(tuning, &t);
    ln_tuning_free(&t);

    const char *csv = test_path("run/bench.csv");
    int rc = run("bench --plugin %s --kernels f32-tuneplant-scalar,f32-tunebits-scalar --D 256,1024 --bytes 64K "
                 "--tuning %s --quiet --out %s --benchmark_repetitions=1 --benchmark_min_time=0.001",
                 plugin, tuning, csv);
    if (rc != 0) fail_msg("bench --tuning exited %d: %s", rc, run_output);
    ln_table tb;
    assert_true(ln_table_read(csv, &tb));
    int ck = ln_table_col(&tb, "kernel"), cd = ln_table_col(&tb, "D"), cp = ln_table_col(&tb, "params");
    assert_true(cp >= 0);
    int seen = 0;
    for (size_t i = 0; i < tb.rows; i++) {
        const char *k = ln_table_cell(&tb, i, ck), *p = ln_table_cell(&tb, i, cp);
        int tuned = !strcmp(k, "f32-tuneplant-scalar") && !strcmp(ln_table_cell(&tb, i, cd), "256");
        if (strcmp(p, tuned ? "spin=5;unroll=4" : "-"))
            fail_msg("%s D %s: params '%s'", k, ln_table_cell(&tb, i, cd), p);
        seen += tuned;
    }
    assert_int_equal(seen, 1);
    ln_table_free(&tb);
    char note[512];
    ln_meta_value(test_path("run/bench.csv.meta.json"), "tuning", note, sizeof note);
    if (!strstr(note, tuning) || !strstr(note, "1 of 4 kernel cases")) fail_msg("metadata tuning: '%s'", note);
    assert_int_equal(run("report %s", test_path("run")), 0);
    FILE *f = fopen(test_path("run/REPORT.md"), "r");
    assert_non_null(f);
    static char md[1 << 20];
    md[fread(md, 1, sizeof md - 1, f)] = 0;
    fclose(f);
    if (!strstr(md, "## Tuning") || !strstr(md, "| f32-tuneplant-scalar | cache | 256 | spin=5;unroll=4 |"))
        fail_msg("the report has no Tuning section with the entry");
    /* compare: one line when only one side used a tuning, not a failure */
    const char *plain = test_path("plain/bench.csv");
    assert_int_equal(run("bench --plugin %s --kernels f32-tuneplant-scalar --D 256 --bytes 64K --quiet --out %s "
                         "--benchmark_repetitions=1 --benchmark_min_time=0.001",
                         plugin, plain),
                     0);
    run("compare %s %s", test_path("plain"), test_path("run"));
    if (!strstr(run_output, "note: the runs used different tunings (base: none; new: "))
        fail_msg("compare does not note the tunings: %s", run_output);
}

/* Two machines' files: the defaults lose 23% on A (1 / 1.3), spin=2 loses 24% on B (0.8 / 1.05),
 * spin=3 at most 15% (1.1 / 1.3 on A): the setting that loses least everywhere is suggested. */
static void test_defaults_from_several_machines(void **state)
{
    (void)state;
    static const struct {
        const char *cpu;
        double r2, r3;
    } machine[] = {{"CPU A", 1.3, 1.1}, {"CPU B", 0.8, 1.05}};
    char files[2][320];
    for (int m = 0; m < 2; m++) {
        ln_tuning t = {.complete = 1};
        ln_tuning_machine(&t);
        snprintf(t.cpu_model, sizeof t.cpu_model, "%s", machine[m].cpu);
        snprintf(t.machine_id, sizeof t.machine_id, "%s", machine[m].cpu);
        ln_tuning_entry e = sample_entry("f32-tuneplant-scalar", 4096, 1, 0, 0, 1);
        e.significant = 0, e.gain = 0;
        e.ntimed = 2;
        e.timed[0] = (ln_tuning_timed){{2, 1}, machine[m].r2};
        e.timed[1] = (ln_tuning_timed){{3, 1}, machine[m].r3};
        ln_tuning_add(&t, &e);
        snprintf(files[m], sizeof files[m], "%s", test_path(m ? "b.json" : "a.json"));
        ln_tuning_write(files[m], &t);
        ln_tuning_free(&t);
    }
    int rc = run("tune --defaults-from %s,%s", files[0], files[1]);
    if (rc != 0) fail_msg("exit %d: %s", rc, run_output);
    assert_non_null(strstr(run_output, "### CPU A"));
    assert_non_null(strstr(run_output, "### CPU B"));
    if (!strstr(run_output, "| f32-tuneplant-scalar | layernorm | 2 | spin=0;unroll=1 | 23.1% (CPU A, cache, D 4096) | "
                            "spin=3;unroll=1 | 15.4% (CPU A, cache, D 4096) |"))
        fail_msg("not the least-loss defaults: %s", run_output);
    assert_int_equal(run("tune --defaults-from %s,%s", files[0], test_path("missing.json")), 2);
}

static void test_bad_tuning_file_exits_2(void **state)
{
    (void)state;
    char good[4096];
    ln_tuning t = {.complete = 1};
    ln_tuning_machine(&t);
    ln_tuning_entry e = sample_entry("f32-tuneplant-scalar", 256, 1, 0, 5, 4);
    ln_tuning_add(&t, &e);
    char path[320];
    snprintf(path, sizeof path, "%s", test_path("bad.json")); /* test_path's buffers rotate */
    ln_tuning_write(path, &t);
    ln_tuning_free(&t);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    good[fread(good, 1, sizeof good - 1, f)] = 0;
    fclose(f);
    static const struct {
        const char *from, *to, *says;
    } bad[] = {
        {"\"lnbench_tuning\"", "\"lnbench_tunings\"", "not an lnbench tuning file"},
        {"\"entries\"", "\"entries\" :: ", "bad.json"},
        {"\"lnbench_tuning\": 1", "\"lnbench_tuning\": 7", "format 7"},
        {"\"unroll\": 4", "\"unroll\": 3", "unroll=3 is not one of its allowed values"},
        {"\"spin\"", "\"twirl\"", "f32-tuneplant-scalar has no tunable 'twirl'"}, /* a stale file */
        {"\"spin\": 5", "\"spin\": 5, \"twirl\": 1", "\"defaults\" names other tunables"},
        {"\"regime\": \"cache\"", "\"regime\": \"L2\"", "'L2' is not cache, mixed or memory"},
        {"\"D_min\": 1", "\"D_min\": 300", "D 256 lies outside"},
        {"\"threads\": 1", "\"threads\": \"one\"", "\"threads\" is missing or not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[8192] = "";
        const char *rest = good, *at;
        assert_non_null(strstr(good, bad[i].from));
        for (; (at = strstr(rest, bad[i].from)); rest = at + strlen(bad[i].from)) /* every occurrence */
            snprintf(text + strlen(text), sizeof text - strlen(text), "%.*s%s", (int)(at - rest), rest, bad[i].to);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s", rest);
        f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
        int rc = run("bench --plugin %s --kernels f32-tuneplant-scalar --D 256 --bytes 64K --tuning %s --quiet "
                     "--out %s --benchmark_repetitions=1 --benchmark_min_time=0.001",
                     plugin, path, test_path("never/bench.csv"));
        if (rc != 2 || !strstr(run_output, bad[i].says))
            fail_msg("case %zu: exit %d, wanted 2 saying '%s': %s", i, rc, bad[i].says, run_output);
    }
    assert_int_equal(run("bench --kernels f32-twopass-scalar --D 256 --bytes 64K --tuning %s --quiet --out %s",
                         test_path("missing.json"), test_path("never/bench.csv")),
                     2);
    assert_false(ln_path_exists(test_path("never/bench.csv")));
    /* tune's own bad input */
    assert_int_equal(run("tune --seconds 0"), 2);
    assert_int_equal(run("tune --kernels f32-twopass-scalar --seconds 1 --out %s", test_path("x.json")), 2);
    assert_non_null(strstr(run_output, "none of the kernels selected has tunables"));
    assert_int_equal(run("tune --plugin %s --bytes 1M,2M --seconds 1 --out %s", plugin, test_path("x.json")), 2);
    assert_int_equal(run("tune --D 256,256 --seconds 1"), 2);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    const char *dir = getenv("LNBENCH_PLUGIN_DIR");
    if (!lnbench || !dir) {
        fprintf(stderr, "test_tune: set LNBENCH and LNBENCH_PLUGIN_DIR (make test does)\n");
        return 1;
    }
    snprintf(plugin, sizeof plugin, "%s/tests/plugin-tune.so", dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_changing_setting_refused),   cmocka_unit_test(test_search_finds_planted_best),
        cmocka_unit_test(test_budget_cut_keeps_finished),         cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_params_mapping_and_checks),         cmocka_unit_test(test_output_hash),
        cmocka_unit_test(test_builtin_tunables_keep_output_bits), cmocka_unit_test(test_bench_applies_tuning),
        cmocka_unit_test(test_defaults_from_several_machines),    cmocka_unit_test(test_bad_tuning_file_exits_2),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
