/* Merging the shards of a split run, through the binary ($LNBENCH): `lnbench merge` (and
 * `report --out`, `compare --base/--new`) over the three shards of an accuracy run gives the
 * unsharded run's rows in its order and the same report; a case described differently twice,
 * a missing shard, timing from another CPU model are refused with exit status 2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lnbench_run.h"
#include "sh.h"
#include "tmpdir.h"

static const char accuracy_args[] =
    "accuracy --quiet --kernels f32-twopass-scalar,f16-f32acc-twopass-scalar,f64-twopass-scalar "
    "--dist normal,offset:1e4 --D 64,100 --eps 1e-5,0 --rows 2";

/* A CSV's text less its last column (accuracy.csv's ref_seconds, a timing of the run). */
static char *without_last_column(const char *path)
{
    char *text = slurp_file(path, NULL);
    assert_non_null(text);
    char *w = text;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n'), *comma = NULL;
        if (!end) end = line + strlen(line);
        for (char *p = line; p < end; p++)
            if (*p == ',') comma = p;
        size_t keep = (size_t)((comma ? comma : end) - line);
        memmove(w, line, keep);
        w += keep, *w++ = '\n';
        line = *end ? end + 1 : end;
    }
    *w = 0;
    return text;
}

/* REPORT.md less its "Machine:" line (its dates differ between runs). */
static char *report_text(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/REPORT.md", dir);
    char *text = slurp_file(p, NULL);
    assert_non_null(text);
    char *m = strstr(text, "Machine:");
    if (m) memmove(m, strchr(m, '\n'), strlen(strchr(m, '\n')) + 1);
    return text;
}

static int setup(void **state)
{
    if (test_dir_create(state)) return -1;
    if (run("%s --out %s", accuracy_args, test_path("whole/accuracy.csv"))) return -1;
    for (int k = 1; k <= 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "shard%d/accuracy.csv", k);
        if (run("%s --shard %d/3 --out %s", accuracy_args, k, test_path(name))) return -1;
    }
    return 0;
}

/* The merge of the three shards is the unsharded file row for row, and its report is the
 * unsharded run's report. */
static void test_merged_shards_are_the_whole_run(void **state)
{
    (void)state;
    char *meta = slurp_file(test_path("shard2/accuracy.csv.meta.json"), NULL);
    assert_non_null(strstr(meta, "\"shard\": \"2/3\""));
    free(meta);
    assert_int_equal(run("merge --out %s %s %s %s", test_path("merged"), test_path("shard1"), test_path("shard2"),
                         test_path("shard3")),
                     0);
    char *whole = without_last_column(test_path("whole/accuracy.csv")),
         *merged = without_last_column(test_path("merged/accuracy.csv"));
    size_t lines = 0;
    for (char *p = whole; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 25); /* the header, 3 kernels x 2 dists x 2 D x 2 eps */
    assert_string_equal(whole, merged);
    free(merged);
    /* the report over the shards, merged by report itself, is the unsharded run's */
    assert_int_equal(run("report %s", test_path("whole")), 0);
    assert_int_equal(run("report --out %s %s %s %s", test_path("reported"), test_path("shard3/accuracy.csv"),
                         test_path("shard1"), test_path("shard2")),
                     0);
    char *a = report_text(test_path("whole")), *b = report_text(test_path("reported"));
    assert_non_null(strstr(a, "f16-f32acc-twopass-scalar"));
    assert_string_equal(a, b);
    free(a), free(b);
    /* a file given twice is kept once */
    const char *d = test_dir;
    assert_int_equal(run("merge --out %s/twice %s/whole %s/shard1 %s/shard2 %s/shard3", d, d, d, d, d), 0);
    merged = without_last_column(test_path("twice/accuracy.csv"));
    assert_string_equal(whole, merged);
    free(whole), free(merged);
}

