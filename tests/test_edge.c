/* Edge cases with defined results (docs/robustness.md), for every available kernel, against the
 * MPFR reference; and the replay of the fuzzers' regression inputs and seed corpora.
 *
 * Every case is run on every kernel and recorded; the assertions are the promises each class
 * of kernel makes (see `asserted` below). LNBENCH_EDGE_TABLE=FILE writes the full table as
 * markdown, for docs/robustness.md. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LN_FUZZ_NO_MAIN
#include "../fuzz/fuzz_kernels.c"
#include "../fuzz/fuzz_npy.c"

/* ---- building the cases ---- */

typedef enum { FILL_NORMALISH, FILL_CONST, FILL_HUGE, FILL_TINY } fill_kind;

/* Deterministic values of modest spread: k/8 - 2 for a small integer k, times scale. */
static void fill(ln_dtype t, void *x, size_t n, fill_kind kind, double c)
{
    const ln_format *f = ln_fmt(t);
    for (size_t i = 0; i < n; i++) {
        double v = (double)((i * 7919 + 13) % 37) / 8.0 - 2.0;
        switch (kind) {
        case FILL_NORMALISH: v = c + v; break;
        case FILL_CONST: v = c; break;
        case FILL_HUGE: v = ldexp(v + 3.0, f->emax / 2 + 2); break; /* squares overflow */
        case FILL_TINY: v = ldexp(v + 3.0, f->emin + 2); break;     /* squares underflow */
        }
        ln_store(t, x, i, v);
    }
}

typedef struct {
    const char *name, *defined; /* column title; the defined result (docs) */
    size_t D, rows;
    double eps;
    int affine;
    fill_kind kind;
    double c;
    /* poison: element (row, col) of x set to v; gamma/beta poison for the affine case */
    int poison_x;
    size_t prow, pcol;
    double pv, pv2;
    int poison_affine;
    enum { CHECK_UNTOUCHED, CHECK_BETA, CHECK_NONFINITE, CHECK_BOUND } check;
} edge_case;

