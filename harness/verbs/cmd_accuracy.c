/* lnbench accuracy: every selected kernel on every (dist, D, eps) case, measured against the MPFR
 * reference (computed once per case and dtype, shared by that dtype's kernels). */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accuracy.h"
#include "bench_plan.h"
#include "cli.h"
#include "columns.h"
#include "keep.h"
#include "meta.h"
#include "npy.h"
#include "outfile.h"
#include "plugin.h"
#include "problem.h"
#include "verbs.h"

static const char accuracy_help[] =
    "usage: lnbench accuracy [options]\n"
    "Runs each kernel on each input case and measures its output against the correctly rounded\n"
    "MPFR reference; prints a table and writes one CSV row per kernel and case (results/README.md).\n"
    "Each --D with each --rows; with --dist file:PATH the file's shape, and --D and --rows cannot\n"
    "be given. --op: the kernels and reference (backward: max_ulp etc. measure dx; dy is normal;\n"
    "docs/ops.md).\n";
static const char accuracy_help_more[] =
    "  --saved-stats T backward: the statistics given to the kernels: the exact ones rounded to\n"
    "                  f64 or f32, or kernel:NAME, those a run of forward kernel NAME (of the op's\n"
    "                  forward and the cases' dtype) returns on the same x, gamma, beta, eps;\n"
    "                  dx_saved_* measure dx against the reference with them   (default: f64)\n"
    "  --no-affine     gamma = 1, beta = 0 (kernels get NULL)      (default: gamma, beta drawn)\n"
    "  --gamma FILE    gamma from a 1-D float32/float64 .npy of D values (default: drawn)\n"
    "  --beta FILE     beta likewise                               (default: drawn)\n"
    "  --input R=FILE  the op's rows x D input R other than x (dy) from a 2-D .npy of rows x D\n"
    "                  values, as `lnbench hunt` writes them       (default: drawn, normal)\n"
    "  --out FILE      the CSV; FILE.meta.json gets the run's metadata\n"
    "                                                              (default: results/accuracy.csv)\n"
    "  --force         replace results/accuracy.csv when --out is not given (else kept: exit 2)\n"
    "  --dump DIR      per case, DIR/<dtype>_<dist>_D<D>_rows<R>_eps<eps>/ gets x, gamma, beta,\n"
    "                  y_ref, y_exact (f8) and y_<kernel> as .npy (bf16 as uint16 bit patterns)\n"
    "                                                              (default: no dump)\n"
    "  --shard K/N     only the cases i with i mod N = K - 1, in the same order: N runs (K = 1..N)\n"
    "                  together write the unsharded rows (docs/shards.md)  (default: 1/1)\n"
    "  --check         exit status 1 when any case's verdict is fail, one line per failure on\n"
    "                  stdout with the command that dumps it            (default: exit 0)\n"
    "  --quiet         no table, no progress                       (default: both)\n"
    "  --help          this text\n"
    "Each case gets a verdict against the kernel's contract (kernels/kernel.h): pass, fail, outside\n"
    "(the case is outside the domain where the kernel claims its bound, or its input degenerated\n"
    "when stored in the dtype) or none (no bound claimed); see results/README.md.\n"
    "Ctrl-C stops after the current kernel, writes the rows done so far and exits with 130.\n";

static const ln_problem_spec accuracy_problem = {.verb = "accuracy",
                                                 .takes = LN_TAKES(LN_OPT_KERNELS) | LN_TAKES(LN_OPT_D) |
                                                          LN_TAKES(LN_OPT_ROWS) | LN_TAKES(LN_OPT_EPS) |
                                                          LN_TAKES(LN_OPT_DIST) | LN_TAKES(LN_OPT_SEED),
                                                 .D_min = 1,
                                                 .D_max = 1LL << 40,
                                                 .D = "768,4096",
                                                 .rows = "16",
                                                 .eps = "1e-5",
                                                 .dist = "normal,offset:1e4,const",
                                                 .seed = "1"};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    if (interrupted) ln_out_remove_on_signal(sig); /* a second Ctrl-C ends the program at once, files removed */
    interrupted = 1;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A .npy vector for --gamma/--beta: 1-D, its length checked against every D later. */
