/* lnbench hunt and --shard, through the binary ($LNBENCH): the search finds what random rows
 * miss (an run_output of a double-computing kernel that is not correctly rounded; a two-pass row
 * far beyond the built-in distributions' worst ratio), its files reproduce the finding through
 * `lnbench accuracy` and replay in the fuzzer's format, and N shards of a run together give
 * exactly the unsharded rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define LN_FUZZ_NO_MAIN
#include "../fuzz/fuzz_kernels.c"
#include "plugin.h"
#include "replay.h"
#include "replay_check.h"
#include "lnbench_run.h"
#include "tmpdir.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (len) *len = n;
    char *copy = malloc(n + 1);
    memcpy(copy, buf, n + 1);
    return copy;
}

/* Field `col` (0-based) of CSV line `line` (1 = first data row) of a file without quoted commas
 * before that field. */
static double csv_number(const char *path, int line, int col)
{
    char *text = read_file(path, NULL), *p = text;
    for (int l = 0; l < line && p; l++) p = strchr(p, '\n'), p = p ? p + 1 : NULL;
    assert_non_null(p);
    for (int c = 0; c < col; c++) p = strchr(p, ',') + 1;
    double v = strtod(p, NULL);
    free(text);
    return v;
}

/* hunt.csv columns (results/README.md) */
enum {
    H_MAX_NORM = 5,
    H_BOUND = 6,
    H_KAPPA = 7,
    H_RATIO = 8,
    H_BUILTIN_RATIO = 9,
    H_GAIN = 11,
    H_MAX_ULP = 12,
    H_BUILTIN_ULP = 13
};
/* accuracy.csv columns */
enum { A_MAX_ULP = 7, A_MAX_NORM = 10, A_KAPPA = 19, A_BOUND = 20 };

/* f32-accurate rounds a double once to fp32: on random rows it is correctly rounded, but hunt
 * builds a near-tie whose double misrounds, and `lnbench accuracy` on the rows it wrote (the
 * printed repro command) measures the same error with the MPFR reference. */
static void test_hunt_finds_misrounded_output(void **state)
{
    (void)state;
    const char *dir = test_path("acc");
    int st = run("hunt --kernel f32-accurate-scalar --D 64 --evals 400 --starts 1 --quiet --out %s", dir);
    if (st != 0) fail_msg("hunt exit %d: %s", st, run_output);
    char csv[512], x[512], g[512], b[512];
    snprintf(csv, sizeof csv, "%s/hunt.csv", dir);
    double ulp = csv_number(csv, 1, H_MAX_ULP), builtin = csv_number(csv, 1, H_BUILTIN_ULP);
    if (!(ulp > 0.5)) fail_msg("hunt found max_ulp %.17g, not above 0.5", ulp);
    if (!(builtin <= 0.5)) fail_msg("the built-in rows already misround (%.17g): the test shows nothing", builtin);
    snprintf(x, sizeof x, "%s/f32-accurate-scalar-D64-eps1e-05-ulp.npy", dir);
    snprintf(g, sizeof g, "%s/f32-accurate-scalar-D64-eps1e-05-gamma.npy", dir);
    snprintf(b, sizeof b, "%s/f32-accurate-scalar-D64-eps1e-05-beta.npy", dir);
    /* the row is at the run's eps or, when its search started from a built-in row scored at
     * eps 0, at 0: one of the two cases is hunt's figure */
    st = run("accuracy --quiet --kernels f32-accurate-scalar --dist file:%s --gamma %s --beta %s --eps 1e-5,0 --out "
             "%s/a.csv",
             x, g, b, dir);
    if (st != 0) fail_msg("accuracy on the found row: exit %d: %s", st, run_output);
    snprintf(csv, sizeof csv, "%s/a.csv", dir);
    assert_true(csv_number(csv, 1, A_MAX_ULP) == ulp || csv_number(csv, 2, A_MAX_ULP) == ulp);
}

/* The ratio hunt reports is the one `lnbench accuracy` judges by: on the row hunt wrote (at
 * kappa about 2^10, where the bound grows with kappa), accuracy's max_norm, kappa and bound are
 * hunt's, bit for bit, and hunt's ratio is max_norm / bound. */