static const edge_case cases[] = {
    {"D=0", "nothing written", 0, 3, 1e-5, 1, FILL_NORMALISH, 0, 0, 0, 0, 0, 0, 0, CHECK_UNTOUCHED},
    {"rows=0", "nothing written", 5, 0, 1e-5, 1, FILL_NORMALISH, 0, 0, 0, 0, 0, 0, 0, CHECK_UNTOUCHED},
    {"D=1", "y = beta exactly (var = 0)", 1, 4, 1e-5, 1, FILL_NORMALISH, 0.5, 0, 0, 0, 0, 0, 0, CHECK_BETA},
    {"NaN", "row with a NaN: all NaN; other rows unaffected", 37, 3, 1e-5, 1, FILL_NORMALISH, 0, 1, 1, 5, NAN, NAN, 0,
     CHECK_NONFINITE},
    {"+Inf", "row with +Inf: all NaN (x - mean = Inf - Inf)", 37, 3, 1e-5, 1, FILL_NORMALISH, 0, 1, 1, 5, INFINITY,
     INFINITY, 0, CHECK_NONFINITE},
    {"+-Inf", "row with +Inf and -Inf: all NaN", 37, 3, 1e-5, 1, FILL_NORMALISH, 0, 1, 2, 0, INFINITY, -INFINITY, 0,
     CHECK_NONFINITE},
    {"NaN/Inf gamma,beta", "gamma_3 = NaN, beta_7 = Inf: only y_3 and y_7 non-finite", 37, 2, 1e-5, 1, FILL_NORMALISH,
     0, 0, 0, 0, 0, 0, 1, CHECK_NONFINITE},
    {"eps=0 zero row", "0/0: all NaN", 37, 2, 0.0, 1, FILL_CONST, 0.0, 0, 0, 0, 0, 0, 0, CHECK_NONFINITE},
    {"eps=0 const 1", "0/0: all NaN (mean exact in any format)", 37, 2, 0.0, 1, FILL_CONST, 1.0, 0, 0, 0, 0, 0, 0,
     CHECK_NONFINITE},
    {"eps=0 const 0.1", "0/0: all NaN (needs an exact mean)", 37, 2, 0.0, 1, FILL_CONST, 0.1, 0, 0, 0, 0, 0, 0,
     CHECK_NONFINITE},
    {"eps=2^-1074 const", "y = beta exactly (eps > 0, below the format's range)", 37, 2, 0x1p-1074, 1, FILL_CONST, 0.1,
     0, 0, 0, 0, 0, 0, CHECK_BETA},
    {"huge", "finite, within the bound (squares overflow the format)", 64, 2, 1e-5, 1, FILL_HUGE, 0, 0, 0, 0, 0, 0, 0,
     CHECK_BOUND},
    {"tiny eps=0", "finite, within the bound (squares underflow the format)", 64, 2, 0.0, 1, FILL_TINY, 0, 0, 0, 0, 0,
     0, 0, CHECK_BOUND},
    {"eps=1e30", "y ~ beta, within the bound", 64, 2, 1e30, 1, FILL_NORMALISH, 0, 0, 0, 0, 0, 0, 0, CHECK_BOUND},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Which kernels must meet a case (the rest are recorded only). */
static int asserted(const edge_case *c, const ln_kernel *k)
{
    if (!strcmp(c->name, "eps=0 const 0.1") || !strcmp(c->name, "eps=2^-1074 const") || !strcmp(c->name, "huge") ||
        !strcmp(c->name, "tiny eps=0"))
        return k->agrees_nonfinite;
    return 1;
}

/* ---- running a kernel on a case ---- */

#define GUARD 16 /* elements of guard on each side of y */
static const unsigned char guard_byte = 0xa5;

typedef struct {
    int met;
    char note[80];
} outcome;

static void make_problem(const edge_case *c, ln_dtype t, fuzz_problem *p)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->D = c->D;
    p->rows = c->rows;
    p->eps = c->eps;
    p->affine = c->affine;
    size_t n = c->D * c->rows, es = ln_fmt(t)->size;
    p->x = calloc(n, es);
    fill(t, p->x, n, c->kind, c->c);
    if (c->poison_x) {
        ln_store(t, p->x, c->prow * c->D + c->pcol, c->pv);
        ln_store(t, p->x, c->prow * c->D + c->pcol + 3, c->pv2);
    }
    if (c->affine) {
        p->gamma = calloc(c->D, es);
        p->beta = calloc(c->D, es);
        for (size_t i = 0; i < c->D; i++) {
            ln_store(t, p->gamma, i, 1.0 + 0.25 * sin(1.0 + (double)i));
            ln_store(t, p->beta, i, 0.25 * cos(2.0 + (double)i));
        }
        if (c->poison_affine) {
            ln_store(t, p->gamma, 3, NAN);
            ln_store(t, p->beta, 7, INFINITY);
        }
    }
}

static int untouched(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != guard_byte) return 0;
    return 1;
}

static outcome run_case(const edge_case *c, const ln_kernel *k)
{
    fuzz_problem p;
    make_problem(c, k->dtype, &p);
    ln_prepared ref;
    reference(&p, &ref);
    size_t n = c->D * c->rows, es = ln_fmt(k->dtype)->size;
    unsigned char *ybuf = malloc((n + 2 * GUARD) * es), *y = ybuf + GUARD * es;
    double stats[2][GUARD + 4];
    memset(ybuf, guard_byte, (n + 2 * GUARD) * es);
    memset(stats, guard_byte, sizeof stats);
    ln_args a = {.rows = c->rows,
                 .D = c->D,
                 .x = p.x,
                 .y = y,
                 .gamma = p.gamma,
                 .beta = p.beta,
                 .eps = c->eps,
                 .mean = stats[0],
                 .rstd = stats[1]};
    k->forward(&a);

    outcome o = {1, "ok"};
    int guards_ok =
        untouched(ybuf, GUARD * es) && untouched(y + n * es, GUARD * es) &&
        untouched((unsigned char *)stats[0] + c->rows * sizeof(double), (GUARD + 4 - c->rows) * sizeof(double)) &&
        untouched((unsigned char *)stats[1] + c->rows * sizeof(double), (GUARD + 4 - c->rows) * sizeof(double));
    if (!guards_ok) {
        o.met = 0;
        snprintf(o.note, sizeof o.note, "wrote outside y/mean/rstd");
    } else if (c->check == CHECK_UNTOUCHED) {
        if (!untouched(y, n * es)) o.met = 0, snprintf(o.note, sizeof o.note, "wrote y");
        else if (!untouched((unsigned char *)stats, sizeof stats))
            o.met = 0, snprintf(o.note, sizeof o.note, "wrote mean/rstd");
    } else if (c->check == CHECK_BETA) {
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) wrong += ln_load(k->dtype, y, i) != ln_load(k->dtype, p.beta, i % c->D);
        if (wrong) o.met = 0, snprintf(o.note, sizeof o.note, "%zu of %zu != beta", wrong, n);
    } else {
        ln_errors e;
        ln_measure_output(&ref, y, &e);
        double bound = 0;
        for (size_t r = 0; r < c->rows; r++) bound = fmax(bound, k->bound(c->D, ref.stats[r].kappa));
        if (e.nonfinite) o.met = 0, snprintf(o.note, sizeof o.note, "%zu non-finite mismatches", e.nonfinite);
        else if (!isnan(e.max_norm) && !(e.max_norm <= bound)) /* the finite outputs, if any */
            o.met = 0, snprintf(o.note, sizeof o.note, "error %.3g u > bound %.3g u", e.max_norm, bound);
        else if (c->check == CHECK_BOUND)
            snprintf(o.note, sizeof o.note, "ok (%.2g u, %.0f%% cr)", e.max_norm, 100 * e.cr_frac);
    }
    free(ybuf);
    problem_free(&p, &ref);
    return o;
}