static ln_npy_array read_vector(const char *path, const char *flag)
{
    ln_npy_array a;
    const char *err = ln_npy_read(path, &a);
    if (err) ln_die_usage("%s: file '%s': %s", flag, path, err);
    if (a.ndim != 1)
        ln_die_usage("%s: file '%s' holds a %zu x %zu array; a vector (1-D) of D values is needed", flag, path, a.rows,
                     a.cols);
    return a;
}

/* Refuses cases that cannot fit: the measured peak of one case (ln_case_bytes) against the
 * machine's physical memory, before any work. */
static void check_memory(size_t rows, size_t D, ln_dtype t)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double phys = pages > 0 && page > 0 ? (double)pages * (double)page : 1e18;
    double need = ln_case_bytes(ln_cli_op, t, rows, D);
    if (need > 0.75 * phys)
        ln_die_usage("%zu rows x D %zu needs %.3g GiB for one case; this machine has %.3g GiB: use fewer --rows or a "
                     "smaller --D",
                     rows, D, need / 1073741824.0, phys / 1073741824.0);
}

/* dist specs may hold ':' and '/' (file:PATH): the folder name keeps [A-Za-z0-9.+-] and uses '_'. */
static void dump_folder(char *buf, size_t len, const char *dir, ln_dtype t, const char *dist, size_t D, size_t rows,
                        double eps)
{
    char safe[96];
    ln_out_safe_name(safe, sizeof safe, dist);
    snprintf(buf, len, "%s/%s_%s_D%zu_rows%zu_eps%g", dir, ln_fmt(t)->name, safe, D, rows, eps);
}

static void dump_array(const char *folder, const char *name, ln_dtype t, int ndim, size_t rows, size_t cols,
                       const void *data)
{
    size_t len = strlen(folder) + strlen(name) + 8;
    char *path = malloc(len);
    if (!path) ln_die("out of memory");
    snprintf(path, len, "%s/%s.npy", folder, name);
    ln_npy_write(path, t, ndim, rows, cols, data);
    free(path);
}

static void dump_inputs(const char *folder, const ln_prepared *p)
{
    const ln_case *c = &p->c;
    dump_array(folder, "x", c->dtype, 2, c->rows, c->D, p->x);
    if (p->gamma) {
        dump_array(folder, "gamma", c->dtype, 1, 1, c->D, p->gamma);
        dump_array(folder, "beta", c->dtype, 1, 1, c->D, p->beta);
    }
    dump_array(folder, "y_ref", c->dtype, 2, c->rows, c->D, p->y_ref);
    dump_array(folder, "y_exact", LN_F64, 2, c->rows, c->D, p->y_hi);
}

typedef struct {
    size_t done, total;
    int show, tty;
} progress;

static void progress_clear(progress *pr)
{
    if (pr->show && pr->tty) fputs("\r\033[K", stderr);
}

static void progress_show(progress *pr, const char *kernel, const char *dist, size_t D, double eps)
{
    if (!pr->show) return;
    fprintf(stderr, "%s[%zu/%zu] %s %s D=%zu eps=%g%s", pr->tty ? "\r\033[K" : "", pr->done + 1, pr->total, kernel,
            dist, D, eps, pr->tty ? "" : "\n");
    fflush(stderr);
}

/* The run as the command line asks for it, checked before any work. */
typedef struct {
    const ln_kernel **ks;
    size_t nk;
    int affine, quiet, check;
    int out_given, force;          /* --out, --force: the default output is kept unless forced */
    int saved_f32;                 /* --saved-stats f32 */
    const char *saved_kernel_name; /* --saved-stats kernel:NAME */
    const ln_kernel *saved_kernel;
    ln_shard shard;
    const char *gamma_path, *beta_path, *out_path, *dump_dir;
    ln_npy_array gamma_file, beta_file;
    const char *input_path[LN_MAX_ROLES]; /* --input R=FILE, by R's role in the op */
    ln_npy_array input_file[LN_MAX_ROLES];
    ln_problem_args pa; /* --kernels, --dist, --D, --rows, --eps, --seed */
    /* the kernels' formats (dtype and residual format), in the order their first kernel appears */
    struct {
        ln_dtype dtype, resid;
    } fmts[LN_NDTYPES * LN_NDTYPES];
    size_t ndt;
    size_t total; /* kernel x case rows the run writes */
} run_options;