static void test_hunt_ratio_uses_accuracys_bound(void **state)
{
    (void)state;
    const char *dir = test_path("bound");
    int st = run("hunt --kernel f32-twopass-scalar --D 256 --evals 1500 --starts 2 --quiet --out %s", dir);
    if (st != 0) fail_msg("hunt exit %d: %s", st, run_output);
    char csv[512], acsv[512], x[512], g[512], b[512];
    snprintf(csv, sizeof csv, "%s/hunt.csv", dir);
    snprintf(x, sizeof x, "%s/f32-twopass-scalar-D256-eps1e-05-ratio.npy", dir);
    snprintf(g, sizeof g, "%s/f32-twopass-scalar-D256-eps1e-05-gamma.npy", dir);
    snprintf(b, sizeof b, "%s/f32-twopass-scalar-D256-eps1e-05-beta.npy", dir);
    snprintf(acsv, sizeof acsv, "%s/a.csv", dir);
    st = run("accuracy --quiet --kernels f32-twopass-scalar --dist file:%s --gamma %s --beta %s --eps 1e-5 --out %s", x,
             g, b, acsv);
    if (st != 0) fail_msg("accuracy on the found row: exit %d: %s", st, run_output);
    double bound = csv_number(csv, 1, H_BOUND), max_norm = csv_number(csv, 1, H_MAX_NORM);
    if (!(csv_number(csv, 1, H_KAPPA) > 100)) fail_msg("the row is not an offset row: the test shows less");
    assert_true(csv_number(acsv, 1, A_MAX_NORM) == max_norm);
    assert_true(csv_number(acsv, 1, A_KAPPA) == csv_number(csv, 1, H_KAPPA));
    if (csv_number(acsv, 1, A_BOUND) != bound)
        fail_msg("hunt's bound %.17g, accuracy's %.17g on the same row", bound, csv_number(acsv, 1, A_BOUND));
    assert_true(csv_number(csv, 1, H_RATIO) == max_norm / bound);
}

/* lnbench hunt ARGS --quiet into the test directory `name`, which must succeed; csv gets the
 * path of its hunt.csv. */
static void run_hunt(const char *name, const char *args, char *csv, size_t len)
{
    const char *dir = test_path(name);
    int st = run("hunt %s --quiet --out %s", args, dir);
    if (st != 0) fail_msg("hunt %s: exit %d: %s", args, st, run_output);
    snprintf(csv, len, "%s/hunt.csv", dir);
}

/* The mixed-format fused kernels (16-bit x, fp32 r and h: -f32res-) are searched too, r kept on
 * x's grid and widened exactly: each passes, and accuracy on the row it reports, read back from
 * its .npy files into the fp32 r, gives hunt's max_norm and bound bit for bit (a residual given
 * to the kernel in the wrong format would give another error, or none at all). */
static void test_hunt_mixed_format_kernels(void **state)
{
    (void)state;
    static const char *const kernels[][2] = {{"add-rmsnorm", "bf16-addrms-f32res-scalar"},
                                             {"add-layernorm", "f16-addln-f32res-scalar"}};
    for (size_t i = 0; i < 2; i++) {
        const char *op = kernels[i][0], *k = kernels[i][1];
        char args[256], csv[512], base[600], acsv[700];
        snprintf(args, sizeof args, "--op %s --kernel %s --D 64 --evals 600 --starts 2", op, k);
        run_hunt(k, args, csv, sizeof csv);
        char *text = read_file(csv, NULL);
        if (!strstr(text, ",pass,")) fail_msg("hunt %s: not a pass: %s", k, text);
        free(text);
        snprintf(base, sizeof base, "%s/%s-D64-eps1e-05", test_path(k), k);
        snprintf(acsv, sizeof acsv, "%s/a.csv", test_path(k));
        int st = run("accuracy --quiet --op %s --kernels %s --dist file:%s-ratio.npy --input r=%s-ratio-r.npy "
                     "--gamma %s-gamma.npy --beta %s-beta.npy --eps 1e-5 --out %s",
                     op, k, base, base, base, base, acsv);
        if (st != 0) fail_msg("accuracy on the row hunt found for %s: exit %d: %s", k, st, run_output);
        if (csv_number(acsv, 1, A_MAX_NORM) != csv_number(csv, 1, H_MAX_NORM))
            fail_msg("%s: accuracy's max_norm %.17g, hunt's %.17g", k, csv_number(acsv, 1, A_MAX_NORM),
                     csv_number(csv, 1, H_MAX_NORM));
        assert_true(csv_number(acsv, 1, A_BOUND) == csv_number(csv, 1, H_BOUND));
        assert_true(csv_number(csv, 1, H_MAX_NORM) > 0);
    }
}

