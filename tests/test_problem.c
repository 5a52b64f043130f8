/* The shared flags of the verbs (harness/inputs/problem.h): parsed into the problem they name,
 * and a bad value refused by every verb that takes the flag with one message, naming the flag,
 * the value and what the flag takes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "problem.h"
#include "lnbench_run.h"
#include "tmpdir.h"

static const ln_problem_spec every_flag = {
    .verb = "test",
    .takes = LN_TAKES(LN_OPT_KERNELS) | LN_TAKES(LN_OPT_D) | LN_TAKES(LN_OPT_ROWS) | LN_TAKES(LN_OPT_EPS) |
             LN_TAKES(LN_OPT_DIST) | LN_TAKES(LN_OPT_SEED) | LN_TAKES(LN_OPT_THREADS),
    .D_min = 1,
    .D_max = 1 << 20,
    .D = "64",
    .rows = "2",
    .eps = "1e-5",
    .dist = "normal",
    .seed = "1",
    .threads = "1"};

/* The defaults until a flag replaces them; each list in the order given; the last of a flag
 * given twice; the problem of each index what the lists hold there. */
static void test_parsed_problem_is_the_flags(void **state)
{
    (void)state;
    ln_problem_args a;
    ln_problem_args_init(&a, &every_flag);
    assert_int_equal(a.given, 0);
    assert_int_equal(a.nD, 1);
    assert_int_equal(a.D[0], 64);
    assert_int_equal(a.seed, 1);
    assert_null(a.kernels);

    assert_int_equal(ln_problem_arg(&a, LN_OPT_D, "7,300"), 1);
    assert_int_equal(ln_problem_arg(&a, LN_OPT_D, "33,4096,5"), 1); /* the last one counts */
    assert_int_equal(ln_problem_arg(&a, LN_OPT_ROWS, "3,1"), 1);
    assert_int_equal(ln_problem_arg(&a, LN_OPT_EPS, "0,0.25"), 1);
    assert_int_equal(ln_problem_arg(&a, LN_OPT_DIST, "uniform,offset:1e3"), 1);
    assert_int_equal(ln_problem_arg(&a, LN_OPT_SEED, "9223372036854775807"), 1);
    assert_int_equal(ln_problem_arg(&a, LN_OPT_KERNELS, "f32-*"), 1);
    assert_int_equal(ln_problem_arg(&a, 'x', "1"), 0); /* not a shared flag: the verb's own */
    assert_int_equal(a.given, every_flag.takes & ~LN_TAKES(LN_OPT_THREADS));

    assert_int_equal(a.nD, 3);
    assert_int_equal(a.D[0], 33), assert_int_equal(a.D[1], 4096), assert_int_equal(a.D[2], 5);
    assert_int_equal(a.nrows, 2);
    assert_int_equal(a.neps, 2);
    assert_int_equal(a.ndists, 2);
    assert_string_equal(a.kernels, "f32-*");

    ln_cli_op = LN_OP_RMSNORM;
    ln_problem p = ln_problem_at(&a, LN_BF16, 1, 0, 1, 1, 0);
    ln_cli_op = 0;
    assert_int_equal(p.op, LN_OP_RMSNORM);
    assert_int_equal(p.dtype, LN_BF16);
    assert_int_equal(p.D, 4096);
    assert_int_equal(p.rows, 3);
    assert_true(p.eps == 0.25);
    assert_int_equal(p.dist.kind, LN_DIST_OFFSET);
    assert_true(p.dist.param == 1e3);
    assert_string_equal(p.dist.spec, "offset:1e3");
    assert_true(p.seed == (uint64_t)INT64_MAX);
    assert_int_equal(p.threads, 1);
    p = ln_problem_at(&a, LN_F32, 2, 1, 0, 0, 0);
    assert_int_equal(p.D, 5);
    assert_int_equal(p.rows, 1);
    assert_true(p.eps == 0);
    assert_int_equal(p.dist.kind, LN_DIST_UNIFORM);
    ln_problem_args_free(&a);

    /* a verb that takes no --rows: one row */
    ln_problem_spec no_rows = every_flag;
    no_rows.takes &= ~LN_TAKES(LN_OPT_ROWS);
    ln_problem_args_init(&a, &no_rows);
    assert_int_equal(ln_problem_at(&a, LN_F32, 0, 0, 0, 0, 0).rows, 1);
    ln_problem_args_free(&a);
}

