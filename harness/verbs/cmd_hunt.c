/* lnbench hunt: searches for each selected kernel's worst rows (harness/hunt/hunt.h), reports
 * them confirmed by the MPFR reference, and keeps them as .npy rows and as replay files. */
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "columns.h"
#include "hunt.h"
#include "meta.h"
#include "npy.h"
#include "outfile.h"
#include "plugin.h"
#include "problem.h"
#include "replay.h"
#include "verbs.h"

static const char hunt_help[] =
    "usage: lnbench hunt [options]\n"
    "Searches for the rows on which a kernel's error is largest relative to the bound it claims,\n"
    "and, separately, its largest ulp error: starting from every row of the built-in distributions\n"
    "(the baseline it is compared with), by local moves and constructions, scored in double-double\n"
    "and confirmed with the MPFR reference (docs/hunt.md). Every op of kernels/ops.def: a row is\n"
    "every rows x D input of the op (x, and dy for the backward ops), all searched; one search\n"
    "per kernel, D and eps. --seed: of the built-in rows, gamma/beta and the moves.\n";
static const char hunt_help_more[] =
    "  --kernel LIST   the same as --kernels\n"
    "  --every-op      every op of the table in turn, each with its kernels that --kernel matches\n"
    "                  (make hunt)\n"
    "  --seconds S     search time per kernel                      (default: 30)\n"
    "  --evals N       search budget in kernel runs instead: the same seed and N give the same rows\n"
    "                  on every machine                            (default: none)\n"
    "  --starts N      independent searches the budget is split over (default: 4)\n"
    "  --shard K/N     run the starts s with s mod N = K - 1 (N machines: K = 1..N; docs/shards.md)\n"
    "  --out DIR       the rows found: DIR/<kernel>-D<D>-eps<eps>-{ratio,ulp}.npy (x, loadable with\n"
    "                  --dist file:PATH; the op's other inputs in -{ratio,ulp}-<input>.npy, loadable\n"
    "                  with accuracy --input), -gamma.npy, -beta.npy, and the replay files\n"
    "                  DIR/<kernel>-D<D>-eps<eps>-{ratio,ulp} (tests/regress/fuzz_kernels/ format)\n"
    "                                                              (default: results/hunt)\n"
    "  --csv FILE      one row per kernel (results/README.md)     (default: DIR/hunt.csv)\n"
    "  --quiet         no progress (nor time left) on stderr\n"
    "  --help          this text\n"
    "Exit status 0 when every verdict is pass, outside or none; 1 when a kernel broke its bound.\n";

static const ln_problem_spec hunt_problem = {.verb = "hunt",
                                             .takes = LN_TAKES(LN_OPT_KERNELS) | LN_TAKES(LN_OPT_D) |
                                                      LN_TAKES(LN_OPT_EPS) | LN_TAKES(LN_OPT_SEED),
                                             .D_min = 2,
                                             .D_max = 65535,
                                             .D = "768",
                                             .eps = "1e-5",
                                             .seed = "1"};

/* The shortest decimal that reads back as v: "1e-05", not "1.0000000000000001e-05". */
static const char *shortest(double v, char *buf, size_t len)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

/* The file stem of a kernel's rows: DIR/<kernel>-D<D>-eps<eps>[-shardKofN]. */
static void stem(char *buf, size_t len, const char *dir, const ln_kernel *k, size_t D, double eps, ln_shard sh)
{
    char safe[256];
    ln_out_safe_name(safe, sizeof safe, k->name); /* a plugin's name cannot leave DIR */
    int n = snprintf(buf, len, "%s/%s-D%zu-eps%g", dir, safe, D, eps);
    if (sh.count > 1 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "-shard%uof%u", sh.index + 1, sh.count);
}

/* Writes D elements of v as exact doubles to <st>-<what>.npy, 1 x D (ndim 2, a row for --dist
 * file: and --input) or 1-D (gamma, beta); nothing when v is NULL. */
static void write_vector(const char *st, const char *what, const ln_kernel *k, size_t D, const void *v, int ndim)
{
    if (!v) return;
    char path[4300];
    double *row = malloc(D * sizeof *row);
    if (!row) ln_die("out of memory");
    for (size_t i = 0; i < D; i++) row[i] = ln_load(k->dtype, v, i);
    snprintf(path, sizeof path, "%s-%s.npy", st, what);
    ln_npy_write(path, LN_F64, ndim, 1, D, row);
    free(row);
}

/* Writes a find's inputs (as exact doubles: x for --dist file:, the others for --input) and its
 * replay file; puts the command that measures the row again into repro. */
