/* Defaults that keep results: accuracy and bench run by hand never replace an existing default
 * output (make bench's results/) without --force; a refused merge writes nothing; the build
 * rebuilds what a changed flag affects. (The report naming files of different runs:
 * tests/test_answers.c.) Run from the repository root (make test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "sh.h"
#include "tmpdir.h"

static char lnbench[PATH_MAX];

static int contains(const char *path, const char *want)
{
    char *text = slurp_file(path, NULL);
    int has = text && strstr(text, want);
    free(text);
    return has;
}

/* In a folder whose results/ holds a run, the README's first example is refused, the file kept. */
static void test_default_output_kept(void **state)
{
    (void)state;
    const char *acc = "accuracy --kernels f32-twopass-scalar --dist normal --D 16 --rows 2 --quiet";
    assert_int_equal(sh("cd %s && '%s' %s >/dev/null 2>&1", test_dir, lnbench, acc), 0);
    assert_int_equal(sh("cd %s && cp results/accuracy.csv first.csv", test_dir), 0);
    assert_int_equal(sh("cd %s && '%s' accuracy --kernels f32-naive-scalar --dist normal --D 16 --rows 2 --quiet "
                        ">/dev/null 2>err",
                        test_dir, lnbench),
                     2);
    assert_true(contains(test_path("err"), "results/accuracy.csv holds an earlier run"));
    assert_true(contains(test_path("err"), "--force"));
    assert_int_equal(sh("cd %s && cmp -s results/accuracy.csv first.csv", test_dir), 0);
    /* --out elsewhere, or --force, write */
    assert_int_equal(sh("cd %s && '%s' %s --out mine.csv >/dev/null 2>&1", test_dir, lnbench, acc), 0);
    assert_int_equal(sh("cd %s && '%s' accuracy --kernels f32-naive-scalar --dist normal --D 16 --rows 2 --quiet "
                        "--force >/dev/null 2>&1",
                        test_dir, lnbench),
                     0);
    assert_true(contains(test_path("results/accuracy.csv"), "f32-naive-scalar"));
    /* bench likewise */
    const char *bench = "bench --kernels f32-twopass-scalar --D 64 --rows 4 --quiet --benchmark_min_time=0.001 "
                        "--benchmark_repetitions=1";
    assert_int_equal(sh("cd %s && '%s' %s >/dev/null 2>&1", test_dir, lnbench, bench), 0);
    assert_int_equal(sh("cd %s && '%s' %s >/dev/null 2>err", test_dir, lnbench, bench), 2);
    assert_true(contains(test_path("err"), "results/bench.csv holds an earlier run"));
    assert_int_equal(sh("cd %s && '%s' %s --force >/dev/null 2>&1", test_dir, lnbench, bench), 0);
}

/* Two folders whose bench.csv come from different CPUs: the merge is refused and writes nothing,
 * not even the accuracy.csv it could have merged. */
static void test_refused_merge_leaves_nothing(void **state)
{
    (void)state;
    assert_int_equal(
        sh("cd %s && mkdir -p m1 m2 && cp %s/tests/fixtures/accuracy.csv* %s/tests/fixtures/bench.csv* m1/ "
           "&& cp %s/tests/fixtures/bench.csv m2/ && sed 's/Platinum 8481C/Other/' "
           "%s/tests/fixtures/bench.csv.meta.json >m2/bench.csv.meta.json",
           test_dir, getenv("PWD"), getenv("PWD"), getenv("PWD"), getenv("PWD")),
        0);
    assert_int_equal(sh("cd %s && '%s' merge --out merged m1 m2 >/dev/null 2>err", test_dir, lnbench), 2);
    assert_true(contains(test_path("err"), "different machines"));
    assert_int_equal(sh("cd %s && ! [ -e merged ]", test_dir), 0);
}

/* A cap below a widest ISA with an f32-twopass kernel, and the ISA it leaves out (the note names
 * it whether or not this CPU has it). */
#if LN_ARM64
#define CAP_BELOW "neon"
#define CAPPED "fp16 sve" /* f32-twopass-sve needs both */
#else
#define CAP_BELOW "avx2"
#define CAPPED "avx512"
#endif

/* Paper cuts: a kernel of another op names the --op to add; the skipped kernels' note is one
 * line naming the missing ISA; hunt takes a list of D and tells its time left, writing one
 * hunt.csv beside its rows. */
