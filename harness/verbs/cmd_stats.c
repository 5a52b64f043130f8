/* lnbench stats FILE: the exact mean and variances of a file of decimal numbers. Each decimal
 * is an exact rational (GMP mpq), the sums are exact, and each printed statistic is the exact
 * value rounded once to double (MPFR), so the figures are a yardstick for any summation. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>
#include <mpfr.h>

#include "cli.h"
#include "ref_mpfr.h"
#include "verbs.h"

static const char stats_help[] =
    "usage: lnbench stats [--skip N] [--as f64|f32|f16|bf16] FILE\n"
    "Reads whitespace-separated decimal numbers (123, -4.5, 1e-3, .5E+2) from FILE and prints\n"
    "their count and exact statistics, one 'name value' per line:\n"
    "  n           the count\n"
    "  mean        sum x / n\n"
    "  var_pop     sum (x - mean)^2 / n        (population variance, as LayerNorm uses)\n"
    "  var_sample  sum (x - mean)^2 / (n - 1)  (nan when n < 2)\n"
    "  sd_sample   sqrt(var_sample)            (nan when n < 2)\n"
    "Each decimal is taken as the exact rational it denotes and the sums are exact (no floating\n"
    "point), so each value printed is the exact statistic correctly rounded to double, shown with\n"
    "17 significant digits (%.17g). With n = 0 every statistic is nan.\n"
    "  --skip N   ignore the first N lines (headers)\n"
    "  --as FMT   first round each value to nearest-even in format FMT (f64, f32, f16, bf16),\n"
    "             as a kernel would see it; a value that overflows FMT is an error\n"
    "A line holding anything but numbers is an error naming the line (exit 2).\n";

/* Parses a whole decimal token into q exactly; returns 0 if it is not one. */
static int parse_decimal(const char *s, mpq_t q, mpz_t scale)
{
    const char *p = s;
    int negative = *p == '-';
    if (*p == '-' || *p == '+') p++;
    size_t len = strlen(p);
    char *digits = malloc(len + 2);
    if (!digits) ln_die("out of memory");
    size_t nd = 0;
    long frac = 0;
    int seen_point = 0;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            digits[nd++] = *p;
            frac += seen_point;
        } else if (*p == '.' && !seen_point) {
            seen_point = 1;
        } else {
            break;
        }
    }
    long exp10 = 0;
    int ok = nd > 0;
    if (ok && (*p == 'e' || *p == 'E')) {
        char *end;
        errno = 0;
        exp10 = strtol(p + 1, &end, 10);
        /* a sign and digits only (strtol would also skip spaces); exponents beyond 10^+-100000
         * would make huge integers and are not what a data file holds */
        ok = end > p + 1 && (p[1] == '-' || p[1] == '+' || (p[1] >= '0' && p[1] <= '9')) && errno == 0 &&
             exp10 > -100000 && exp10 < 100000;
        p = ok ? end : p;
    }
    ok = ok && *p == 0;
    if (ok) {
        digits[nd] = 0;
        mpz_set_str(mpq_numref(q), digits, 10);
        if (negative) mpz_neg(mpq_numref(q), mpq_numref(q));
        exp10 -= frac;
        mpz_ui_pow_ui(scale, 10, (unsigned long)(exp10 < 0 ? -exp10 : exp10));
        if (exp10 >= 0) {
            mpz_mul(mpq_numref(q), mpq_numref(q), scale);
            mpz_set_ui(mpq_denref(q), 1);
        } else {
            mpz_set(mpq_denref(q), scale);
        }
        mpq_canonicalize(q);
    }
    free(digits);
    return ok;
}

/* The rational q correctly rounded to double (one rounding, double's range and subnormals). */
static double round_rational(const mpq_t q)
{
    mpfr_t r;
    mpfr_init2(r, 53);
    ln_mpfr_fit(r, mpfr_set_q(r, q, MPFR_RNDN), LN_F64);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return d;
}

/* An integer as an exact MPFR number. */
static void exact_from_integer(mpfr_t f, const mpz_t z)
{
    size_t bits = mpz_sizeinbase(z, 2);
    mpfr_init2(f, bits < MPFR_PREC_MIN ? MPFR_PREC_MIN : (mpfr_prec_t)bits);
    mpfr_set_z(f, z, MPFR_RNDN);
}

