/* lnbench bench end to end on a tiny case (the binary is $LNBENCH): the CSV's header and rows,
 * its numbers consistent with each other and with the shape asked for, the JSON and metadata
 * beside it; bad flags exit 2 with a message naming them. No timing is asserted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_rows.h"
#include "tmpdir.h"

static const char *lnbench;

/* Runs lnbench with args (shell words), stderr kept in test_dir/err; returns the exit status. */
static int run(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>%s", lnbench, args, test_path("out"), test_path("err"));
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *name)
{
    FILE *f = fopen(test_path(name), "r");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int exists(const char *name) { return access(test_path(name), F_OK) == 0; }

#define MAX_ROWS 16
#define MAX_COLS 24
typedef struct {
    int nrows, ncols;
    char header[MAX_COLS][32];
    char cell[MAX_ROWS][MAX_COLS][64];
} csv;

static void parse_csv(const char *text, csv *t)
{
    memset(t, 0, sizeof *t);
    int r = -1, c = 0;
    size_t k = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ',' || *p == '\n') {
            if (r >= 0) assert_true(c < MAX_COLS);
            c++, k = 0;
            if (*p == '\n') {
                if (r < 0) t->ncols = c;
                else assert_int_equal(c, t->ncols); /* every row has every column */
                r++, c = 0;
                assert_true(r < MAX_ROWS);
            }
            continue;
        }
        char *dst = r < 0 ? t->header[c] : t->cell[r][c];
        size_t cap = r < 0 ? sizeof t->header[0] : sizeof t->cell[0][0];
        assert_true(k + 1 < cap);
        dst[k++] = *p;
    }
    t->nrows = r;
}

static int col(const csv *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->header[c], name)) return c;
    fail_msg("column %s missing", name);
    return -1;
}

static int row_of(const csv *t, const char *kernel)
{
    int k = col(t, "kernel");
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(t->cell[r][k], kernel)) return r;
    fail_msg("no row for %s", kernel);
    return -1;
}

static double num(const csv *t, int r, const char *name) { return strtod(t->cell[r][col(t, name)], NULL); }

/* Runs `lnbench bench FLAGS --out NAME` (in the test folder), which must succeed, and reads
 * the CSV it writes into t. */
static void bench_ok(const char *flags, const char *name, csv *t)
{
    char args[1024];
    snprintf(args, sizeof args, "bench %s --out %s", flags, test_path(name));
    assert_int_equal(run(args), 0);
    parse_csv(slurp(name), t);
}