/* --input R=FILE: R one of the op's rows x D inputs but x (which --dist file: gives). */
static void parse_input(run_options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    const ln_op_info *op = &ln_ops[ln_cli_op];
    for (size_t i = 0; eq && i < op->n_roles; i++) {
        const ln_role *r = &op->roles[i];
        if (r->kind != LN_ROLE_IN || r->shape != LN_SHAPE_ROWS_D || strcmp(r->name, "x") == 0 ||
            strncmp(r->name, arg, (size_t)(eq - arg)) != 0 || r->name[eq - arg] != 0)
            continue;
        o->input_path[i] = eq + 1;
        return;
    }
    ln_die_usage("--input: '%s' is not R=FILE with R a rows x D input of %s other than x (x: --dist file:)", arg,
                 op->name);
}

static void parse_flags(int argc, char **argv, run_options *o)
{
    enum {
        O_NOAFFINE = 1,
        O_GAMMA,
        O_BETA,
        O_OUT,
        O_DUMP,
        O_CHECK,
        O_QUIET,
        O_HELP,
        O_SHARD,
        O_SAVED,
        O_FORCE,
        O_INPUT
    };
    static const struct option opts[] = {LN_PROBLEM_OPTIONS,
                                         {"no-affine", no_argument, 0, O_NOAFFINE},
                                         {"gamma", required_argument, 0, O_GAMMA},
                                         {"beta", required_argument, 0, O_BETA},
                                         {"out", required_argument, 0, O_OUT},
                                         {"dump", required_argument, 0, O_DUMP},
                                         {"check", no_argument, 0, O_CHECK},
                                         {"quiet", no_argument, 0, O_QUIET},
                                         {"help", no_argument, 0, O_HELP},
                                         {"shard", required_argument, 0, O_SHARD},
                                         {"saved-stats", required_argument, 0, O_SAVED},
                                         {"force", no_argument, 0, O_FORCE},
                                         {"input", required_argument, 0, O_INPUT},
                                         {0, 0, 0, 0}};
    *o = (run_options){.out_path = "results/accuracy.csv", .affine = 1, .shard = {0, 1}};
    ln_problem_args_init(&o->pa, &accuracy_problem);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_NOAFFINE: o->affine = 0; break;
        case O_GAMMA: o->gamma_path = optarg; break;
        case O_BETA: o->beta_path = optarg; break;
        case O_OUT: o->out_path = optarg, o->out_given = 1; break;
        case O_FORCE: o->force = 1; break;
        case O_DUMP: o->dump_dir = optarg; break;
        case O_CHECK: o->check = 1; break;
        case O_SHARD: o->shard = ln_parse_shard(optarg); break;
        case O_QUIET: o->quiet = 1; break;
        case O_INPUT: parse_input(o, optarg); break;
        case O_SAVED:
            o->saved_kernel_name = strncmp(optarg, "kernel:", 7) ? NULL : optarg + 7;
            if (!o->saved_kernel_name && strcmp(optarg, "f64") && strcmp(optarg, "f32"))
                ln_die_usage("--saved-stats: '%s'; valid: f64, f32, kernel:NAME", optarg);
            o->saved_f32 = !strcmp(optarg, "f32");
            break;
        case O_HELP: ln_problem_help(stdout, accuracy_help, &accuracy_problem, accuracy_help_more); exit(0);
        default:
            if (ln_problem_arg(&o->pa, c, optarg)) break;
            ln_die_usage("accuracy: unknown option or missing value '%s'; see 'lnbench accuracy --help'",
                         argv[optind - 1]);
        }
    }
    if (optind < argc) ln_die_usage("accuracy: unexpected argument '%s'", argv[optind]);
}

/* The ops that read saved statistics (kernels/ops.def: a forward op of their own), comma-separated. */
static const char *saved_ops(void)
{
    static char list[LN_NOPS * 32];
    for (int op = 0; op < LN_NOPS; op++)
        if (ln_ops[op].forward != (ln_op)op)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", ln_ops[op].name);
    return list;
}

/* --saved-stats kernel:NAME: a forward kernel of the op's forward, runnable here, of the one
 * dtype the selected kernels have. */