/* f32-welford-scalar: the search beats every row of every built-in distribution at the same D,
 * at the run's eps and at eps 0, by a wide factor (docs/hunt.md has the figures), and stays
 * within the bound. (Not the two-pass kernels: their worst built-in row is a const row, which
 * the search barely passes.) */
static void test_hunt_beats_builtin_rows(void **state)
{
    (void)state;
    char csv[512];
    run_hunt("welford", "--kernel f32-welford-scalar --D 256 --evals 20000 --starts 1", csv, sizeof csv);
    double gain = csv_number(csv, 1, H_GAIN), ratio = csv_number(csv, 1, H_RATIO);
    double builtin = csv_number(csv, 1, H_BUILTIN_RATIO);
    if (!(gain >= 5)) fail_msg("hunt's worst ratio %g is only %gx the built-in rows' %g", ratio, gain, builtin);
    assert_true(fabs(gain - ratio / builtin) <= 1e-12 * gain);
    assert_true(csv_number(csv, 1, H_MAX_NORM) <= csv_number(csv, 1, H_BOUND));
    char *text = read_file(csv, NULL);
    assert_non_null(strstr(text, ",pass,"));
    free(text);
}

/* f32-cascade-scalar (Welford chunks merged pairwise): the second start begins at a large mean
 * offset and the coordinate sweep polishes it, trying every element at +-2^k ulps through the
 * kernel itself. With this budget the search reaches 7.4x the built-in worst ratio at kappa 33
 * (the offset start with j = 5); without offset starts and sweeps 1.5x (docs/hunt.md). */
static void test_hunt_sweep_aligns_roundings(void **state)
{
    (void)state;
    char csv[512];
    run_hunt("sweep", "--kernel f32-cascade-scalar --D 128 --evals 12000 --starts 2", csv, sizeof csv);
    double gain = csv_number(csv, 1, H_GAIN), kappa = csv_number(csv, 1, H_KAPPA);
    if (!(gain >= 4)) fail_msg("hunt's worst ratio is only %gx the built-in rows' worst", gain);
    if (!(kappa >= 16)) fail_msg("the worst row has kappa %g, not an offset start's", kappa);
    assert_true(csv_number(csv, 1, H_MAX_NORM) <= csv_number(csv, 1, H_BOUND));
}

/* The offset start lines up the roundings of a model of the kernel's accumulators (here
 * Welford's running mean) and gives every output the same |y|: f32-welford-scalar at D = 256
 * reaches 44x the built-in worst ratio in 1500 evaluations; without the alignment 5.6x (with
 * it but without the equal |y|, 28x; docs/hunt.md). */
static void test_hunt_offset_start_aligns_chains(void **state)
{
    (void)state;
    char csv[512];
    run_hunt("chains", "--kernel f32-welford-scalar --D 256 --evals 1500 --starts 2", csv, sizeof csv);
    double gain = csv_number(csv, 1, H_GAIN);
    if (!(gain >= 20)) fail_msg("hunt's worst ratio is only %gx the built-in rows' worst", gain);
    assert_true(csv_number(csv, 1, H_MAX_NORM) <= csv_number(csv, 1, H_BOUND));
}

/* The replay file of a hunt row decodes to that row (long rows too), and make test's replay of
 * tests/regress/fuzz_kernels/ accepts it. */
static void test_replay_file_decodes_to_the_row(void **state)
{
    (void)state;
    enum { D = 768 };
    float x[D], g[D], b[D];
    for (int i = 0; i < D; i++)
        x[i] = (float)(1e4 + (i % 7) - 3 * (i % 5)), g[i] = 1.0f + (float)(i % 3) / 8, b[i] = -0.125f;
    const char *path = test_path("replay");
    ln_replay_write_row(path, LN_F32, D, x, g, b, 1e-5);
    size_t len;
    char *data = read_file(path, &len);
    fuzz_problem p;
    decode((const uint8_t *)data, len, &p);
    assert_int_equal(p.t, LN_F32);
    assert_int_equal(p.D, D);
    assert_int_equal(p.rows, 1);
    assert_true(p.eps == 1e-5);
    assert_int_equal(p.affine, 2);
    assert_false(p.in_place || p.misalign || p.stats);
    assert_memory_equal(p.x, x, sizeof x);
    assert_memory_equal(p.gamma, g, sizeof g);
    assert_memory_equal(p.beta, b, sizeof b);
    free(p.x), free(p.gamma), free(p.beta);
    char msg[1024];
    if (ln_fuzz_kernels_check((const uint8_t *)data, len, msg, sizeof msg)) fail_msg("%s", msg);
    free(data);
}