static void test_tiny_run_writes_consistent_csv(void **state)
{
    (void)state;
    csv t;
    bench_ok("--kernels f32-twopass-scalar,f64-twopass-scalar --D 64 --bytes 64K "
             "--benchmark_min_time=0.01 --benchmark_repetitions=1",
             "b.csv", &t);
    /* the two kernels and the two probes of the one size */
    assert_int_equal(t.nrows, 4);
    const char *needed[] = {"kernel",   "dtype",    "D",  "rows",        "bytes",  "ns_per_row",  "gbps",
                            "gbps_min", "gbps_max", "cv", "bw_fraction", "regime", "repetitions", "gbps_cpu"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) col(&t, needed[i]);

    int copy = row_of(&t, "probe-copy"), stream = row_of(&t, "probe-stream");
    assert_true(num(&t, copy, "gbps") > 0 && num(&t, stream, "gbps") > 0);
    assert_int_equal((int)num(&t, copy, "bytes"), 65536);
    /* the limit is the faster probe: its fraction 1, the other's its rate over it */
    double limit = fmax(num(&t, copy, "gbps"), num(&t, stream, "gbps"));
    assert_true(fabs(num(&t, copy, "bw_fraction") - num(&t, copy, "gbps") / limit) < 1e-3);
    assert_true(fabs(num(&t, stream, "bw_fraction") - num(&t, stream, "gbps") / limit) < 1e-3);
    assert_true(fmax(num(&t, copy, "bw_fraction"), num(&t, stream, "bw_fraction")) == 1);
    const char *kernels[] = {"f32-twopass-scalar", "f64-twopass-scalar"};
    const int elem[] = {4, 8};
    for (int i = 0; i < 2; i++) {
        int r = row_of(&t, kernels[i]);
        assert_string_equal(t.cell[r][col(&t, "dtype")], i ? "f64" : "f32");
        assert_int_equal((int)num(&t, r, "D"), 64);
        /* rows chosen so that x is 64 KiB at this element size */
        assert_int_equal((int)num(&t, r, "rows"), 65536 / (64 * elem[i]));
        assert_int_equal((int)num(&t, r, "bytes"), 65536);
        assert_string_equal(t.cell[r][col(&t, "regime")], "cache");
        assert_int_equal((int)num(&t, r, "repetitions"), 1);
        double gbps = num(&t, r, "gbps");
        assert_true(gbps > 0 && num(&t, r, "gbps_min") == gbps && num(&t, r, "gbps_max") == gbps);
        assert_true(num(&t, r, "gbps_cpu") > 0);
        /* gbps counts x read + y written: 2 x 64 KiB per call, i.e. per row 2 D elements */
        double ns_per_row = num(&t, r, "ns_per_row");
        assert_true(fabs(gbps * ns_per_row / (2.0 * 64 * elem[i]) - 1) < 1e-3);
        assert_true(fabs(num(&t, r, "bw_fraction") / (gbps / limit) - 1) < 1e-3);
    }
    /* Google Benchmark's JSON with the metadata in its context, and the sidecar */
    const char *json = slurp("b.json");
    assert_non_null(json);
    assert_non_null(strstr(json, "\"cpu_model\""));
    assert_non_null(strstr(json, "f32-twopass-scalar/D:64/rows:256/real_time"));
    assert_non_null(strstr(json, "probe-copy/bytes:64K/real_time"));
    assert_true(exists("b.csv.meta.json"));
    /* emulation is said, in the metadata and on stderr (make test runs a cross build's tests
     * under LNBENCH_RUN, the emulator; natively there is none) */
    const char *emulated = getenv("LNBENCH_RUN") && *getenv("LNBENCH_RUN") ? "qemu-user" : "none";
    char want[64];
    snprintf(want, sizeof want, "\"emulator\": \"%s\"", emulated);
    if (!strstr(slurp("b.csv.meta.json"), want)) fail_msg("b.csv.meta.json lacks %s", want);
    assert_int_equal(strstr(slurp("err"), "running under an emulator") != NULL, strcmp(emulated, "none") != 0);
    assert_no_temp_files();
}

/* The fused ops count each rows x D tensor in its own format: x, r read and h, y written, 2 bytes
 * an element each for an all-16-bit kernel (8 D bytes a row), fp32 r and h beside 16-bit x and y
 * for a mixed-format one (2 + 4 + 4 + 2 = 12 D); rows from x's size (2 bytes an element) alike. */
static void test_fused_bytes_per_role_format(void **state)
{
    (void)state;
    csv t;
    bench_ok("--op add-rmsnorm --kernels bf16-addrms-f32acc-scalar,bf16-addrms-f32res-scalar --D 64 --bytes 64K "
             "--benchmark_min_time=0.01 --benchmark_repetitions=1",
             "fused.csv", &t);
    const char *kernels[] = {"bf16-addrms-f32acc-scalar", "bf16-addrms-f32res-scalar"};
    const double row_bytes[] = {8.0 * 64, 12.0 * 64};
    for (int i = 0; i < 2; i++) {
        int r = row_of(&t, kernels[i]);
        assert_int_equal((int)num(&t, r, "rows"), 65536 / (64 * 2));
        double per_row = num(&t, r, "gbps") * num(&t, r, "ns_per_row");
        if (fabs(per_row / row_bytes[i] - 1) >= 1e-3)
            fail_msg("%s: %g bytes counted a row, not %g", kernels[i], per_row, row_bytes[i]);
    }
}

/* The per-column inputs each kernel is given, as affine_bytes counts them: RMSNorm's beta is
 * UNTIMED (kernels/ops.def), so by default its kernels read gamma alone and --every-input gives
 * beta too; LayerNorm reads both, the backward ops gamma. */