static void find_saved_kernel(run_options *o)
{
    const char *name = o->saved_kernel_name;
    ln_op forward = ln_ops[ln_cli_op].forward;
    if (forward == ln_cli_op)
        ln_die_usage("--saved-stats kernel:%s: saved statistics are for the ops that read them (%s)", name,
                     saved_ops());
    size_t n = 0;
    const char **names = malloc(ln_kernel_count() * sizeof *names);
    if (!names) ln_die("out of memory");
    for (size_t i = 0; i < ln_kernel_count(); i++) {
        const ln_kernel *k = ln_kernel_at(i);
        if (k->op != forward) continue;
        if (!strcmp(k->name, name)) o->saved_kernel = k;
        names[n++] = k->name;
    }
    const char *near = ln_did_you_mean(name, names, n);
    free(names);
    const ln_kernel *other = ln_kernel_find(name);
    if (!o->saved_kernel && other)
        ln_die_usage("--saved-stats: %s is a %s kernel; --op %s needs the statistics of a %s kernel", name,
                     ln_op_name(other->op), ln_op_name(ln_cli_op), ln_op_name(forward));
    if (!o->saved_kernel) {
        if (near)
            ln_die_usage("--saved-stats: no %s kernel named '%s'; did you mean 'kernel:%s'?", ln_op_name(forward), name,
                         near);
        ln_die_usage("--saved-stats: no %s kernel named '%s' ('lnbench list --op %s' shows them)", ln_op_name(forward),
                     name, ln_op_name(forward));
    }
    if (!ln_kernel_available(o->saved_kernel))
        ln_die_usage("--saved-stats: %s does not run on this CPU (lnbench list says why)", name);
    for (size_t i = 0; i < o->ndt; i++) {
        const char *want = ln_fmt(o->fmts[i].dtype)->name, *have = ln_fmt(o->saved_kernel->dtype)->name;
        if (o->fmts[i].dtype != o->saved_kernel->dtype)
            ln_die_usage("--saved-stats: %s is a %s kernel; the selected %s kernels need %s statistics", name, have,
                         want, want);
    }
}

/* The lists behind the flags: kernels, dists, D, rows, eps, gamma/beta files. */
static void parse_lists(run_options *o)
{
    o->nk = ln_problem_kernels(&o->pa, &o->ks);
    int any_file = 0;
    for (size_t i = 0; i < o->pa.ndists; i++) any_file |= o->pa.dists[i].kind == LN_DIST_FILE;
    if (any_file && (o->pa.given & (LN_TAKES(LN_OPT_D) | LN_TAKES(LN_OPT_ROWS))))
        ln_die_usage("--D and --rows cannot be given with a file: distribution, whose shape fixes them");
    if (!o->affine && (o->gamma_path || o->beta_path))
        ln_die_usage("--no-affine cannot be combined with --gamma or --beta");
    if (o->gamma_path) o->gamma_file = read_vector(o->gamma_path, "--gamma");
    if (o->beta_path) o->beta_file = read_vector(o->beta_path, "--beta");
    for (size_t i = 0; i < LN_MAX_ROLES; i++)
        if (o->input_path[i]) {
            const char *err = ln_npy_read(o->input_path[i], &o->input_file[i]);
            if (err) ln_die_usage("--input: file '%s': %s", o->input_path[i], err);
        }
    size_t per_format[LN_NDTYPES][LN_NDTYPES] = {{0}};
    for (size_t i = 0; i < o->nk; i++) {
        ln_dtype t = o->ks[i]->dtype, r = ln_kernel_resid(o->ks[i]);
        if (per_format[t][r]++ == 0) o->fmts[o->ndt].dtype = t, o->fmts[o->ndt++].resid = r;
    }
    if (o->saved_kernel_name) find_saved_kernel(o);
}

/* A dist's shapes: the file's, or every --D with every --rows (D outer). */
static size_t shapes_of(const run_options *o, const ln_dist *d)
{
    return d->kind == LN_DIST_FILE ? 1 : o->pa.nD * o->pa.nrows;
}
/* The problem of format di, dist j, shape s and eps e. */
static ln_problem problem_of(const run_options *o, size_t di, size_t j, size_t s, size_t e)
{
    ln_problem pb = ln_problem_at(&o->pa, o->fmts[di].dtype, s / o->pa.nrows, s % o->pa.nrows, e, j, 0);
    pb.resid = o->fmts[di].resid;
    return pb;
}

/* Every case's shape against the gamma/beta files and the machine's memory; counts the rows
 * this shard writes. */