static void test_paper_cuts(void **state)
{
    (void)state;
    assert_int_equal(sh("cd %s && '%s' accuracy --kernels f32-rmsnorm-naive-scalar --D 16 --rows 1 --out x.csv "
                        ">/dev/null 2>err",
                        test_dir, lnbench),
                     2);
    assert_true(
        contains(test_path("err"), "is a kernel of --op rmsnorm (this run's op is layernorm): add --op rmsnorm"));
    assert_int_equal(sh("cd %s && LNBENCH_ISA=%s '%s' accuracy --kernels 'f32-twopass-*' --dist normal --D 16 --rows 1 "
                        "--quiet --out x.csv >/dev/null 2>err",
                        test_dir, CAP_BELOW, lnbench),
                     0);
    assert_true(
        contains(test_path("err"), "kernel skipped: LNBENCH_ISA caps out " CAPPED " (lnbench list names them)") ||
        contains(test_path("err"), "kernels skipped: LNBENCH_ISA caps out " CAPPED));
    /* an argument error is printed alone: the note comes only once the arguments parsed */
    const char *verbs[] = {"accuracy --dist nosuch", "bench --D 0"};
    for (int v = 0; v < 2; v++) {
        assert_int_equal(sh("cd %s && LNBENCH_ISA=%s '%s' %s --kernels 'f32-twopass-*' --out y.csv >/dev/null 2>err",
                            test_dir, CAP_BELOW, lnbench, verbs[v]),
                         2);
        if (contains(test_path("err"), "skipped")) fail_msg("%s: the skip note came with the argument error", verbs[v]);
    }
    /* accuracy --rows takes a list as bench's: every --D with every --rows, bench's message */
    assert_int_equal(sh("cd %s && '%s' accuracy --kernels f32-twopass-scalar --dist normal --D 8,16 --rows 1,3 "
                        "--quiet --out rows.csv >/dev/null 2>err",
                        test_dir, lnbench),
                     0);
    assert_int_equal(sh("cd %s && [ \"$(cut -d, -f4,5 rows.csv | tail -n +2 | sort | tr '\\n' ' ')\" = "
                        "'16,1 16,3 8,1 8,3 ' ]",
                        test_dir),
                     0);
    assert_int_equal(sh("cd %s && '%s' accuracy --rows 2,x --out r2.csv >/dev/null 2>err", test_dir, lnbench), 2);
    assert_int_equal(sh("cd %s && '%s' bench --rows 2,x --out r3.csv >/dev/null 2>err2", test_dir, lnbench), 2);
    assert_int_equal(sh("cd %s && cmp -s err err2", test_dir), 0);
    assert_int_equal(sh("cd %s && '%s' hunt --kernels f32-twopass-scalar --D 8,12 --seconds 0.2 --starts 1 --out h "
                        ">/dev/null 2>err",
                        test_dir, lnbench),
                     0);
    assert_true(contains(test_path("err"), "hunt: f32-twopass-scalar at D 12 (2 of 2): about 0 s left") ||
                contains(test_path("err"), "(2 of 2): about"));
    assert_int_equal(sh("cd %s && [ $(grep -c '^f32-twopass-scalar,f32,' h/hunt.csv) = 2 ]", test_dir), 0);
}

/* A changed flag rebuilds the objects: after a build, `make -n NATIVE=1` would recompile (its
 * stamp differs), and `make -n` with the flags unchanged would not. The stamp is restored. */
static void test_build_follows_flags(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", lnbench);
    const char *build = dirname(dir); /* build/ or build-san/... */
    char stamp[PATH_MAX + 32];
    snprintf(stamp, sizeof stamp, "%s/.build-flags", build);
    if (access(stamp, R_OK)) skip();
    /* make -n still rewrites the stamps (at parse time): kept aside and put back */
    assert_int_equal(sh("cp '%s' %s/stamp && cp '%s/.meta-defs' %s/meta", stamp, test_dir, build, test_dir), 0);
    const char *san = strstr(build, "san") ? " SAN=1" : "";
    int rebuilds = sh("MAKEFLAGS= make -n BUILD=%s%s NATIVE=1 %s/lnbench 2>/dev/null | grep -q -- "
                      "'-march=native.* -c harness/base/cli.c'",
                      build, san, build);
    assert_int_equal(sh("cp %s/stamp '%s' && cp %s/meta '%s/.meta-defs'", test_dir, stamp, test_dir, build), 0);
    assert_int_equal(rebuilds, 0);
}

/* The harness's floors (Makefile HARNESS_FLOORS): an object of a floor compiles with the include
 * paths of its floor and those below, so a header of a floor above is not found. The compile
 * lines are make's own (make -n into a scratch build folder, whose stamps it may rewrite). */
static int compiles_with_flags_of(const char *object, const char *header)
{
    return sh(
        "flags=$(MAKEFLAGS= make -n BUILD='%s/b' '%s/b/%s' 2>/dev/null | grep -o -- ' -I[^ ]*' | tr -d '\\n') "
        "&& [ -n \"$flags\" ] && printf '#include \"%s\"\\n' | cc -D_GNU_SOURCE -std=c11 $flags -fsyntax-only -x c - "
        "2>/dev/null",
        test_dir, test_dir, object, header);
}

static void test_floors_see_only_below(void **state)
{
    (void)state;
    /* each header from the floor it belongs to and above; not from below */
    assert_int_equal(compiles_with_flags_of("harness/inputs/dist.o", "cli.h"), 0);          /* base */
    assert_int_equal(compiles_with_flags_of("harness/inputs/dist.o", "npy.h"), 0);          /* its own */
    assert_int_not_equal(compiles_with_flags_of("harness/inputs/dist.o", "accuracy.h"), 0); /* measure */
    assert_int_not_equal(compiles_with_flags_of("harness/base/cli.o", "dist.h"), 0);        /* inputs */
    assert_int_equal(compiles_with_flags_of("harness/report/report.o", "tuning.h"), 0);     /* tune */
    assert_int_not_equal(compiles_with_flags_of("harness/report/report.o", "hunt.h"), 0);   /* hunt */
    assert_int_not_equal(compiles_with_flags_of("harness/tune/search.o", "results.h"), 0);  /* report */
    assert_int_not_equal(compiles_with_flags_of("harness/hunt/hunt.o", "verbs.h"), 0);      /* verbs */
    assert_int_equal(compiles_with_flags_of("harness/verbs/cmd_hunt.o", "hunt.h"), 0);
}

int main(void)
{
    const char *l = getenv("LNBENCH");
    if (!l) l = "build/lnbench";
    if (!realpath(l, lnbench)) {
        fprintf(stderr, "test_safe: no lnbench at %s\n", l);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_output_kept),
        cmocka_unit_test(test_refused_merge_leaves_nothing),
        cmocka_unit_test(test_paper_cuts),
        cmocka_unit_test(test_build_follows_flags),
        cmocka_unit_test(test_floors_see_only_below),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