static void test_edge_cases(void **state)
{
    (void)state;
    const char *table_path = getenv("LNBENCH_EDGE_TABLE");
    FILE *table = table_path ? fopen(table_path, "w") : NULL;
    if (table) {
        fputs("| kernel |", table);
        for (size_t j = 0; j < NCASES; j++) fprintf(table, " %s |", cases[j].name);
        fputs("\n|---|", table);
        for (size_t j = 0; j < NCASES; j++) fputs("---|", table);
        fputc('\n', table);
    }
    int failures = 0;
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!ln_kernel_available(k)) continue;
        if (table) fprintf(table, "| %s |", k->name);
        for (size_t j = 0; j < NCASES; j++) {
            outcome o = run_case(&cases[j], k);
            int must = asserted(&cases[j], k);
            if (table) fprintf(table, " %s%s%s |", o.met ? "" : "**", o.note, o.met ? "" : must ? "** (FAIL)" : "**");
            if (!o.met && must) {
                printf("edge case '%s' (%s): %s: %s\n", cases[j].name, cases[j].defined, k->name, o.note);
                failures++;
            }
        }
        if (table) fputc('\n', table);
    }
    if (table) fclose(table);
    assert_int_equal(failures, 0);
}

/* ---- replaying fuzz inputs ---- */

typedef int (*fuzz_check)(const uint8_t *, size_t, char *, size_t);

/* Runs check on every file of dir in a child process, so that a crash (or an AddressSanitizer
 * report) names the file instead of ending the test binary. Returns the number of files. */
static size_t replay_dir(const char *dir, fuzz_check check)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static uint8_t data[1 << 16];
        size_t size = fread(data, 1, sizeof data, f);
        fclose(f);
        fflush(stdout);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char msg[1024];
            if (check(data, size, msg, sizeof msg)) {
                printf("%s: %s\n", path, msg);
                fflush(stdout);
                _exit(1);
            }
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("fuzz input %s fails (status %d)", path, status);
        count++;
    }
    closedir(d);
    return count;
}

static void test_replay_kernel_inputs(void **state)
{
    (void)state;
    size_t n = replay_dir("tests/regress/fuzz_kernels", ln_fuzz_kernels_check);
    n += replay_dir("fuzz/corpus/fuzz_kernels", ln_fuzz_kernels_check);
    assert_true(n > 0); /* run from the repository root, as make test does */
}

static void test_replay_npy_inputs(void **state)
{
    (void)state;
    size_t n = replay_dir("tests/regress/fuzz_npy", ln_fuzz_npy_check);
    n += replay_dir("fuzz/corpus/fuzz_npy", ln_fuzz_npy_check);
    assert_true(n > 0);
}

/* A header claiming far more data than the file holds is a truncated file: said so, and found
 * out before anything of the claimed size is allocated. */
static void test_npy_claimed_size_checked_against_file(void **state)
{
    (void)state;
    ln_npy_array a;
    const char *err = ln_npy_read("tests/regress/fuzz_npy/shape-claims-80TB-file-has-none.npy", &a);
    assert_non_null(err);
    if (!strstr(err, "truncated")) fail_msg("message for a 128-byte file claiming 80 TB: %s", err);
    assert_null(a.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_replay_kernel_inputs),
        cmocka_unit_test(test_replay_npy_inputs),
        cmocka_unit_test(test_npy_claimed_size_checked_against_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