static void check_shapes(run_options *o)
{
    size_t widest = 0;
    for (size_t i = 0; i < o->ndt; i++)
        if (ln_fmt(o->fmts[i].dtype)->size > ln_fmt(o->fmts[widest].dtype)->size) widest = i;
    for (size_t j = 0; j < o->pa.ndists; j++) {
        for (size_t s = 0; s < shapes_of(o, &o->pa.dists[j]); s++) {
            ln_problem pb = problem_of(o, widest, j, s, 0);
            size_t D = pb.D;
            if (o->gamma_path && o->gamma_file.cols != D)
                ln_die_usage("--gamma: file '%s' holds %zu values; D is %zu", o->gamma_path, o->gamma_file.cols, D);
            if (o->beta_path && o->beta_file.cols != D)
                ln_die_usage("--beta: file '%s' holds %zu values; D is %zu", o->beta_path, o->beta_file.cols, D);
            for (size_t i = 0; i < LN_MAX_ROLES; i++)
                if (o->input_path[i] && (o->input_file[i].cols != D || o->input_file[i].rows != pb.rows))
                    ln_die_usage("--input: file '%s' holds %zu x %zu values; the case is %zu x %zu", o->input_path[i],
                                 o->input_file[i].rows, o->input_file[i].cols, pb.rows, D);
            check_memory(pb.rows, D, o->fmts[widest].dtype);
        }
    }
    /* the cases in run order (dtype, dist, shape, eps), as run_all numbers them */
    for (size_t di = 0, i = 0; di < o->ndt; di++)
        for (size_t j = 0; j < o->pa.ndists; j++)
            for (size_t s = 0; s < shapes_of(o, &o->pa.dists[j]) * o->pa.neps; s++, i++)
                if (ln_shard_takes(o->shard, i))
                    for (size_t k = 0; k < o->nk; k++)
                        o->total += ln_kernel_formats(o->ks[k], o->fmts[di].dtype, o->fmts[di].resid);
}

static void free_options(run_options *o)
{
    free(o->gamma_file.data);
    free(o->beta_file.data);
    for (size_t i = 0; i < LN_MAX_ROLES; i++) free(o->input_file[i].data);
    ln_problem_args_free(&o->pa);
    free(o->ks);
}