/* sqrt(a / b) correctly rounded to double, a / b >= 0 in lowest terms: sqrt(a b) / b. */
static double round_sqrt_rational(const mpq_t v)
{
    mpz_t ab;
    mpfr_t num, den;
    mpz_init(ab);
    mpz_mul(ab, mpq_numref(v), mpq_denref(v));
    exact_from_integer(num, ab);
    exact_from_integer(den, mpq_denref(v));
    double d = ln_mpfr_round_sqrt_div(num, den, LN_F64);
    mpfr_clears(num, den, (mpfr_ptr)0);
    mpz_clear(ab);
    return d;
}

int cmd_stats(int argc, char **argv)
{
    static const struct option opts[] = {{"skip", required_argument, 0, 's'},
                                         {"as", required_argument, 0, 'a'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    long long skip = 0;
    int as = -1, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': skip = ln_parse_int(optarg, "--skip", 0, 1LL << 62); break;
        case 'a':
            as = ln_dtype_parse(optarg);
            if (as < 0) ln_die_usage("--as: unknown format '%s' (f64, f32, f16, bf16)", optarg);
            break;
        case 'h': fputs(stats_help, stdout); return 0;
        default: ln_die_usage("stats: see 'lnbench stats --help'");
        }
    }
    if (optind != argc - 1) ln_die_usage("stats: expects one FILE; see 'lnbench stats --help'");
    const char *path = argv[optind];
    FILE *f = fopen(path, "r");
    if (!f) ln_die_usage("stats: cannot read '%s': %s", path, strerror(errno));

    mpq_t v, sum, sumsq, sq;
    mpz_t scale;
    mpfr_t rounded;
    mpq_inits(v, sum, sumsq, sq, NULL);
    mpz_init(scale);
    mpfr_init2(rounded, as >= 0 ? ln_fmt(as)->p : MPFR_PREC_MIN);
    unsigned long long n = 0, lineno = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (++lineno <= (unsigned long long)skip) continue;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        char *copy = strdup(line), *save = NULL;
        if (!copy) ln_die("out of memory");
        for (char *tok = strtok_r(copy, " \t\v\f", &save); tok; tok = strtok_r(NULL, " \t\v\f", &save)) {
            if (!parse_decimal(tok, v, scale))
                ln_die_usage("stats: %s:%llu: not a decimal number: '%s' (line: '%s')", path, lineno, tok, line);
            if (as >= 0) {
                ln_mpfr_fit(rounded, mpfr_set_q(rounded, v, MPFR_RNDN), as);
                if (!mpfr_number_p(rounded))
                    ln_die_usage("stats: %s:%llu: '%s' overflows %s", path, lineno, tok, ln_fmt(as)->name);
                mpfr_get_q(v, rounded);
            }
            mpq_add(sum, sum, v);
            mpq_mul(sq, v, v);
            mpq_add(sumsq, sumsq, sq);
            n++;
        }
        free(copy);
    }
    if (ferror(f)) ln_die_usage("stats: cannot read '%s': %s", path, strerror(errno));
    free(line);
    fclose(f);

    /* m2 = n sum x^2 - (sum x)^2 = n^2 var_pop = n (n-1) var_sample, exactly */
    double mean = NAN, var_pop = NAN, var_sample = NAN, sd_sample = NAN;
    mpq_t m2, d;
    mpq_inits(m2, d, NULL);
    if (n > 0) {
        mpq_set_ui(d, n, 1);
        mpq_div(v, sum, d);
        mean = round_rational(v);
        mpq_mul(m2, sumsq, d);
        mpq_mul(sq, sum, sum);
        mpq_sub(m2, m2, sq);
        mpq_set_ui(d, n, 1);
        mpq_mul(d, d, d);
        mpq_div(v, m2, d);
        var_pop = round_rational(v);
    }
    if (n > 1) {
        mpz_set_ui(scale, n);
        mpz_mul_ui(scale, scale, n - 1);
        mpq_set_z(d, scale);
        mpq_div(v, m2, d);
        var_sample = round_rational(v);
        sd_sample = round_sqrt_rational(v);
    }
    printf("n %llu\nmean %.17g\nvar_pop %.17g\nvar_sample %.17g\nsd_sample %.17g\n", n, mean, var_pop, var_sample,
           sd_sample);
    mpq_clears(v, sum, sumsq, sq, m2, d, NULL);
    mpz_clear(scale);
    mpfr_clear(rounded);
    return 0;
}