/* Lines 2.. of a CSV without its last field (ref_seconds, a timing), sorted. */
static char *rows_sorted(const char *paths)
{
    char cmd[2048], *out = malloc(1 << 20);
    snprintf(cmd, sizeof cmd, "for f in %s; do tail -n +2 \"$f\"; done | sed 's/,[^,]*$//' | LC_ALL=C sort", paths);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, (1 << 20) - 1, p);
    out[n] = 0;
    pclose(p);
    return out;
}

/* accuracy --shard K/3, K = 1..3: their rows together are the unsharded run's rows, bit for bit
 * (every number is printed with 17 digits), none twice. */
static void test_accuracy_shards_make_the_whole(void **state)
{
    (void)state;
    const char *args = "accuracy --quiet --kernels f32-twopass-scalar,f16-f32acc-twopass-scalar,f64-twopass-scalar "
                       "--dist normal,offset:1e4 --D 64,100 --eps 1e-5,0 --rows 2";
    assert_int_equal(run("%s --out %s", args, test_path("all.csv")), 0);
    char paths[1024] = "";
    for (int k = 1; k <= 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "shard%d.csv", k);
        assert_int_equal(run("%s --shard %d/3 --out %s", args, k, test_path(name)), 0);
        strcat(paths, test_path(name));
        strcat(paths, " ");
    }
    char *whole = rows_sorted(test_path("all.csv")), *merged = rows_sorted(paths);
    size_t lines = 0;
    for (char *p = whole; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 24); /* 3 kernels x 2 dists x 2 D x 2 eps */
    assert_string_equal(whole, merged);
    assert_no_temp_files();
    free(whole), free(merged);
    assert_int_equal(run("accuracy --shard 4/3"), 2);
    assert_non_null(strstr(run_output, "--shard"));
    assert_int_equal(run("accuracy --shard 1of3"), 2);
    assert_non_null(strstr(run_output, "1of3"));
}

/* hunt --shard K/3 with an evaluation budget: the three shards run the starts of the unsharded
 * search, and the best of them is its result, row bits included. */
static void test_hunt_shards_make_the_whole(void **state)
{
    (void)state;
    const char *args = "hunt --kernel f32-welford-scalar --D 48 --evals 3000 --starts 3 --quiet";
    assert_int_equal(run("%s --out %s", args, test_path("hall")), 0);
    double best_ratio = -1, best_ulp = -1;
    int best_k = 0;
    for (int k = 1; k <= 3; k++) {
        char dir[64], csv[512];
        snprintf(dir, sizeof dir, "h%d", k);
        assert_int_equal(run("%s --shard %d/3 --out %s", args, k, test_path(dir)), 0);
        snprintf(csv, sizeof csv, "%s/hunt.csv", test_path(dir));
        double r = csv_number(csv, 1, H_RATIO), u = csv_number(csv, 1, H_MAX_ULP);
        if (r > best_ratio) best_ratio = r, best_k = k;
        if (u > best_ulp) best_ulp = u;
    }
    char csv[512], a[512], b[512];
    snprintf(csv, sizeof csv, "%s/hunt.csv", test_path("hall"));
    assert_true(csv_number(csv, 1, H_RATIO) == best_ratio);
    assert_true(csv_number(csv, 1, H_MAX_ULP) == best_ulp);
    snprintf(a, sizeof a, "%s/f32-welford-scalar-D48-eps1e-05-ratio.npy", test_path("hall"));
    snprintf(b, sizeof b, "%s/f32-welford-scalar-D48-eps1e-05-shard%dof3-ratio.npy",
             test_path(best_k == 1   ? "h1"
                       : best_k == 2 ? "h2"
                                     : "h3"),
             best_k);
    size_t la, lb;
    char *ra = read_file(a, &la), *rb = read_file(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ra, rb, la);
    free(ra), free(rb);
}

static const char *plugin_dir;
static size_t builtin_kernels; /* the registry's kernels before a test loads a plugin */

/* The screen of case c (screened) agrees with its MPFR reference (ref): every output (y or dx,
 * dgamma, dbeta, h) exact to 2^-90 of the tensor's largest value and rounded alike on all but a
 * few elements (a double rounding within 2^-100 of a midpoint; none for an output every kernel
 * returns correctly rounded, h), and the statistics the contract is read from (mean, var, rstd,
 * kappa) to 1e-12. */