/* The shortest decimal that reads back as v, so a printed command reproduces the case. */
static void exact_decimal(char *buf, size_t len, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* An argument as a POSIX shell reads it back: quoted when it holds anything but safe characters. */
static void shell_arg(FILE *f, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:/+=-") == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    fputc('\'', f);
}

/* One --check failure line: the kernel, the case, the error against the bound, the deciding
 * row and column, and the command that dumps the case (into lnbench-dump/, not results/). */
static void print_failure(FILE *f, const run_options *o, const ln_kernel *k, const ln_case *cs, const ln_verdict *v)
{
    char eps[32];
    exact_decimal(eps, sizeof eps, cs->eps);
    fprintf(f, "FAIL %s %s dist=%s D=%zu rows=%zu eps=%s: ", k->name, ln_fmt(cs->dtype)->name, cs->dist.spec, cs->D,
            cs->rows, eps);
    if (!strcmp(v->failed_on, "input-written")) fputs("the kernel changed one of its const inputs", f);
    else
        fprintf(f, "%s error %.6g u > bound %.6g u (domain %s)", *v->failed_on ? v->failed_on : "y", v->error, v->bound,
                v->domain);
    fprintf(f, ", row %zu col %zu; dump: lnbench accuracy --kernels ", v->row, v->col);
    shell_arg(f, k->name);
    fputs(" --dist ", f);
    shell_arg(f, cs->dist.spec);
    if (cs->dist.kind != LN_DIST_FILE) fprintf(f, " --D %zu --rows %zu", cs->D, cs->rows);
    fprintf(f, " --eps %s --seed %llu", eps, (unsigned long long)cs->seed);
    if (!cs->affine) fputs(" --no-affine", f);
    if (cs->op != 0) fprintf(f, " --op %s", ln_op_name(cs->op)); /* not the default, the table's first */
    if (cs->saved_f32) fputs(" --saved-stats f32", f);
    if (cs->saved_kernel) fputs(" --saved-stats kernel:", f), shell_arg(f, cs->saved_kernel->name);
    if (o->gamma_path) fputs(" --gamma ", f), shell_arg(f, o->gamma_path);
    if (o->beta_path) fputs(" --beta ", f), shell_arg(f, o->beta_path);
    for (size_t i = 0; i < LN_MAX_ROLES; i++)
        if (o->input_path[i]) fprintf(f, " --input %s=", ln_ops[cs->op].roles[i].name), shell_arg(f, o->input_path[i]);
    fputs(" --out lnbench-dump/accuracy.csv --dump lnbench-dump\n", f);
}

static void write_csv_row(FILE *f, const ln_kernel *k, const ln_case *cs, const ln_errors *er, const ln_verdict *v,
                          const ln_prepared *p, double ref_seconds)
{
    ln_csv_row r;
    ln_row_start(&r, LN_SCHEMA_ACC);
    ln_row_text(&r, LNC_ACC_kernel, k->name);
    ln_row_text(&r, LNC_ACC_dtype, ln_fmt(cs->dtype)->name);
    ln_row_text(&r, LNC_ACC_dist, cs->dist.spec);
    ln_row_count(&r, LNC_ACC_D, cs->D);
    ln_row_count(&r, LNC_ACC_rows, cs->rows);
    ln_row_num(&r, LNC_ACC_eps, cs->eps);
    ln_row_count(&r, LNC_ACC_seed, cs->seed);
    ln_row_num(&r, LNC_ACC_max_ulp, er->max_ulp);
    ln_row_num(&r, LNC_ACC_mean_ulp, er->mean_ulp);
    ln_row_num(&r, LNC_ACC_cr_frac, er->cr_frac);
    ln_row_num(&r, LNC_ACC_max_norm, er->max_norm);
    ln_row_count(&r, LNC_ACC_nonfinite, er->nonfinite);
    ln_row_count(&r, LNC_ACC_worst_row, er->worst_row);
    ln_row_count(&r, LNC_ACC_worst_col, er->worst_col);
    ln_row_num(&r, LNC_ACC_worst_x, er->worst_x);
    ln_row_num(&r, LNC_ACC_worst_y, er->worst_y);
    ln_row_num(&r, LNC_ACC_worst_y_exact, er->worst_y_exact);
    ln_row_num(&r, LNC_ACC_mean_relerr, er->mean_relerr);
    ln_row_num(&r, LNC_ACC_rstd_relerr, er->rstd_relerr);
    ln_row_num(&r, LNC_ACC_kappa_max, ln_kappa_max(p));
    ln_row_num(&r, LNC_ACC_bound, v->bound);
    ln_row_text(&r, LNC_ACC_verdict, ln_verdict_names[v->verdict]);
    ln_row_text(&r, LNC_ACC_domain, v->domain);
    ln_row_text(&r, LNC_ACC_input, ln_input_names[v->input]);
    ln_row_text(&r, LNC_ACC_op, ln_op_name(cs->op));
    ln_row_num(&r, LNC_ACC_dgamma_max_ulp, er->dgamma_max_ulp);
    ln_row_num(&r, LNC_ACC_dgamma_max_norm, er->dgamma_max_norm);
    ln_row_num(&r, LNC_ACC_dbeta_max_ulp, er->dbeta_max_ulp);
    ln_row_num(&r, LNC_ACC_dbeta_max_norm, er->dbeta_max_norm);
    ln_row_num(&r, LNC_ACC_dgamma_kappa, p->dgamma_kappa);
    ln_row_num(&r, LNC_ACC_dbeta_kappa, p->dbeta_kappa);
    char saved[512] = "";
    if (cs->saved_kernel) snprintf(saved, sizeof saved, "kernel:%s", cs->saved_kernel->name);
    else if (ln_ops[cs->op].forward != cs->op) strcpy(saved, cs->saved_f32 ? "f32" : "f64"); /* reads saved stats */
    ln_row_text(&r, LNC_ACC_saved_stats, saved);
    ln_row_num(&r, LNC_ACC_dx_saved_max_ulp, er->dx_saved_max_ulp);
    ln_row_num(&r, LNC_ACC_dx_saved_max_norm, er->dx_saved_max_norm);
    ln_row_count(&r, LNC_ACC_rows_judged, v->rows_judged);
    ln_row_count(&r, LNC_ACC_rows_set_aside, v->rows_set_aside);
    ln_row_text(&r, LNC_ACC_failed_on, v->failed_on);
    /* ref_seconds last: the one column that differs between two runs of the same cases */
    ln_row_num(&r, LNC_ACC_ref_seconds, ref_seconds);
    ln_row_write(f, &r);
}

static void print_table_header(void)
{
    printf("%-28s %-14s %6s %-7s %10s %10s %8s %10s %9s %10s  %s\n", "kernel", "dist", "D", "eps", "max_ulp",
           "mean_ulp", "cr_frac", "max_norm", "nonfinite", "bound", "verdict");
}

static void print_table_row(const ln_kernel *k, const ln_case *cs, const ln_errors *er, const ln_verdict *v)
{
    char aside[64] = ""; /* rows judged one by one: say how many were not */
    if (v->rows_set_aside && v->rows_judged)
        snprintf(aside, sizeof aside, " (%zu of %zu rows set aside)", v->rows_set_aside, cs->rows);
    printf("%-28s %-14s %6zu %-7g %10.3g %10.3g %8.4f %10.3g %9zu %10.3g  %s%s%s%s\n", k->name, cs->dist.spec, cs->D,
           cs->eps, er->max_ulp, er->mean_ulp, er->cr_frac, er->max_norm, er->nonfinite, v->bound,
           ln_verdict_names[v->verdict], strcmp(v->domain, "ok") ? " " : "", strcmp(v->domain, "ok") ? v->domain : "",
           aside);
    fflush(stdout);
}

/* What the run has done so far. */
typedef struct {
    progress pr;
    FILE *csv;
    FILE *failures; /* --check lines, printed at the end */
    size_t failed;
} run_state;

/* The run as far as it went, for a kernel that takes its process down with it. */
typedef struct {
    run_options *o;
    run_state *st;
    ln_outfile *out, *meta;
    int argc;
    char **argv;
    const ln_case *cs;
} live_run;
static live_run live;

/* One case: the reference once, then every kernel of its dtype measured, judged and written. */
static void run_case(const run_options *o, const ln_case *cs, run_state *st)
{
    live.cs = cs;
    progress_show(&st->pr, "reference", cs->dist.spec, cs->D, cs->eps);
    ln_prepared p;
    double t0 = now_seconds();
    if (ln_prepare(cs, &p) != 0) ln_die("could not prepare the case %s D=%zu", cs->dist.spec, cs->D);
    double ref_seconds = now_seconds() - t0;
    char folder[4200];
    void *y = malloc(cs->rows * cs->D * ln_fmt(cs->dtype)->size);
    if (!y) ln_die("out of memory");
    if (o->dump_dir) {
        dump_folder(folder, sizeof folder, o->dump_dir, cs->dtype, cs->dist.spec, cs->D, cs->rows, cs->eps);
        dump_inputs(folder, &p);
    }
    for (size_t k = 0; k < o->nk && !interrupted; k++) {
        const ln_kernel *kern = o->ks[k];
        if (!ln_kernel_formats(kern, cs->dtype, cs->resid)) continue;
        progress_show(&st->pr, kern->name, cs->dist.spec, cs->D, cs->eps);
        ln_errors er;
        ln_verdict v;
        /* a plugin's kernel runs in a process of its own: one that crashes or exits keeps the
         * rows before it (a built-in kernel, tested code, runs in-process: a fork costs about a
         * third of a reference per kernel, docs/metrics.md) */
        ln_isolate_kernels = ln_kernel_find(kern->name) != kern;
        ln_measure_kernel(kern, &p, &er, y);
        ln_judge(kern, &p, y, &v);
        if (o->dump_dir) {
            char name[128], safe[120];
            ln_out_safe_name(safe, sizeof safe, kern->name); /* a plugin's name cannot leave the folder */
            snprintf(name, sizeof name, "y_%s", safe);
            dump_array(folder, name, cs->dtype, 2, cs->rows, cs->D, y);
        }
        write_csv_row(st->csv, kern, cs, &er, &v, &p, ref_seconds);
        if (v.verdict == LN_FAIL) {
            st->failed++;
            if (o->check) print_failure(st->failures, o, kern, cs, &v);
        }
        st->pr.done++;
        if (!o->quiet) {
            progress_clear(&st->pr);
            print_table_row(kern, cs, &er, &v);
        }
    }
    free(y);
    ln_prepared_free(&p);
}

/* Every case of this shard, dtype by dtype (so each dtype's references are computed once per
 * case). */
static void run_all(const run_options *o, run_state *st)
{
    size_t case_index = 0;
    for (size_t di = 0; di < o->ndt && !interrupted; di++)
        for (size_t j = 0; j < o->pa.ndists && !interrupted; j++) {
            for (size_t s = 0; s < shapes_of(o, &o->pa.dists[j]) && !interrupted; s++)
                for (size_t e = 0; e < o->pa.neps && !interrupted; e++) {
                    if (!ln_shard_takes(o->shard, case_index++)) continue;
                    ln_case cs = {.problem = problem_of(o, di, j, s, e),
                                  .affine = o->affine,
                                  .gamma_src = o->gamma_file.data,
                                  .beta_src = o->beta_file.data,
                                  .saved_f32 = o->saved_f32,
                                  .saved_kernel = o->saved_kernel};
                    for (size_t i = 0; i < LN_MAX_ROLES; i++) cs.input_src[i] = o->input_file[i].data;
                    run_case(o, &cs, st);
                }
        }
}

/* The metadata and the CSV of the rows done so far, put in place. */
static void commit_results(run_options *o, ln_outfile *out, ln_outfile *meta, int argc, char **argv)
{
    char shard[32]; /* K/N, so that a merge of the shards can tell which are missing */
    snprintf(shard, sizeof shard, "%u/%u", o->shard.index + 1, o->shard.count);
    /* main passes argv + 1: include the program */
    ln_meta_write_json_extra(meta->f, o->pa.seed, argc + 1, argv - 1, "shard", shard);
    fputc('\n', meta->f);
    ln_out_commit(meta);
    ln_out_commit(out);
}

/* A kernel crashed or ended its process (it ran in a child, ln_isolate_kernels): the rows
 * before it are kept, the run ends with status 3. */
static _Noreturn void kernel_died(const ln_kernel *k, const char *how)
{
    const ln_case *cs = live.cs;
    progress_clear(&live.st->pr);
    fprintf(stderr, "lnbench: kernel %s %s on %s dist=%s D=%zu rows=%zu eps=%g; the %zu rows before it are in %s\n",
            k->name, how, ln_fmt(cs->dtype)->name, cs->dist.spec, cs->D, cs->rows, cs->eps, live.st->pr.done,
            live.o->out_path);
    commit_results(live.o, live.out, live.meta, live.argc, live.argv);
    fflush(stdout);
    exit(3);
}

int cmd_accuracy(int argc, char **argv)
{
    run_options o;
    parse_flags(argc, argv, &o);
    parse_lists(&o);
    check_shapes(&o);
    ln_print_skip_note(); /* the arguments are good: now the kernels left out */
    if (o.dump_dir) {     /* creates the folder and proves it writable */
        char probe[4200];
        ln_outfile pf;
        snprintf(probe, sizeof probe, "%s/.probe", o.dump_dir);
        ln_out_open(&pf, probe);
        ln_out_abort(&pf);
    }
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", o.out_path);
    ln_outfile out, meta;
    ln_keep_results("accuracy", o.out_path, o.out_given, o.force);
    ln_out_open(&out, o.out_path);
    ln_out_open(&meta, meta_path); /* opened now so that a long run cannot end unwritable */
    ln_schema_write_header(out.f, LN_SCHEMA_ACC);

    struct sigaction sa = {.sa_handler = on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* `lnbench accuracy | head`: the table is lost, the CSV still written */
    run_state st = {.pr = {.total = o.total, .show = !o.quiet && o.total > 4, .tty = isatty(2)},
                    .csv = out.f,
                    .failures = tmpfile()};
    if (!st.failures) ln_die("cannot create a temporary file for --check");
    if (!o.quiet) print_table_header();
    live = (live_run){.o = &o, .st = &st, .out = &out, .meta = &meta, .argc = argc, .argv = argv};
    ln_kernel_died = kernel_died;
    run_all(&o, &st);
    ln_isolate_kernels = 0, ln_kernel_died = NULL;
    progress_clear(&st.pr);
    commit_results(&o, &out, &meta, argc, argv);
    if (interrupted) fprintf(stderr, "interrupted: %zu of %zu cases written to %s\n", st.pr.done, o.total, o.out_path);
    else if (!o.quiet) fprintf(stderr, "wrote %zu rows to %s\n", st.pr.done, o.out_path);
    rewind(st.failures);
    for (int ch; (ch = fgetc(st.failures)) != EOF;) putchar(ch);
    fclose(st.failures);
    if (o.check) fprintf(stderr, "check: %zu of %zu cases fail their kernel's bound\n", st.failed, st.pr.done);
    free_options(&o);
    if (interrupted) return 130;
    return o.check && st.failed ? 1 : 0;
}