static void test_affine_inputs_given(void **state)
{
    (void)state;
    static const struct {
        const char *args, *kernel;
        double bytes;
    } cases[] = {
        {"--op rmsnorm --kernels f32-rmsnorm-naive-scalar", "f32-rmsnorm-naive-scalar", 64 * 4},
        {"--op rmsnorm --every-input --kernels f32-rmsnorm-naive-scalar", "f32-rmsnorm-naive-scalar", 2 * 64 * 4},
        {"--op add-rmsnorm --kernels f32-addrms-naive-scalar", "f32-addrms-naive-scalar", 64 * 4},
        {"--kernels f32-twopass-scalar", "f32-twopass-scalar", 2 * 64 * 4},
        {"--op layernorm-bwd --kernels f32-lnbwd-naive-scalar", "f32-lnbwd-naive-scalar", 64 * 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[256];
        csv t;
        snprintf(args, sizeof args, "%s --D 64 --bytes 64K --benchmark_min_time=0.01 --benchmark_repetitions=1",
                 cases[i].args);
        bench_ok(args, "affine.csv", &t);
        double got = num(&t, row_of(&t, cases[i].kernel), "affine_bytes");
        if (got != cases[i].bytes) fail_msg("%s: affine_bytes %g, not %g", cases[i].args, got, cases[i].bytes);
        assert_true(num(&t, row_of(&t, "probe-copy"), "affine_bytes") == 0);
    }
}

/* lnbench summary names the bytes each op's block counts and what it leaves out, as the rows'
 * affine_bytes say: RMSNorm's beta not given by default, given with --every-input. */
static void test_summary_says_what_was_given(void **state)
{
    (void)state;
    static const struct {
        const char *flag, *says;
    } cases[] = {
        {"", "bytes: x read + y written; not counted: gamma; beta not given"},
        {"--every-input", "bytes: x read + y written; not counted: gamma, beta\n"},
    };
    for (size_t i = 0; i < 2; i++) {
        char args[512];
        snprintf(args, sizeof args,
                 "bench --op rmsnorm %s --kernels f32-rmsnorm-naive-scalar --D 64 --bytes 64K --quiet "
                 "--benchmark_min_time=0.01 --benchmark_repetitions=1 --out %s/bench.csv",
                 cases[i].flag, test_path(i ? "given" : "untimed"));
        assert_int_equal(run(args), 0);
        snprintf(args, sizeof args, "summary %s", test_path(i ? "given" : "untimed"));
        assert_int_equal(run(args), 0);
        const char *out = slurp("out");
        if (!strstr(out, cases[i].says)) fail_msg("summary %s: no '%s' in:\n%s", cases[i].flag, cases[i].says, out);
    }
}

/* A 16-bit kernel brings the 16-bit probes (fp16 elements, the same bytes), and its
 * bw_fraction is over the faster 16-bit probe; an fp32 kernel's stays over the fp32 ones. */
static void test_16bit_probes(void **state)
{
    (void)state;
    csv t;
    bench_ok("--kernels f16-f32acc-twopass-scalar,f32-twopass-scalar --D 64 --bytes 64K "
             "--benchmark_min_time=0.01 --benchmark_repetitions=1",
             "b16.csv", &t);
    assert_int_equal(t.nrows, 6);
    int copy16 = row_of(&t, "probe-copy-16"), stream16 = row_of(&t, "probe-stream-16");
    int copy = row_of(&t, "probe-copy"), stream = row_of(&t, "probe-stream");
    double limit16 = fmax(num(&t, copy16, "gbps"), num(&t, stream16, "gbps")),
           limit = fmax(num(&t, copy, "gbps"), num(&t, stream, "gbps"));
    assert_string_equal(t.cell[copy16][col(&t, "dtype")], "f16");
    assert_int_equal((int)num(&t, copy16, "bytes"), 65536);
    assert_int_equal((int)num(&t, stream16, "D"), 65536 / 2);
    assert_true(num(&t, copy16, "gbps") > 0 && num(&t, stream16, "gbps") > 0);
    int k16 = row_of(&t, "f16-f32acc-twopass-scalar"), k32 = row_of(&t, "f32-twopass-scalar");
    assert_true(fabs(num(&t, k16, "bw_fraction") / (num(&t, k16, "gbps") / limit16) - 1) < 1e-3);
    assert_true(fabs(num(&t, k32, "bw_fraction") / (num(&t, k32, "gbps") / limit) - 1) < 1e-3);
    const char *json = slurp("b16.json");
    assert_non_null(strstr(json, "probe-stream-16/bytes:64K/real_time"));
}

/* A case predicted (from the smaller size) to exceed --max-call-seconds is skipped and named;
 * the smaller one and the probes of both sizes are kept. */
static void test_max_call_seconds_skips(void **state)
{
    (void)state;
    csv t;
    bench_ok("--kernels f32-twopass-scalar --D 64 --bytes 64K,128K --max-call-seconds 1e-9 "
             "--benchmark_min_time=0.005 --benchmark_repetitions=1",
             "skip.csv", &t);
    assert_int_equal(t.nrows, 5); /* 2 x 2 probes + the 64K kernel row */
    int r = row_of(&t, "f32-twopass-scalar");
    assert_int_equal((int)num(&t, r, "bytes"), 65536);
    assert_non_null(strstr(slurp("out"), "skipped f32-twopass-scalar/D:64/rows:512"));
}

/* bw_fraction is over the limit of results/README.md: the faster of the copy and stream probes
 * of the row's element size, at its size and thread count. Made-up rates where the stream probe
 * wins (as in memory) expose a fraction over probe-copy alone, and probes of another size or
 * thread count must not enter. */
static void test_bw_fraction_is_over_the_limit(void **state)
{
    (void)state;
    static ln_dist normal = {.kind = LN_DIST_NORMAL, .spec = "normal"};
    const ln_kernel *k32 = ln_kernel_find("f32-twopass-scalar"), *k16 = ln_kernel_find("f16-f32acc-twopass-scalar");
    assert_non_null(k32);
    assert_non_null(k16);
    size_t M = 64u << 20;
    ln_bench_case c[] = {
        {.what = LN_BENCH_PROBE_COPY, .label = "probe-copy", .dtype = LN_F32, .size = M, .threads = 1},
        {.what = LN_BENCH_PROBE_STREAM, .label = "probe-stream", .dtype = LN_F32, .size = M, .threads = 1},
        {.what = LN_BENCH_PROBE_COPY_16, .label = "probe-copy-16", .dtype = LN_F16, .size = M, .threads = 1},
        {.what = LN_BENCH_PROBE_STREAM_16, .label = "probe-stream-16", .dtype = LN_F16, .size = M, .threads = 1},
        {.what = LN_BENCH_PROBE_STREAM, .label = "probe-stream", .dtype = LN_F32, .size = M, .threads = 2},
        {.what = LN_BENCH_PROBE_STREAM, .label = "probe-stream", .dtype = LN_F32, .size = M / 2, .threads = 1},
        {.what = LN_BENCH_KERNEL,
         .label = "f32-twopass-scalar",
         .k = k32,
         .dtype = LN_F32,
         .size = M,
         .threads = 1,
         .dist = normal},
        {.what = LN_BENCH_KERNEL,
         .label = "f16-f32acc-twopass-scalar",
         .k = k16,
         .dtype = LN_F16,
         .size = M,
         .threads = 1,
         .dist = normal},
        {.what = LN_BENCH_KERNEL,
         .label = "f32-twopass-scalar",
         .k = k32,
         .dtype = LN_F32,
         .size = M,
         .threads = 2,
         .dist = normal},
    };
    enum { N = sizeof c / sizeof *c };
    const double gbps[N] = {10, 20, 30, 15, 40, 99, 15, 12, 30};
    /* copy 10 / stream 20 -> limit 20; copy-16 30 / stream-16 15 -> 30; 2 threads: stream 40 */
    const double want[N] = {0.5, 1, 1, 0.5, 1, 1, 0.75, 0.4, 0.75};
    ln_bench_stats st[N];
    int ran[N];
    for (int i = 0; i < N; i++) st[i] = (ln_bench_stats){.gbps = gbps[i], .rows_per_second = 1, .reps = 1}, ran[i] = 1;
    ln_bench_results r = {.cases = c, .ncases = N, .stats = st, .ran = ran, .quiet = 1};
    FILE *f = fopen(test_path("made-up.csv"), "w");
    assert_non_null(f);
    assert_int_equal(ln_bench_write_rows(f, &r), N);
    fclose(f);
    csv t;
    parse_csv(slurp("made-up.csv"), &t);
    assert_int_equal(t.nrows, N);
    for (int i = 0; i < N; i++)
        if (fabs(num(&t, i, "bw_fraction") - want[i]) > 1e-9)
            fail_msg("row %d (%s): bw_fraction %s, want %g", i, c[i].label, t.cell[i][col(&t, "bw_fraction")], want[i]);
}

/* --benchmark_filter picks benchmarks by name; the probes run anyway. */
static void test_filter_keeps_probes(void **state)
{
    (void)state;
    csv t;
    bench_ok("--kernels f32-twopass-scalar,f64-twopass-scalar --D 64 --bytes 64K "
             "--benchmark_filter=f64-.*/D:64 --benchmark_min_time=0.005 --benchmark_repetitions=1",
             "filter.csv", &t);
    assert_int_equal(t.nrows, 3);
    int r = row_of(&t, "f64-twopass-scalar");
    assert_true(num(&t, r, "bw_fraction") > 0);
}

/* --threads 1,2: every case at each count, probes included; each row's bw_fraction is over
 * the faster probe of its own thread count. */
static void test_threads_list(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) skip();
    csv t;
    bench_ok("--kernels f32-twopass-scalar --D 64 --bytes 64K --threads 1,2 "
             "--benchmark_min_time=0.005 --benchmark_repetitions=1",
             "threads.csv", &t);
    assert_int_equal(t.nrows, 6);
    const char *labels[] = {"probe-copy", "probe-stream", "f32-twopass-scalar"};
    for (int threads = 1; threads <= 2; threads++)
        for (int l = 0; l < 3; l++) {
            int found = -1;
            double limit = 0;
            for (int r = 0; r < t.nrows; r++) {
                if ((int)num(&t, r, "threads") != threads) continue;
                if (!strcmp(t.cell[r][col(&t, "kernel")], labels[l])) found = r;
                if (!strncmp(t.cell[r][col(&t, "kernel")], "probe-", 6)) limit = fmax(limit, num(&t, r, "gbps"));
            }
            if (found < 0) fail_msg("no row for %s at %d threads", labels[l], threads);
            assert_true(num(&t, found, "gbps") > 0);
            assert_int_equal((int)num(&t, found, "bytes"), 65536);
            assert_true(fabs(num(&t, found, "bw_fraction") / (num(&t, found, "gbps") / limit) - 1) < 1e-3);
        }
    const char *json = slurp("threads.json");
    assert_non_null(strstr(json, "f32-twopass-scalar/D:64/rows:256/threads:2/process_time/real_time"));
    assert_non_null(strstr(json, "probe-copy/bytes:64K/threads:2/process_time/real_time"));
}

