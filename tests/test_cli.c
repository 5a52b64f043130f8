/* The lnbench binary ($LNBENCH) as a user meets it: every bad input is exit status 2 with a
 * message naming the bad value; a good run writes the documented CSV, atomically. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu.h"
#include "npy.h"
#include "lnbench_run.h"
#include "tmpdir.h"

static void expect_usage_error(const char *args, const char *named)
{
    int status = run("%s", args);
    if (status != 2) fail_msg("'%s': exit status %d, expected 2; output: %s", args, status, run_output);
    if (!strstr(run_output, named)) fail_msg("'%s': message does not name '%s': %s", args, named, run_output);
}

static void write_bytes(const char *p, const void *data, size_t n)
{
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(data, 1, n, f);
    fclose(f);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char args[1024];
    expect_usage_error("frobnicate", "frobnicate");
    expect_usage_error("accuracy --kernels f32-nosuch-scalar", "f32-nosuch-scalar");
    expect_usage_error("accuracy --dist gaussian", "gaussian");
    expect_usage_error("accuracy --dist normal,,const", "normal,,const");
    expect_usage_error("accuracy --dist offset", "offset");
    expect_usage_error("accuracy --D 0", "--D: '0' is not a whole number in [1, ");
    expect_usage_error("accuracy --D -5", "-5");
    expect_usage_error("accuracy --D 768,abc", "abc");
    expect_usage_error("accuracy --rows 0", "--rows: '0' is not a whole number in [1, ");
    expect_usage_error("accuracy --eps -1", "-1");
    expect_usage_error("accuracy --eps abc", "abc");
    expect_usage_error("accuracy --eps inf", "inf");
    expect_usage_error("accuracy --rows 1000000000000 --D 1000000", "--rows");
    expect_usage_error("accuracy --no-such-flag", "--no-such-flag");
    expect_usage_error("accuracy --out /proc/x/y.csv", "/proc/x/y.csv");
    expect_usage_error("accuracy --op layernorm-bwd --saved-stats kernel:f32-twopas-scalar", "f32-twopass-scalar");
    expect_usage_error("accuracy --op rmsnorm-bwd --saved-stats kernel:f32-twopass-scalar", "rmsnorm");
    expect_usage_error(
        "accuracy --op layernorm-bwd --kernels f16-lnbwd-f32acc-scalar --saved-stats kernel:f32-twopass-scalar", "f16");

    snprintf(args, sizeof args, "accuracy --dist file:%s", test_path("missing.npy"));
    expect_usage_error(args, test_path("missing.npy"));
    write_bytes(test_path("garbage.npy"), "this is not an array at all", 27);
    snprintf(args, sizeof args, "accuracy --dist file:%s", test_path("garbage.npy"));
    expect_usage_error(args, test_path("garbage.npy"));

    /* --gamma: wrong dtype, wrong shape, wrong length */
    const char ints[] = "\x93NUMPY\x01\x00\x3c\x00{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }  \n"
                        "\x01\x00\x00\x00\x02\x00\x00\x00";
    write_bytes(test_path("ints.npy"), ints, sizeof ints - 1);
    snprintf(args, sizeof args, "accuracy --D 2 --gamma %s", test_path("ints.npy"));
    expect_usage_error(args, test_path("ints.npy"));
    double v[6] = {1, 1, 1, 1, 1, 1};
    ln_npy_write(test_path("matrix.npy"), LN_F64, 2, 2, 3, v);
    snprintf(args, sizeof args, "accuracy --D 3 --gamma %s", test_path("matrix.npy"));
    expect_usage_error(args, test_path("matrix.npy"));
    ln_npy_write(test_path("five.npy"), LN_F64, 1, 1, 5, v);
    snprintf(args, sizeof args, "accuracy --D 8 --beta %s", test_path("five.npy"));
    expect_usage_error(args, test_path("five.npy"));
    snprintf(args, sizeof args, "accuracy --D 5 --no-affine --gamma %s", test_path("five.npy"));
    expect_usage_error(args, "--no-affine");
    /* refused before any work: no output file */
    snprintf(args, sizeof args, "accuracy --D 8 --eps -1 --out %s", test_path("never.csv"));
    expect_usage_error(args, "-1");
    assert_int_equal(access(test_path("never.csv"), F_OK), -1);
    assert_int_equal(access(test_path("never.csv.meta.json"), F_OK), -1);
}

static void test_help_lists_every_flag(void **state)
{
    (void)state;
    assert_int_equal(run("accuracy --help"), 0);
    const char *flags[] = {"--kernels", "--dist", "--D",   "--rows", "--eps",   "--seed", "--no-affine",
                           "--gamma",   "--beta", "--out", "--dump", "--quiet", "--help", "default"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strstr(run_output, flags[i])) fail_msg("--help does not mention %s", flags[i]);
}

/* `lnbench list` under an LNBENCH_ISA cap (none, then the first line of the ISA table: AVX2 or
 * NEON): the "here" column of every kernel, the oneDNN peer's included (its own dispatch is capped
 * too: 2.6 has no bf16 layer normalization below AVX-512). */