static void test_missing_shard_is_named(void **state)
{
    (void)state;
    assert_int_equal(run("merge --out %s %s %s", test_path("partial"), test_path("shard1"), test_path("shard3")), 2);
    assert_non_null(strstr(run_output, "shard 2 of 3 missing"));
    assert_int_equal(
        run("merge --allow-missing --out %s %s %s", test_path("partial"), test_path("shard1"), test_path("shard3")), 0);
    char *meta = slurp_file(test_path("partial/accuracy.csv.meta.json"), NULL);
    assert_non_null(strstr(meta, "\"shards_missing\": \"2\""));
    free(meta);
    assert_int_equal(
        run("report --out %s %s %s", test_path("partial-report"), test_path("shard1"), test_path("shard2")), 2);
    assert_non_null(strstr(run_output, "shard 3 of 3 missing"));
    /* a shard run where fewer kernels were selected (another ISA): f64 on two thirds only */
    assert_int_equal(sh("grep -v f64-twopass %s > %s && cp %s.meta.json %s.meta.json", test_path("shard2/accuracy.csv"),
                        test_path("fewer.csv"), test_path("shard2/accuracy.csv"), test_path("fewer.csv")),
                     0);
    assert_int_equal(run("merge --out %s %s %s %s", test_path("fewer"), test_path("shard1"), test_path("fewer.csv"),
                         test_path("shard3")),
                     2);
    assert_non_null(strstr(run_output, "the same --kernels"));
}

/* A case whose rows differ between two files: exit 2, naming both files and the column. */
static void test_different_rows_of_one_case_are_refused(void **state)
{
    (void)state;
    assert_int_equal(sh("mkdir -p %s && sed '3s/,pass,/,fail,/' %s > %s", test_path("edited"),
                        test_path("shard2/accuracy.csv"), test_path("edited/accuracy-2.csv")),
                     0);
    assert_int_equal(
        run("merge --out %s %s %s", test_path("bad"), test_path("whole"), test_path("edited/accuracy-2.csv")), 2);
    assert_non_null(strstr(run_output, "describe one case differently"));
    assert_non_null(strstr(run_output, "verdict is pass in one, fail in the other"));
    assert_int_equal(run("merge --out %s %s", test_path("bad"), test_path("nothing-here")), 2);
    assert_int_equal(run("merge %s", test_path("whole")), 2);
    assert_non_null(strstr(run_output, "--out"));
    assert_int_equal(run("report %s %s", test_path("shard1"), test_path("shard2")), 2);
    assert_non_null(strstr(run_output, "--out"));
}

/* bench.csv: parts of one machine merge (the fixture's rows split in two come back whole);
 * the same parts from another CPU model are refused. */
static void test_timing_from_another_cpu_is_refused(void **state)
{
    (void)state;
    const char *fx = "tests/fixtures/bench.csv";
    assert_int_equal(sh("cd %s && mkdir -p b1 b2 b3", test_dir), 0);
    assert_int_equal(sh("head -n 4 %s > %s", fx, test_path("b1/bench.csv")), 0);
    assert_int_equal(sh("(head -n 1 %s; tail -n +5 %s) > %s", fx, fx, test_path("b2/bench.csv")), 0);
    assert_int_equal(sh("cp %s %s; cp %s.meta.json %s; cp %s.meta.json %s", test_path("b2/bench.csv"),
                        test_path("b3/bench.csv"), fx, test_path("b1/bench.csv.meta.json"), fx,
                        test_path("b2/bench.csv.meta.json")),
                     0);
    assert_int_equal(sh("sed 's/\"cpu_model\": \"[^\"]*\"/\"cpu_model\": \"Other CPU\"/' %s.meta.json > %s", fx,
                        test_path("b3/bench.csv.meta.json")),
                     0);
    char *other = slurp_file(test_path("b3/bench.csv.meta.json"), NULL);
    assert_non_null(strstr(other, "\"cpu_model\": \"Other CPU\""));
    free(other);
    assert_int_equal(run("merge --out %s %s %s", test_path("bm"), test_path("b1"), test_path("b2")), 0);
    char *merged = slurp_file(test_path("bm/bench.csv"), NULL), *fixture = slurp_file("tests/fixtures/bench.csv", NULL);
    assert_string_equal(merged, fixture);
    free(merged), free(fixture);
    assert_int_equal(run("merge --out %s %s %s", test_path("bm2"), test_path("b1"), test_path("b3")), 2);
    assert_non_null(strstr(run_output, "timings from different machines"));
    /* one benchmark timed twice with different results: gbps (column 12) of the first kernel row */
    assert_int_equal(sh("awk -F, -v OFS=, 'NR == 4 { $12 = $12 * 1.1 } 1' %s > %s", fx, test_path("b1/bench.csv")), 0);
    assert_int_equal(run("merge --out %s %s %s", test_path("bm4"), test_path("b1"), test_path("bm")), 2);
    assert_non_null(strstr(run_output, "pooled by lnbench compare"));
    /* a probe timed by two runs (make bench-ops times the probes beside each op): both kept */
    assert_int_equal(sh("awk -F, -v OFS=, 'NR == 2 { $12 = $12 * 1.1 } 1' %s > %s", fx, test_path("b1/bench.csv")), 0);
    assert_int_equal(run("merge --out %s %s %s", test_path("bm5"), test_path("b1"), test_path("bm")), 0);
    assert_int_equal(sh("test $(grep -c '^probe-copy,f32,262144,' %s) = 2", test_path("bm5/bench.csv")), 0);
}