/* The verbs and the shared flags each takes (beside --op, which main takes). */
static const struct {
    const char *verb;
    const char *takes;
} verbs[] = {{"accuracy", "kernels D rows eps dist seed"},
             {"bench", "kernels D rows eps dist seed threads"},
             {"hunt", "kernels D eps seed"},
             {"tune", "kernels D threads"}};

static const char *const flags[] = {"D", "rows", "eps", "seed", "threads", "dist", "kernels"};

/* A verb's one line of stderr for args (exit status 2 asserted). */
static const char *refusal(const char *verb, const char *args)
{
    int st = run("%s %s --out %s", verb, args, test_path("never"));
    if (st != 2) fail_msg("%s %s: exit status %d, expected 2: %s", verb, args, st, run_output);
    if (access(test_path("never"), F_OK) == 0) fail_msg("%s %s: wrote its output", verb, args);
    return run_output;
}

static int takes(size_t v, const char *flag)
{
    const char *t = verbs[v].takes;
    size_t n = strlen(flag);
    for (const char *p = strstr(t, flag); p; p = strstr(p + 1, flag))
        if ((p == t || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

/* Each bad value of each flag: every verb that takes the flag says "lnbench: --FLAG: 'VALUE' is
 * not ..." and, where the allowed range is the house's (all but --D), the very same line. */
static void test_bad_values_one_message_in_every_verb(void **state)
{
    (void)state;
    char cpus_plus_one[32];
    snprintf(cpus_plus_one, sizeof cpus_plus_one, "%ld", sysconf(_SC_NPROCESSORS_ONLN) + 1);
    const struct {
        const char *flag, *value, *says, *only; /* only: the one verb whose range it is beyond */
    } bad[] = {
        {"D", "0", "is not a whole number in [", NULL},
        {"D", "12x", "is not a whole number in [", NULL},
        {"D", "70000", "is not a whole number in [2, 65535]", "hunt"},
        {"rows", "0", "is not a whole number in [1, 1099511627776]", NULL},
        {"rows", "-3", "is not a whole number in [1, 1099511627776]", NULL},
        {"eps", "-1", "is not a finite number >= 0", NULL},
        {"eps", "inf", "is not a finite number >= 0", NULL},
        {"eps", "1e-5x", "is not a finite number >= 0", NULL},
        {"seed", "-1", "is not a whole number in [0, 9223372036854775807]", NULL},
        {"seed", "9223372036854775808", "is not a whole number in [0, 9223372036854775807]", NULL},
        {"threads", "0", "is not a whole number in [1, ", NULL},
        {"threads", cpus_plus_one, "is not a whole number in [1, ", NULL},
    };
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        char args[128], want[160], first[1024] = "";
        if (!strcmp(bad[b].flag, "seed")) snprintf(args, sizeof args, "--seed %s", bad[b].value);
        else /* a good value first */
            snprintf(args, sizeof args, "--%s %s,%s", bad[b].flag, strcmp(bad[b].flag, "threads") ? "64" : "1",
                     bad[b].value);
        snprintf(want, sizeof want, "lnbench: --%s: '%s' %s", bad[b].flag, bad[b].value, bad[b].says);
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            if (!takes(v, bad[b].flag) || (bad[b].only && strcmp(bad[b].only, verbs[v].verb))) continue;
            const char *out = refusal(verbs[v].verb, args);
            if (strncmp(out, want, strlen(want)) != 0)
                fail_msg("%s %s: '%s', expected '%s...'", verbs[v].verb, args, out, want);
            if (strcmp(bad[b].flag, "D") == 0) continue; /* its range is the verb's */
            if (!*first) snprintf(first, sizeof first, "%s", out);
            else if (strcmp(first, out) != 0)
                fail_msg("%s %s says '%s'; another verb said '%s'", verbs[v].verb, args, out, first);
        }
    }
}

/* Lists: an empty item (--seed takes one number), and a distribution or kernel that does not exist, named alike by every
 * verb that takes the flag; a flag a verb does not take is refused naming the flag and verb. */
static void test_lists_and_foreign_flags(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
        char args[128], first[1024] = "";
        snprintf(args, sizeof args, "--%s %s", flags[f], !strcmp(flags[f], "dist") ? "normal,,const" : "1,,2");
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            const char *out = refusal(verbs[v].verb, args);
            char want[128];
            if (takes(v, flags[f])) {
                snprintf(want, sizeof want, "lnbench: --%s: '%s' %s", flags[f], strchr(args, ' ') + 1,
                         strcmp(flags[f], "seed") ? "has an empty item" : "is not a whole number"); /* one seed */
                if (!*first) snprintf(first, sizeof first, "%s", out);
                if (strcmp(first, out) != 0)
                    fail_msg("%s %s: '%s', another verb: '%s'", verbs[v].verb, args, out, first);
            } else {
                snprintf(want, sizeof want, "lnbench: %s: --%s is not a flag of %s", verbs[v].verb, flags[f],
                         verbs[v].verb);
            }
            if (strncmp(out, want, strlen(want)) != 0)
                fail_msg("%s %s: '%s', expected '%s'", verbs[v].verb, args, out, want);
        }
    }
    const char *named[][3] = {{"dist", "--dist gausian", "lnbench: --dist: unknown distribution 'gausian'"},
                              {"kernels", "--kernels f32-zzzzzzzzzzzz-scalar",
                               "lnbench: --kernels: no kernel matches 'f32-zzzzzzzzzzzz-scalar'"}};
    for (size_t i = 0; i < 2; i++)
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            if (!takes(v, named[i][0])) continue;
            const char *out = refusal(verbs[v].verb, named[i][1]);
            if (strncmp(out, named[i][2], strlen(named[i][2])) != 0)
                fail_msg("%s %s: '%s', expected '%s'", verbs[v].verb, named[i][1], out, named[i][2]);
        }
}