static void write_find(const char *st, const char *what, const ln_kernel *k, size_t D, double eps,
                       const ln_hunt_result *r, const ln_hunt_find *f, char *repro, size_t len)
{
    repro[0] = 0;
    if (!f->x) return;
    char name[64], e[32];
    size_t seg = D * ln_fmt(k->dtype)->size;
    int n = snprintf(repro, len, "lnbench accuracy --op %s --kernels %s --dist file:%s-%s.npy", ln_op_name(k->op),
                     k->name, st, what);
    for (unsigned i = 0; i < r->n_in; i++) { /* x first, then the op's other rows x D inputs */
        const void *v = (const char *)f->x + i * seg;
        snprintf(name, sizeof name, i ? "%s-%s" : "%s", what, r->in_name[i]);
        write_vector(st, i ? name : what, k, D, v, 2);
        if (i && n > 0 && (size_t)n < len)
            n += snprintf(repro + n, len - (size_t)n, " --input %s=%s-%s.npy", r->in_name[i], st, name);
    }
    if (r->gamma && n > 0 && (size_t)n < len) n += snprintf(repro + n, len - (size_t)n, " --gamma %s-gamma.npy", st);
    if (r->beta && n > 0 && (size_t)n < len) n += snprintf(repro + n, len - (size_t)n, " --beta %s-beta.npy", st);
    if (n > 0 && (size_t)n < len) snprintf(repro + n, len - (size_t)n, " --eps %s", shortest(eps, e, sizeof e));
    /* the replay file: the op's inputs in its table's order */
    const ln_op_info *op = &ln_ops[k->op];
    const void *in[LN_MAX_ROLES];
    for (size_t i = 0, m = 0, row_in = 0; i < op->n_roles; i++) {
        const ln_role *role = &op->roles[i];
        if (role->kind != LN_ROLE_IN) continue;
        in[m++] = role->shape == LN_SHAPE_ROWS_D ? (const char *)f->x + row_in++ * seg
                  : !strcmp(role->name, "gamma") ? r->gamma
                                                 : r->beta;
    }
    char path[4300];
    snprintf(path, sizeof path, "%s-%s", st, what);
    ln_replay_write_op_row(path, k->op, k->dtype, D, in, eps);
}

/* --every-op: the kernels of every op that the patterns match, op after op, in one array; each
 * op selects with the patterns that match one of its kernels (an op none matches is left out);
 * a pattern that matches no kernel of any op is a usage error. */
static size_t kernels_of_every_op(const char *list, const ln_kernel ***out)
{
    size_t nitems, n = 0;
    char **items = ln_split_list(list, "--kernels", &nitems);
    const ln_kernel **all = malloc((ln_kernel_count() + 1) * sizeof *all);
    char *mine = malloc(strlen(list) + 1);
    int *used = calloc(nitems, sizeof *used);
    if (!all || !mine || !used) ln_die("out of memory");
    for (int op = 0; op < LN_NOPS; op++) {
        mine[0] = 0;
        for (size_t j = 0; j < nitems; j++) {
            int matches = 0;
            for (size_t i = 0; i < ln_kernel_count() && !matches; i++)
                matches = ln_kernel_at(i)->op == (ln_op)op && fnmatch(items[j], ln_kernel_at(i)->name, 0) == 0;
            if (matches) strcat(strcat(mine, *mine ? "," : ""), items[j]), used[j] = 1;
        }
        if (!*mine) continue;
        ln_cli_op = (ln_op)op;
        const ln_kernel **ks;
        size_t nk = ln_select_kernels(mine, &ks, 0);
        memcpy(all + n, ks, nk * sizeof *ks);
        n += nk;
        free(ks);
    }
    for (size_t j = 0; j < nitems; j++)
        if (!used[j]) ln_die_usage("--kernels: '%s' matches no kernel of any op (lnbench list --op OP)", items[j]);
    free(items), free(mine), free(used);
    *out = all;
    return n;
}