static void test_list_follows_isa_cap(void **state)
{
    (void)state;
    const char *first = ln_num_isas ? ln_isas[0].name : "scalar";
    const char *caps[] = {"scalar", first};
    for (size_t c = 0; c < 2; c++) {
        setenv("LNBENCH_ISA", caps[c], 1);
        int status = run("list");
        unsetenv("LNBENCH_ISA");
        if (status != 0) fail_msg("LNBENCH_ISA=%s lnbench list: exit %d: %s", caps[c], status, run_output);
        size_t rows = 0;
        for (char *line = strtok(run_output, "\n"); line; line = strtok(NULL, "\n")) {
            char name[64], dtype[16], alg[32], isa[32], here[8];
            if (sscanf(line, "%63s %15s %31s %31s %7s", name, dtype, alg, isa, here) != 5) continue;
            if (strcmp(here, "yes") != 0 && strcmp(here, "no") != 0) continue; /* the header */
            rows++;
            int yes = strcmp(here, "yes") == 0;
            int simd = strcmp(isa, "scalar") != 0 && strncmp(name, "ext-", 4) != 0;
            if (strcmp(name, "ext-onednn-bf16") == 0 || (simd && (c == 0 || strcmp(isa, first) != 0)))
                if (yes) fail_msg("LNBENCH_ISA=%s: %s is listed as available", caps[c], name);
            if ((strcmp(isa, "scalar") == 0 || strcmp(name, "ext-onednn-f32") == 0) && !yes)
                fail_msg("LNBENCH_ISA=%s: %s is listed as unavailable", caps[c], name);
        }
        assert_true(rows > 10);
    }
}

static size_t count_lines(const char *p, char *first, size_t len)
{
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (n == 0) snprintf(first, len, "%s", line);
        n++;
    }
    fclose(f);
    return n;
}

static const char header[] =
    "kernel,dtype,dist,D,rows,eps,seed,max_ulp,mean_ulp,cr_frac,max_norm,nonfinite,worst_row,worst_col,"
    "worst_x,worst_y,worst_y_exact,mean_relerr,rstd_relerr,kappa_max,bound,verdict,domain,input,op,"
    "dgamma_max_ulp,dgamma_max_norm,dbeta_max_ulp,dbeta_max_norm,dgamma_kappa,dbeta_kappa,saved_stats,"
    "dx_saved_max_ulp,dx_saved_max_norm,rows_judged,rows_set_aside,failed_on,ref_seconds\n";

static void test_good_run(void **state)
{
    (void)state;
    char args[1024], first[4096];
    snprintf(args, sizeof args,
             "accuracy --kernels f32-twopass-scalar,f64-twopass-scalar --dist normal,const --D 8,33 --rows 2 "
             "--eps 1e-5,0 --out %s --dump %s --quiet",
             test_path("acc.csv"), test_path("dump"));
    int status = run("%s", args);
    if (status != 0) fail_msg("exit %d: %s", status, run_output);
    /* 2 kernels x 2 dists x 2 D x 2 eps */
    assert_int_equal(count_lines(test_path("acc.csv"), first, sizeof first), 1 + 16);
    assert_string_equal(first, header);
    assert_int_equal(access(test_path("acc.csv.meta.json"), R_OK), 0);
    assert_int_equal(access(test_path("dump/f32_normal_D33_rows2_eps1e-05/y_f32-twopass-scalar.npy"), R_OK), 0);
    assert_int_equal(access(test_path("dump/f64_const_D8_rows2_eps0/y_ref.npy"), R_OK), 0);
    assert_no_temp_files();
}

/* Ctrl-C: the completed rows are written, the count is reported, the status is 130. */
static void test_interrupt_keeps_completed_rows(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1); /* the table */
        close(fds[0]);
        execl(lnbench, lnbench, "accuracy", "--kernels", "f32-twopass-scalar", "--dist", "normal", "--D", "16384",
              "--rows", "4", "--eps", "1e-1,1e-2,1e-3,1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10,1e-11,1e-12", "--out",
              test_path("int.csv"), (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    /* The first progress line on stderr comes after the handler is installed: interrupt then,
     * not after a fixed sleep that a loaded machine may outlast or not reach. */
    size_t got = 0;
    for (ssize_t n; got < sizeof run_output - 1 && !memchr(run_output, '\n', got) &&
                    (n = read(fds[0], run_output + got, sizeof run_output - 1 - got)) > 0;)
        got += (size_t)n;
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    for (ssize_t n;
         got < sizeof run_output - 1 && (n = read(fds[0], run_output + got, sizeof run_output - 1 - got)) > 0;)
        got += (size_t)n;
    run_output[got] = 0;
    close(fds[0]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 130)
        fail_msg("status %#x (want exit 130), stderr: %s", status, run_output);
    size_t done = 0, total = 0;
    const char *msg = strstr(run_output, "interrupted: ");
    if (!msg || sscanf(msg, "interrupted: %zu of %zu", &done, &total) != 2) fail_msg("no count: %s", run_output);
    assert_int_equal(total, 12);
    assert_true(done < total);
    char first[4096];
    assert_int_equal(count_lines(test_path("int.csv"), first, sizeof first), 1 + done);
    assert_string_equal(first, header);
    assert_no_temp_files();
}

static int setup(void **state)
{
    (void)state;
    lnbench = getenv("LNBENCH");
    if (!lnbench || access(lnbench, X_OK) != 0) {
        fprintf(stderr, "test_cli: set LNBENCH to the lnbench binary (make test does)\n");
        return -1;
    }
    return test_dir_create(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_help_lists_every_flag),
        cmocka_unit_test(test_good_run),
        cmocka_unit_test(test_list_follows_isa_cap),
        cmocka_unit_test(test_interrupt_keeps_completed_rows),
    };
    return cmocka_run_group_tests(tests, setup, test_dir_remove);
}