static void expect_screen_agrees(const ln_prepared *ref, const ln_prepared *scr, const char *what)
{
    const ln_case *c = &ref->c;
    const ln_op_info *info = &ln_ops[c->op];
    for (size_t i = 0; i < info->n_roles; i++) {
        if (info->roles[i].kind != LN_ROLE_OUT) continue;
        size_t n = info->roles[i].shape == LN_SHAPE_ROWS_D ? c->rows * c->D : c->D, differ = 0;
        double scale = 0;
        for (size_t k = 0; k < n; k++) scale = fmax(scale, fabs(ref->role[i].hi[k]));
        for (size_t k = 0; k < n; k++) {
            double want = ref->role[i].hi[k] + ref->role[i].lo[k], got = scr->role[i].hi[k] + scr->role[i].lo[k];
            if (isnan(want) && isnan(got)) continue;
            if (!(fabs((scr->role[i].hi[k] - ref->role[i].hi[k]) + (scr->role[i].lo[k] - ref->role[i].lo[k])) <=
                  0x1p-90 * scale))
                fail_msg("%s %s %s[%zu]: screen %.17g, reference %.17g", info->name, what, info->roles[i].name, k, got,
                         want);
            differ += ln_load(c->dtype, scr->role[i].ref, k) != ln_load(c->dtype, ref->role[i].ref, k);
        }
        if (differ > (info->roles[i].flags & LN_ROLE_CR ? 0u : 2u))
            fail_msg("%s %s %s: %zu elements rounded otherwise", info->name, what, info->roles[i].name, differ);
    }
    for (size_t r = 0; r < c->rows; r++) {
        const ln_ref_stats *a = &ref->stats[r], *b = &scr->stats[r];
        const double pairs[][2] = {{a->mean, b->mean}, {a->var, b->var}, {a->rstd, b->rstd}, {a->kappa, b->kappa}};
        for (size_t k = 0; k < 4; k++)
            if (!(fabs(pairs[k][0] - pairs[k][1]) <= 1e-12 * fabs(pairs[k][0])) && !(pairs[k][0] == pairs[k][1]) &&
                !(isnan(pairs[k][0]) && isnan(pairs[k][1])))
                fail_msg("%s %s row %zu statistic %zu: screen %.17g, reference %.17g", info->name, what, r, k,
                         pairs[k][1], pairs[k][0]);
    }
}

/* Case c prepared with its reference and with its op's screen, which must agree. */
static void check_screen_on(ln_case c, const char *what)
{
    ln_prepared ref, scr;
    c.screen = NULL;
    assert_int_equal(ln_prepare(&c, &ref), 0);
    c.screen = ln_op_screen(c.op);
    assert_non_null(c.screen);
    assert_int_equal(ln_prepare(&c, &scr), 0);
    expect_screen_agrees(&ref, &scr, what);
    ln_prepared_free(&ref);
    ln_prepared_free(&scr);
}

/* Every op's screen (ln_op_screen: reference/screen.c, or the reference itself) agrees with its
 * MPFR reference on the cases hunt scores (expect_screen_agrees). A wrong sign or a missing term
 * in a screen breaks these by far. */
static void test_screens_agree_with_the_reference(void **state)
{
    (void)state;
    const char *specs[] = {"normal", "offset:1e4", "outlier:1000", "shifted", "const"};
    for (int op = 0; op < LN_NOPS; op++)
        for (size_t d = 0; d < sizeof specs / sizeof specs[0]; d++) {
            ln_case c = {.dtype = LN_F32, .D = 200, .rows = 3, .eps = 1e-5, .seed = 7, .affine = 1, .op = (ln_op)op};
            ln_dist_parse(specs[d], &c.dist);
            check_screen_on(c, specs[d]);
            ln_dist_free(&c.dist);
        }
}

/* The residual-add ops' screens on the rows hunt's residual moves make, in every format: a
 * cancelling add (x = a + S, r = b - S, S = 2^(p/2 + 2): h keeps few of a's bits), an add whose
 * exact sum double cannot hold (r 2^(p - 60) times smaller: h's lo is not zero, and h rounds r
 * away), and a folded row (x = a + b, r = 0). A screen that normalised x + r unrounded, dropped
 * the sum's low part, took the statistics of x, or rounded h twice fails these. The ops are
 * those whose table line sums inputs (SUMMED); both have a screen of their own. */