/* A filter that leaves no kernel benchmark (the probes alone) is refused before any work. */
static void test_empty_selection_exit_2(void **state)
{
    (void)state;
    char args[512];
    snprintf(args, sizeof args,
             "bench --kernels f32-twopass-scalar --D 64 --bytes 64K --benchmark_filter=f64- --out %s",
             test_path("none.csv"));
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(slurp("err"), "--benchmark_filter"));
    assert_false(exists("none.csv"));
    assert_no_temp_files();
}

static void expect_usage_error(const char *args, const char *mention)
{
    char full[512];
    snprintf(full, sizeof full, "bench --kernels f32-twopass-scalar --D 64 --bytes 64K %s --out %s", args,
             test_path("bad.csv"));
    assert_int_equal(run(full), 2);
    const char *err = slurp("err");
    if (!strstr(err, mention)) fail_msg("'%s': stderr does not mention '%s':\n%s", args, mention, err);
    assert_false(exists("bad.csv"));
}

static void test_bad_flags_exit_2(void **state)
{
    (void)state;
    expect_usage_error("--benchmark_foo=1", "--benchmark_foo");
    expect_usage_error("--benchmark_min_time=0.5s", "--benchmark_min_time"); /* 1.7.1: seconds, no suffix */
    expect_usage_error("--benchmark_format=xml", "xml");
    expect_usage_error("--bytes 12Q", "--bytes");
    expect_usage_error("--bytes 0", "--bytes");
    char too_many[64]; /* one thread more than there are CPUs */
    snprintf(too_many, sizeof too_many, "--threads 1,%ld", sysconf(_SC_NPROCESSORS_ONLN) + 1);
    expect_usage_error(too_many, "--threads");
    expect_usage_error("--threads 0", "--threads");
    expect_usage_error("--rows 4", "not both");
    expect_usage_error("--dist nosuch", "nosuch");
    assert_no_temp_files();
}

static int setup(void **state)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "./lnbench";
    return test_dir_create(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_run_writes_consistent_csv),
        cmocka_unit_test(test_max_call_seconds_skips),
        cmocka_unit_test(test_filter_keeps_probes),
        cmocka_unit_test(test_threads_list),
        cmocka_unit_test(test_16bit_probes),
        cmocka_unit_test(test_fused_bytes_per_role_format),
        cmocka_unit_test(test_affine_inputs_given),
        cmocka_unit_test(test_summary_says_what_was_given),
        cmocka_unit_test(test_bw_fraction_is_over_the_limit),
        cmocka_unit_test(test_empty_selection_exit_2),
        cmocka_unit_test(test_bad_flags_exit_2),
    };
    return cmocka_run_group_tests(tests, setup, test_dir_remove);
}