/* Every verb's --help prints the same line for each shared flag it takes. */
static void test_help_prints_the_shared_lines(void **state)
{
    (void)state;
    char seed_line[256] = "";
    for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
        int st = run("%s --help", verbs[v].verb);
        if (st != 0) fail_msg("%s --help: exit status %d: %s", verbs[v].verb, st, run_output);
        for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
            char flag[32];
            snprintf(flag, sizeof flag, "\n  --%s ", flags[f]);
            if ((strstr(run_output, flag) != NULL) != takes(v, flags[f]))
                fail_msg("%s --help: --%s %s", verbs[v].verb, flags[f], takes(v, flags[f]) ? "missing" : "listed");
        }
        if (!strstr(run_output, "\n  --op OP ")) fail_msg("%s --help does not list --op", verbs[v].verb);
        const char *s = strstr(run_output, "\n  --seed N ");
        if (!s) continue;
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(s + 1, "\n"), s + 1);
        if (!strstr(line, "[0, 2^63 - 1]"))
            fail_msg("%s --help: --seed line without its range: %s", verbs[v].verb, line);
        if (!*seed_line) snprintf(seed_line, sizeof seed_line, "%s", line);
        else if (strcmp(seed_line, line))
            fail_msg("%s --help: '%s', another verb '%s'", verbs[v].verb, line, seed_line);
    }
}

/* What the flags said is what accuracy measured: its CSV's columns. */
static void test_accuracy_runs_the_parsed_problem(void **state)
{
    (void)state;
    const char *csv = test_path("p.csv");
    int st = run("accuracy --quiet --op rmsnorm --kernels f32-rmsnorm-naive-scalar --dist uniform --D 17 --rows 3 "
                 "--eps 0.25 --seed 9 --out %s",
                 csv);
    if (st != 0) fail_msg("accuracy: exit %d: %s", st, run_output);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char header[2048], row[4096];
    assert_non_null(fgets(header, sizeof header, f));
    assert_non_null(fgets(row, sizeof row, f));
    assert_null(fgets(row + 2048, 16, f)); /* one kernel, one case */
    fclose(f);
    assert_int_equal(strncmp(row, "f32-rmsnorm-naive-scalar,f32,uniform,17,3,0.25,9,", 49), 0);
    assert_non_null(strstr(row, ",rmsnorm,"));
}

/* $LNBENCH (make test sets it), then the temporary folder the runs write into. */
static int setup(void **state)
{
    lnbench = getenv("LNBENCH") ? getenv("LNBENCH") : "./lnbench";
    return test_dir_create(state);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parsed_problem_is_the_flags),
    cmocka_unit_test(test_bad_values_one_message_in_every_verb),
    cmocka_unit_test(test_lists_and_foreign_flags),
    cmocka_unit_test(test_help_prints_the_shared_lines),
    cmocka_unit_test(test_accuracy_runs_the_parsed_problem),
};

int main(void) { return cmocka_run_group_tests(tests, setup, test_dir_remove); }