static void test_residual_screens_agree_with_the_reference(void **state)
{
    (void)state;
    assert_non_null(ln_ref_screen_of(ln_ref_add_rmsnorm));
    assert_non_null(ln_ref_screen_of(ln_ref_add_layernorm));
    enum { D = 96, ROWS = 3 };
    const ln_dtype types[] = {LN_F32, LN_F16, LN_BF16, LN_F64};
    int summed_ops = 0;
    for (int op = 0; op < LN_NOPS; op++) {
        const ln_op_info *info = &ln_ops[op];
        int summed[2], n = 0;
        for (size_t i = 0; i < info->n_roles && n < 2; i++)
            if (info->roles[i].flags & LN_ROLE_SUMMED) summed[n++] = (int)i;
        if (n < 2) continue;
        summed_ops++;
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
            int p = ln_fmt(types[ti])->p;
            double S = ldexp(1, p / 2 + 2), xs[ROWS * D], rs[ROWS * D];
            for (size_t i = 0; i < D; i++) {
                double a = sin(1.7 * (double)i + 0.3) * 2.5, b = cos(0.9 * (double)i) * 1.25;
                xs[i] = a + S, rs[i] = b - S;
                xs[D + i] = a, rs[D + i] = ldexp(b, p - 60);
                xs[2 * D + i] = a + b, rs[2 * D + i] = 0;
            }
            ln_case c = {
                .dtype = types[ti], .D = D, .rows = ROWS, .eps = 1e-5, .seed = 7, .affine = 1, .op = (ln_op)op};
            ln_dist_parse("normal", &c.dist);
            c.input_src[summed[0]] = xs, c.input_src[summed[1]] = rs;
            check_screen_on(c, ln_fmt(types[ti])->name);
            ln_dist_free(&c.dist);
        }
    }
    assert_int_equal(summed_ops, 2);
}

/* The replay file at path fails kernel k (loaded): a row of another op through ln_replay_check,
 * the first op's through the fuzzer's own check of that kernel. */
static void replay_fails(const char *path, const ln_kernel *k)
{
    size_t len;
    char *data = read_file(path, &len), msg[1024] = "";
    if (ln_replay_has_op((const uint8_t *)data, len)) {
        ln_replay_row r;
        assert_int_equal(ln_replay_read((const uint8_t *)data, len, &r), 0);
        assert_int_equal(r.op, k->op);
        ln_replay_row_free(&r);
        assert_int_equal(ln_replay_check((const uint8_t *)data, len, msg, sizeof msg), 1);
        if (!strstr(msg, k->name)) fail_msg("the replay failed another kernel: %s", msg);
    } else {
        assert_int_equal(k->op, 0); /* the fuzzer's layout holds the first op's rows only */
        fuzz_problem p;
        ln_prepared ref;
        decode((const uint8_t *)data, len, &p);
        reference(&p, &ref);
        assert_int_equal(check_kernel(k, &p, &ref, msg, sizeof msg), 1);
        problem_free(&p, &ref);
    }
    free(data);
}

/* The planted bugs of tests/fixtures/plugin_planted.c, one f32 kernel per op, 2^-10 (16384 u)
 * wrong on rows no built-in distribution draws (forward: |mean| / sigma in [512, 2048); backward:
 * some |dy_i| >= 16, so the search over dy must find them; add-rmsnorm: an add that cancels 64
 * times over, which only the shift of x and r in opposite directions makes; add-layernorm: r = 0,
 * which only the fold makes): for each, `hunt --op` reaches such a
 * row from built-in rows that are all within the bound, confirms the error with the MPFR
 * reference (verdict fail, exit status 1), the repro command it wrote (--op, --input dy or r) gives
 * `lnbench accuracy`'s verdict fail on that row, and the replay file it wrote fails the kernel;
 * the op's double-computing built-in kernel passes the same search. */