int cmd_hunt(int argc, char **argv)
{
    enum { O_SECONDS = 1, O_EVALS, O_STARTS, O_SHARD, O_OUT, O_CSV, O_QUIET, O_HELP, O_EVERY_OP };
    static const struct option opts[] = {LN_PROBLEM_OPTIONS,
                                         {"kernel", required_argument, 0, LN_OPT_KERNELS},
                                         {"seconds", required_argument, 0, O_SECONDS},
                                         {"evals", required_argument, 0, O_EVALS},
                                         {"starts", required_argument, 0, O_STARTS},
                                         {"shard", required_argument, 0, O_SHARD},
                                         {"out", required_argument, 0, O_OUT},
                                         {"csv", required_argument, 0, O_CSV},
                                         {"quiet", no_argument, 0, O_QUIET},
                                         {"help", no_argument, 0, O_HELP},
                                         {"every-op", no_argument, 0, O_EVERY_OP},
                                         {0, 0, 0, 0}};
    const char *out_dir = "results/hunt", *csv_path = NULL;
    ln_hunt_config cfg = {.seconds = 30, .starts = 4, .shard = {0, 1}, .progress = 1};
    ln_problem_args pa;
    ln_problem_args_init(&pa, &hunt_problem);
    int evals_given = 0, seconds_given = 0, every_op = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_SECONDS:
            cfg.seconds = ln_parse_double(optarg, "--seconds");
            if (!(cfg.seconds > 0)) ln_die_usage("--seconds: %s is not positive", optarg);
            seconds_given = 1;
            break;
        case O_EVALS: cfg.evals = (uint64_t)ln_parse_int(optarg, "--evals", 1, INT64_MAX), evals_given = 1; break;
        case O_STARTS: cfg.starts = (unsigned)ln_parse_int(optarg, "--starts", 1, 1 << 20); break;
        case O_SHARD: cfg.shard = ln_parse_shard(optarg); break;
        case O_OUT: out_dir = optarg; break;
        case O_CSV: csv_path = optarg; break;
        case O_QUIET: cfg.progress = 0; break;
        case O_EVERY_OP: every_op = 1; break;
        case O_HELP:
            ln_problem_help(stdout, hunt_help, &hunt_problem, hunt_help_more);
            ln_problem_args_free(&pa);
            return 0;
        default:
            if (ln_problem_arg(&pa, c, optarg)) break;
            ln_die_usage("hunt: unknown option or missing value '%s'; see 'lnbench hunt --help'", argv[optind - 1]);
        }
    }
    if (optind < argc) ln_die_usage("hunt: unexpected argument '%s'", argv[optind]);
    if (evals_given && seconds_given) ln_die_usage("hunt: give --seconds or --evals, not both");
    if (evals_given) cfg.seconds = 0;

    const ln_kernel **ks;
    if (every_op && ln_cli_op_given) ln_die_usage("hunt: give --op or --every-op, not both");
    size_t nk = every_op ? kernels_of_every_op(pa.kernels ? pa.kernels : "*", &ks) : ln_problem_kernels(&pa, &ks);
    if (nk == 0) ln_die_usage("--kernels: none of the selected kernels of any op runs on this CPU");
    ln_print_skip_note();
    char csv_default[4200], meta_path[4300];
    if (!csv_path) {
        snprintf(csv_default, sizeof csv_default, "%s/hunt.csv", out_dir);
        csv_path = csv_default;
    }
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", csv_path);
    ln_outfile out, meta;
    ln_out_open(&out, csv_path); /* also creates out_dir when the CSV is in it */
    ln_out_open(&meta, meta_path);
    ln_schema_write_header(out.f, LN_SCHEMA_HUNT);

    int failed = 0;
    /* D outer, then eps, then kernel */
    size_t nsteps = pa.nD * pa.neps * nk;
    for (size_t step = 0; step < nsteps; step++) {
        size_t i = step % nk;
        cfg.problem = ln_problem_at(&pa, ks[i]->dtype, step / nk / pa.neps, 0, step / nk % pa.neps, 0, 0);
        cfg.op = ks[i]->op, cfg.k = ks[i];
        if (cfg.progress && cfg.seconds > 0) /* a search takes its --seconds: the time left is known */
            fprintf(stderr, "hunt: %s at D %zu (%zu of %zu): about %.0f s left\n", ks[i]->name, cfg.D, step + 1, nsteps,
                    cfg.seconds * (double)(nsteps - step));
        ln_hunt_result r;
        ln_hunt_run(&cfg, &r);
        char st[4200], repro[9000], repro_ulp[9000];
        stem(st, sizeof st, out_dir, ks[i], cfg.D, cfg.eps, cfg.shard);
        write_vector(st, "gamma", ks[i], cfg.D, r.gamma, 1);
        write_vector(st, "beta", ks[i], cfg.D, r.beta, 1);
        /* a find keeps the eps of the built-in row its search started from (the run's, or 0) */
        write_find(st, "ratio", ks[i], cfg.D, r.worst_ratio.eps, &r, &r.worst_ratio, repro, sizeof repro);
        write_find(st, "ulp", ks[i], cfg.D, r.worst_ulp.eps, &r, &r.worst_ulp, repro_ulp, sizeof repro_ulp);
        const ln_hunt_find *w = &r.worst_ratio, *u = &r.worst_ulp;
        const char *verdict = !strcmp(u->verdict, "fail") ? "fail" : w->verdict;
        failed |= !strcmp(verdict, "fail");
        double gain = w->ratio / r.builtin_ratio.ratio;
        printf("%s D=%zu eps=%g: worst ratio %.4g%s (max_norm %.4g u, bound %.4g u, kappa %.3g), %.3gx the built-in "
               "worst %.4g (%s); verdict %s\n",
               ks[i]->name, cfg.D, cfg.eps, w->ratio, w->eps != cfg.eps ? " at eps 0" : "", w->max_norm, w->bound,
               w->kappa, gain, r.builtin_ratio.ratio, r.builtin_ratio_dist, verdict);
        printf("  worst max_ulp %.10g%s (built-in worst %.10g, %s)%s\n", u->max_ulp,
               u->nonfinite ? " and non-finite outputs" : "", r.builtin_ulp.max_ulp, r.builtin_ulp_dist,
               u->max_ulp > 0.5 && r.builtin_ulp.max_ulp < 1 ? ": not correctly rounded" : "");
        printf("  %llu evaluations in %.1f s (worst ratio held after %.1f s, worst ulp after %.1f s); rows in "
               "%s-{ratio,ulp}.npy\n  repro: %s\n  repro (ulp): %s\n",
               (unsigned long long)r.evals, r.seconds, w->found_after, u->found_after, st, repro, repro_ulp);
        printf("  to keep a row as a regression test: mv %s-ratio tests/regress/fuzz_kernels/<name>\n", st);
        fflush(stdout);
        char shard[32];
        snprintf(shard, sizeof shard, "%u/%u", cfg.shard.index + 1, cfg.shard.count);
        ln_csv_row row;
        ln_row_start(&row, LN_SCHEMA_HUNT);
        ln_row_text(&row, LNC_HUNT_kernel, ks[i]->name);
        ln_row_text(&row, LNC_HUNT_dtype, ln_fmt(ks[i]->dtype)->name);
        ln_row_count(&row, LNC_HUNT_D, cfg.D);
        ln_row_num(&row, LNC_HUNT_eps, cfg.eps);
        ln_row_count(&row, LNC_HUNT_seed, cfg.seed);
        ln_row_num(&row, LNC_HUNT_max_norm, w->max_norm);
        ln_row_num(&row, LNC_HUNT_bound, w->bound);
        ln_row_num(&row, LNC_HUNT_kappa, w->kappa);
        ln_row_num(&row, LNC_HUNT_ratio, w->ratio);
        ln_row_num(&row, LNC_HUNT_builtin_ratio, r.builtin_ratio.ratio);
        ln_row_text(&row, LNC_HUNT_builtin_ratio_dist, r.builtin_ratio_dist);
        ln_row_num(&row, LNC_HUNT_gain, gain);
        ln_row_num(&row, LNC_HUNT_max_ulp, u->max_ulp);
        ln_row_num(&row, LNC_HUNT_builtin_max_ulp, r.builtin_ulp.max_ulp);
        ln_row_text(&row, LNC_HUNT_builtin_ulp_dist, r.builtin_ulp_dist);
        ln_row_text(&row, LNC_HUNT_verdict, verdict);
        ln_row_text(&row, LNC_HUNT_ulp_row_verdict, u->verdict);
        ln_row_num(&row, LNC_HUNT_seconds, r.seconds);
        ln_row_count(&row, LNC_HUNT_evaluations, r.evals);
        ln_row_num(&row, LNC_HUNT_ratio_found_s, w->found_after);
        ln_row_num(&row, LNC_HUNT_ulp_found_s, u->found_after);
        ln_row_text(&row, LNC_HUNT_shard, shard);
        ln_row_text(&row, LNC_HUNT_repro, repro);
        ln_row_text(&row, LNC_HUNT_repro_ulp, repro_ulp);
        ln_row_text(&row, LNC_HUNT_op, ln_op_name(ks[i]->op));
        ln_row_write(out.f, &row);
        ln_hunt_result_free(&r);
    }
    ln_meta_write_json(meta.f, pa.seed, argc + 1, argv - 1);
    fputc('\n', meta.f);
    ln_out_commit(&meta);
    ln_out_commit(&out);
    free(ks);
    ln_problem_args_free(&pa);
    return failed;
}