/* compare with several folders on a side pools their repetitions, refuses another CPU's. */
static void test_compare_pools_one_machine(void **state)
{
    (void)state;
    const char *f = "tests/fixtures/compare";
    assert_int_equal(run("compare --out %s --base %s/base --base %s/same --new %s/slow", test_path("c.csv"), f, f, f),
                     1);
    assert_non_null(strstr(run_output, "4 slower, 0 faster, 0 inconclusive, 2 same"));
    char *csv = slurp_file(test_path("c.csv"), NULL);
    assert_non_null(strstr(csv, "f32-twopass-avx512,f32-twopass-avx512/D:768/rows:341,cache,12,6,"));
    free(csv);
    assert_int_equal(
        run("compare --out %s --base %s/base --base %s/other-cpu --new %s/slow", test_path("c.csv"), f, f, f), 2);
    assert_non_null(strstr(run_output, "not pooled"));
    /* the accuracy beside the runs: the shards merged, compared with the whole run */
    assert_int_equal(sh("for d in whole shard1 shard2 shard3; do cp %s/base/bench.json %s/$d/; done", f, test_dir), 0);
    const char *d = test_dir;
    assert_int_equal(
        run("compare --out %s/c.csv --base %s/whole --new %s/shard1 --new %s/shard2 --new %s/shard3", d, d, d, d, d),
        0);
    assert_non_null(strstr(run_output, "no change in max_ulp (beyond 1%), non-finite counts or verdicts over 24"));
}

/* hunt.csv: per kernel and case the row with the largest ratio of the shards. */
static void test_hunt_keeps_the_best_row(void **state)
{
    (void)state;
    static const char header[] =
        "kernel,dtype,D,eps,seed,max_norm,bound,kappa,ratio,builtin_ratio,builtin_ratio_dist,gain,max_ulp,"
        "builtin_max_ulp,builtin_ulp_dist,verdict,ulp_row_verdict,seconds,evaluations,ratio_found_s,ulp_found_s,"
        "shard,repro,repro_ulp";
    assert_int_equal(
        sh("cd %s && printf '%%s\\n' '%s' 'k,f32,64,1e-05,1,1,4,1,0.25,0.1,normal,2.5,1,1,normal,pass,pass,"
           "1,10,0,0,1/2,r,r' > hunt-1.csv && "
           "printf '%%s\\n' '%s' 'k,f32,64,1e-05,1,2,4,1,0.5,0.1,normal,5,1,1,normal,pass,pass,1,10,0,0,"
           "2/2,r,r' > hunt-2.csv",
           test_dir, header, header),
        0);
    assert_int_equal(run("merge --out %s %s %s", test_path("hm"), test_path("hunt-1.csv"), test_path("hunt-2.csv")), 0);
    char *csv = slurp_file(test_path("hm/hunt.csv"), NULL);
    assert_non_null(strstr(csv, ",0.5,0.1,"));
    assert_null(strstr(csv, ",0.25,0.1,"));
    free(csv);
    assert_int_equal(run("merge --out %s %s", test_path("hm"), test_path("hunt-1.csv")), 2);
    assert_non_null(strstr(run_output, "shard 2 of 2 missing"));
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) {
        fprintf(stderr, "test_shards: set LNBENCH to the lnbench binary (make test does)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_shards_are_the_whole_run),
        cmocka_unit_test(test_missing_shard_is_named),
        cmocka_unit_test(test_different_rows_of_one_case_are_refused),
        cmocka_unit_test(test_timing_from_another_cpu_is_refused),
        cmocka_unit_test(test_compare_pools_one_machine),
        cmocka_unit_test(test_hunt_keeps_the_best_row),
    };
    return cmocka_run_group_tests(tests, setup, test_dir_remove);
}