static void test_hunt_finds_planted_bugs_of_every_op(void **state)
{
    (void)state;
    char planted[512];
    snprintf(planted, sizeof planted, "%s/tests/plugin-planted.so", plugin_dir);
    size_t before = ln_kernel_count();
    ln_plugin_load(planted);
    int seen[LN_NOPS] = {0};
    for (size_t i = before; i < ln_kernel_count(); i++) {
        const ln_kernel *k = ln_kernel_at(i);
        const char *op = ln_op_name(k->op);
        char dir[600], csv[700], path[900], tail[64];
        seen[k->op] = 1;
        snprintf(dir, sizeof dir, "%s", test_path(k->name));
        int st = run("hunt --plugin %s --op %s --kernel %s --D 64 --evals 2000 --starts 2 --quiet --out %s", planted,
                     op, k->name, dir);
        if (st != 1) fail_msg("hunt --op %s --kernel %s: exit %d, expected 1: %s", op, k->name, st, run_output);
        snprintf(csv, sizeof csv, "%s/hunt.csv", dir);
        double ratio = csv_number(csv, 1, H_RATIO), builtin = csv_number(csv, 1, H_BUILTIN_RATIO);
        if (!(builtin <= 1)) fail_msg("%s: the built-in rows already break the bound (%g)", k->name, builtin);
        if (!(ratio > 1000)) fail_msg("%s: the worst ratio found is %g, not the planted error", k->name, ratio);
        char *text = read_file(csv, NULL);
        snprintf(tail, sizeof tail, ",%s\n", op);
        assert_non_null(strstr(text, ",fail,"));
        assert_non_null(strstr(text, tail)); /* the op column */
        char *repro = strstr(text, "\"lnbench accuracy --op "), *end = repro ? strchr(repro + 1, '"') : NULL;
        assert_non_null(end);
        *end = 0;
        if (k->op != ln_ops[k->op].forward) assert_non_null(strstr(repro, " --input dy="));
        if (ln_ops[k->op].n_roles > 1 && ln_ops[k->op].roles[1].flags & LN_ROLE_SUMMED)
            assert_non_null(strstr(repro, " --input r="));
        st = run("%s --plugin %s --quiet --out %s/a.csv", repro + strlen("\"lnbench "), planted, dir);
        if (st != 0) fail_msg("%s: exit %d: %s", repro, st, run_output);
        free(text);
        snprintf(path, sizeof path, "%s/a.csv", dir);
        text = read_file(path, NULL);
        if (!strstr(text, ",fail,")) fail_msg("accuracy does not fail %s on the row hunt found: %s", k->name, text);
        free(text);
        snprintf(path, sizeof path, "%s/%s-D64-eps1e-05-ratio", dir, k->name);
        replay_fails(path, k);
        st = run("hunt --op %s --kernel 'f32-*accurate-scalar' --D 64 --evals 600 --starts 2 --quiet --out %s/good", op,
                 dir);
        if (st != 0) fail_msg("hunt --op %s on its accurate kernel: exit %d: %s", op, st, run_output);
        snprintf(path, sizeof path, "%s/good/hunt.csv", dir);
        text = read_file(path, NULL);
        assert_non_null(strstr(text, ",pass,"));
        free(text);
    }
    /* the ops planted so far must all be there; a newer op is named until it gets its line */
    for (int op = 0; op < LN_NOPS; op++)
        if (!seen[op] && op <= LN_OP_ADD_LAYERNORM)
            fail_msg("tests/fixtures/plugin_planted.c has no kernel of %s", ln_op_name((ln_op)op));
        else if (!seen[op])
            printf("note: no planted kernel of %s: hunt's test does not cover it (docs/adding-an-op.md)\n",
                   ln_op_name((ln_op)op));
}

/* Every built-in f32 kernel of an op that sums inputs (add-rmsnorm, add-layernorm: SUMMED roles)
 * that runs here passes a search with the residual moves: hunt.csv has a row per kernel, each
 * with the verdict pass (the f32 fused kernels all claim a bound). */
static void test_hunt_passes_builtin_fused_kernels(void **state)
{
    (void)state;
    int ops = 0;
    for (int op = 0; op < LN_NOPS; op++) {
        const ln_op_info *info = &ln_ops[op];
        int summed = 0;
        for (size_t i = 0; i < info->n_roles; i++) summed += !!(info->roles[i].flags & LN_ROLE_SUMMED);
        if (summed < 2) continue;
        ops++;
        size_t want = 0;
        for (size_t i = 0; i < builtin_kernels; i++) {
            const ln_kernel *k = ln_kernel_at(i);
            /* the kernels --kernel 'f32-*' selects (peers, ext-*, are not among them) */
            want +=
                k->op == (ln_op)op && k->dtype == LN_F32 && ln_kernel_available(k) && strncmp(k->name, "f32-", 4) == 0;
        }
        assert_true(want >= 2);
        char name[64], args[256], csv[512];
        snprintf(name, sizeof name, "fused-%s", info->name);
        snprintf(args, sizeof args, "--op %s --kernel 'f32-*' --D 64 --evals 800 --starts 2", info->name);
        run_hunt(name, args, csv, sizeof csv);
        char *text = read_file(csv, NULL);
        size_t rows = 0;
        for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            char kname[128];
            snprintf(kname, sizeof kname, "%.*s", (int)strcspn(line + 1, ","), line + 1);
            const ln_kernel *k = ln_kernel_find(kname);
            if (!k || k->op != (ln_op)op) fail_msg("%s: a row of %s", info->name, kname);
            char *end = strchr(line + 1, '\n');
            *end = 0;
            if (!strstr(line + 1, ",pass,"))
                fail_msg("hunt --op %s: %s does not pass: %s", info->name, kname, line + 1);
            *end = '\n';
            rows++;
        }
        if (rows != want) fail_msg("hunt --op %s: %zu rows for %zu f32 kernels", info->name, rows, want);
        free(text);
    }
    assert_int_equal(ops, 2);
}

/* --every-op (make hunt): one hunt.csv with a row for every op of the table, each for a kernel
 * of that op, its op column saying which. */
static void test_hunt_every_op(void **state)
{
    (void)state;
    char csv[512];
    /* add-layernorm has no naive kernel: a second pattern, which the other ops do not match */
    run_hunt("every", "--every-op --kernel 'f32-*naive-scalar,f32-addln-twopass-scalar' --D 32 --evals 60 --starts 1",
             csv, sizeof csv);
    char *text = read_file(csv, NULL);
    for (int op = 0; op < LN_NOPS; op++) {
        int found = 0;
        for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(line + 1, ","), line + 1);
            const ln_kernel *k = ln_kernel_find(name);
            const char *end = strchr(line + 1, '\n'), *last = end;
            while (last > line && *last != ',') last--; /* the line's last field: op */
            size_t len = (size_t)(end - last - 1);
            if (k && k->op == (ln_op)op && len == strlen(ln_op_name(k->op)) &&
                !strncmp(last + 1, ln_op_name(k->op), len))
                found = 1;
        }
        if (!found) fail_msg("no row of %s in %s", ln_op_name((ln_op)op), text);
    }
    free(text);
}

static void expect_usage_error(const char *args, const char *named)
{
    int st = run("%s", args);
    if (st != 2) fail_msg("'%s': exit %d, expected 2: %s", args, st, run_output);
    if (!strstr(run_output, named)) fail_msg("'%s': message does not name '%s': %s", args, named, run_output);
}

static void test_hunt_usage_errors(void **state)
{
    (void)state;
    expect_usage_error("hunt --seconds 0", "--seconds");
    expect_usage_error("hunt --seconds 1 --evals 10", "not both");
    expect_usage_error("hunt --D 1", "--D");
    expect_usage_error("hunt --kernel f32-nosuch-scalar", "f32-nosuch-scalar");
    expect_usage_error("hunt --shard 0/2", "--shard");
    expect_usage_error("hunt --eps -1", "-1");
    expect_usage_error("hunt --out /proc/x", "/proc/x");
    expect_usage_error("hunt --op nosuch", "nosuch");
    expect_usage_error("hunt --every-op --op rmsnorm", "not both");
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    plugin_dir = getenv("LNBENCH_PLUGIN_DIR");
    builtin_kernels = ln_kernel_count();
    if (!lnbench || !plugin_dir) {
        fprintf(stderr, "test_hunt: set LNBENCH and LNBENCH_PLUGIN_DIR (make test does)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hunt_usage_errors),
        cmocka_unit_test(test_hunt_finds_misrounded_output),
        cmocka_unit_test(test_hunt_beats_builtin_rows),
        cmocka_unit_test(test_hunt_ratio_uses_accuracys_bound),
        cmocka_unit_test(test_hunt_sweep_aligns_roundings),
        cmocka_unit_test(test_hunt_offset_start_aligns_chains),
        cmocka_unit_test(test_replay_file_decodes_to_the_row),
        cmocka_unit_test(test_accuracy_shards_make_the_whole),
        cmocka_unit_test(test_hunt_shards_make_the_whole),
        cmocka_unit_test(test_hunt_finds_planted_bugs_of_every_op),
        cmocka_unit_test(test_screens_agree_with_the_reference),
        cmocka_unit_test(test_residual_screens_agree_with_the_reference),
        cmocka_unit_test(test_hunt_passes_builtin_fused_kernels),
        cmocka_unit_test(test_hunt_mixed_format_kernels),
        cmocka_unit_test(test_hunt_every_op),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
