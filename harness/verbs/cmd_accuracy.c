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
#include "cli.h"
#include "meta.h"
#include "npy.h"
#include "outfile.h"
#include "verbs.h"

static const char accuracy_help[] =
    "usage: lnbench accuracy [options]\n"
    "Runs each kernel on each input case and measures its output against the correctly rounded\n"
    "MPFR reference; prints a table and writes one CSV row per kernel and case (results/README.md).\n"
    "  --kernels LIST  kernel names or globs, comma-separated     (default: every kernel this CPU runs)\n"
    "  --op OP         layernorm, rmsnorm, layernorm-bwd, rmsnorm-bwd: the kernels and reference\n"
    "                  (backward: max_ulp etc. measure dx; dy is normal; docs/ops.md)  (default: layernorm)\n"
    "  --saved-stats T backward: the statistics given to the kernels, the exact ones rounded to\n"
    "                  f64 or f32; dx_saved_* measure dx against the reference with them (default: f64)\n"
    "  --dist LIST     input distributions, comma-separated       (default: normal,offset:1e4,const)\n"
    "                  normal, uniform, offset:M, shifted, outlier:S, heavy, const, zero, tiny, huge,\n"
    "                  exact, file:PATH (a 2-D float32/float64 .npy whose shape fixes rows x D; --D\n"
    "                  and --rows cannot be given with it)\n"
    "  --D LIST        row lengths, comma-separated                (default: 768,4096)\n"
    "  --rows N        rows per case                               (default: 16)\n"
    "  --eps LIST      epsilons added to the variance              (default: 1e-5)\n"
    "  --seed N        seed of every distribution and of gamma/beta (default: 1)\n"
    "  --no-affine     gamma = 1, beta = 0 (kernels get NULL)      (default: gamma, beta drawn)\n"
    "  --gamma FILE    gamma from a 1-D float32/float64 .npy of D values (default: drawn)\n"
    "  --beta FILE     beta likewise                               (default: drawn)\n"
    "  --out FILE      the CSV; FILE.meta.json gets the run's metadata\n"
    "                                                              (default: results/accuracy.csv)\n"
    "  --dump DIR      per case, DIR/<dtype>_<dist>_D<D>_rows<R>_eps<eps>/ gets x, gamma, beta,\n"
    "                  y_ref, y_exact (f8) and y_<kernel> as .npy (bf16 as uint16 bit patterns)\n"
    "                                                              (default: no dump)\n"
    "  --shard K/N     only the cases i with i mod N = K - 1, in the same order: N runs (K = 1..N)\n"
    "                  together write the unsharded rows (docs/shards.md)  (default: 1/1)\n"
    "  --quiet         no table, no progress                       (default: both)\n"
    "  --help          this text\n"
    "Ctrl-C stops after the current kernel, writes the rows done so far and exits with 130.\n";

static const char csv_header[] =
    "kernel,dtype,dist,D,rows,eps,seed,max_ulp,mean_ulp,cr_frac,max_norm,nonfinite,worst_row,worst_col,"
    "worst_x,worst_y,worst_y_exact,mean_relerr,rstd_relerr,kappa_max,op,dgamma_max_ulp,dgamma_max_norm,"
    "dbeta_max_ulp,dbeta_max_norm,dgamma_kappa,dbeta_kappa,saved_stats,dx_saved_max_ulp,dx_saved_max_norm,"
    "ref_seconds";

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1; /* SA_RESETHAND: a second Ctrl-C ends the program at once */
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
    if (a.ndim != 1) ln_die_usage("%s: file '%s' holds a %zu x %zu array; a vector (1-D) of D values is needed", flag, path, a.rows, a.cols);
    return a;
}

/* Refuses cases that cannot fit: x, y_ref, the kernel's y (and a dump copy) in the dtype, plus
 * y_hi and y_lo in double, against the machine's physical memory. */
static void check_memory(size_t rows, size_t D, size_t elem_size)
{
    size_t per = 3 * elem_size + 2 * sizeof(double);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double phys = pages > 0 && page > 0 ? (double)pages * (double)page : 1e18;
    double need = (double)rows * (double)D * (double)per;
    if (need > 0.75 * phys)
        ln_die_usage("%zu rows x D %zu needs %.3g GiB for one case; this machine has %.3g GiB: use fewer --rows", rows,
                     D, need / 1073741824.0, phys / 1073741824.0);
}

/* dist specs may hold ':' and '/' (file:PATH); folder names keep [A-Za-z0-9.+-] and use '_'. */
static void dump_folder(char *buf, size_t len, const char *dir, ln_dtype t, const char *dist, size_t D, size_t rows,
                        double eps)
{
    char safe[96];
    size_t i = 0;
    for (; dist[i] && i + 1 < sizeof safe; i++) {
        char ch = dist[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr(".+-", ch);
        safe[i] = ok ? ch : '_';
    }
    safe[i] = 0;
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

/* A CSV field, quoted (quotes doubled) only when it holds a comma, a quote or a line break:
 * possible only in a file: path. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
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

int cmd_accuracy(int argc, char **argv)
{
    enum { O_KERNELS = 1, O_DIST, O_D, O_ROWS, O_EPS, O_SEED, O_NOAFFINE, O_GAMMA, O_BETA, O_OUT, O_DUMP, O_QUIET, O_HELP, O_SHARD, O_SAVED };
    static const struct option opts[] = {
        {"kernels", required_argument, 0, O_KERNELS}, {"dist", required_argument, 0, O_DIST},
        {"D", required_argument, 0, O_D},             {"rows", required_argument, 0, O_ROWS},
        {"eps", required_argument, 0, O_EPS},         {"seed", required_argument, 0, O_SEED},
        {"no-affine", no_argument, 0, O_NOAFFINE},    {"gamma", required_argument, 0, O_GAMMA},
        {"beta", required_argument, 0, O_BETA},       {"out", required_argument, 0, O_OUT},
        {"dump", required_argument, 0, O_DUMP},       {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},             {"shard", required_argument, 0, O_SHARD},
        {"saved-stats", required_argument, 0, O_SAVED},
        {0, 0, 0, 0}};
    const char *kernels_arg = NULL, *dist_arg = "normal,offset:1e4,const", *D_arg = NULL, *rows_arg = NULL;
    const char *eps_arg = "1e-5", *gamma_path = NULL, *beta_path = NULL, *out_path = "results/accuracy.csv";
    const char *dump_dir = NULL;
    uint64_t seed = 1;
    int affine = 1, quiet = 0, c, saved_f32 = 0;
    ln_shard shard = {0, 1};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_KERNELS: kernels_arg = optarg; break;
        case O_DIST: dist_arg = optarg; break;
        case O_D: D_arg = optarg; break;
        case O_ROWS: rows_arg = optarg; break;
        case O_EPS: eps_arg = optarg; break;
        case O_SEED: seed = (uint64_t)ln_parse_int(optarg, "--seed", 0, INT64_MAX); break;
        case O_NOAFFINE: affine = 0; break;
        case O_GAMMA: gamma_path = optarg; break;
        case O_BETA: beta_path = optarg; break;
        case O_OUT: out_path = optarg; break;
        case O_DUMP: dump_dir = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_SHARD: shard = ln_parse_shard(optarg); break;
        case O_SAVED:
            if (strcmp(optarg, "f64") && strcmp(optarg, "f32")) ln_die_usage("--saved-stats: '%s'; valid: f64, f32", optarg);
            saved_f32 = !strcmp(optarg, "f32");
            break;
        case O_HELP: fputs(accuracy_help, stdout); return 0;
        default:
            ln_die_usage("accuracy: unknown option or missing value '%s'; see 'lnbench accuracy --help'",
                         argv[optind - 1]);
        }
    }
    if (optind < argc) ln_die_usage("accuracy: unexpected argument '%s'", argv[optind]);

    /* ---- validate everything before any work ---- */
    const ln_kernel **ks;
    size_t nk = ln_select_kernels(kernels_arg ? kernels_arg : "*", &ks, 0);
    if (nk == 0) ln_die_usage("--kernels: none of the selected kernels runs on this CPU");

    size_t ndist, nD = 0, neps;
    char **dist_items = ln_split_list(dist_arg, "--dist", &ndist);
    ln_dist *dists = calloc(ndist, sizeof *dists);
    if (!dists) ln_die("out of memory");
    int any_file = 0;
    for (size_t i = 0; i < ndist; i++) {
        ln_dist_parse(dist_items[i], &dists[i]);
        any_file |= dists[i].kind == LN_DIST_FILE;
    }
    if (any_file && (D_arg || rows_arg))
        ln_die_usage("--D and --rows cannot be given with a file: distribution, whose shape fixes them");
    char **D_items = ln_split_list(D_arg ? D_arg : "768,4096", "--D", &nD);
    size_t *Ds = malloc(nD * sizeof *Ds);
    if (!Ds) ln_die("out of memory");
    for (size_t i = 0; i < nD; i++) Ds[i] = (size_t)ln_parse_int(D_items[i], "--D", 1, 1LL << 40);
    size_t rows = rows_arg ? (size_t)ln_parse_int(rows_arg, "--rows", 1, 1LL << 40) : 16;
    char **eps_items = ln_split_list(eps_arg, "--eps", &neps);
    double *epss = malloc(neps * sizeof *epss);
    if (!epss) ln_die("out of memory");
    for (size_t i = 0; i < neps; i++) {
        epss[i] = ln_parse_double(eps_items[i], "--eps");
        if (!(epss[i] >= 0)) ln_die_usage("--eps: %s is negative; eps must be >= 0", eps_items[i]);
    }

    if (!affine && (gamma_path || beta_path)) ln_die_usage("--no-affine cannot be combined with --gamma or --beta");
    ln_npy_array gamma_file = {0}, beta_file = {0};
    if (gamma_path) gamma_file = read_vector(gamma_path, "--gamma");
    if (beta_path) beta_file = read_vector(beta_path, "--beta");

    /* dtypes in the order their first kernel appears */
    ln_dtype dtypes[LN_NDTYPES];
    size_t ndt = 0, per_dtype[LN_NDTYPES] = {0};
    for (size_t i = 0; i < nk; i++) {
        if (per_dtype[ks[i]->dtype]++ == 0) dtypes[ndt++] = ks[i]->dtype;
    }
    size_t max_size = 0;
    for (size_t i = 0; i < ndt; i++)
        if (ln_fmt(dtypes[i])->size > max_size) max_size = ln_fmt(dtypes[i])->size;

    /* each dist's shapes: the file's, or every --D with --rows */
    size_t total = 0;
    for (size_t j = 0; j < ndist; j++) {
        size_t nshapes = dists[j].kind == LN_DIST_FILE ? 1 : nD;
        for (size_t s = 0; s < nshapes; s++) {
            size_t D = dists[j].kind == LN_DIST_FILE ? dists[j].file_D : Ds[s];
            size_t R = dists[j].kind == LN_DIST_FILE ? dists[j].file_rows : rows;
            if (gamma_path && gamma_file.cols != D)
                ln_die_usage("--gamma: file '%s' holds %zu values; D is %zu", gamma_path, gamma_file.cols, D);
            if (beta_path && beta_file.cols != D)
                ln_die_usage("--beta: file '%s' holds %zu values; D is %zu", beta_path, beta_file.cols, D);
            check_memory(R, D, max_size);
        }
    }
    /* the cases in run order (dtype, dist, shape, eps), as the loop below numbers them */
    for (size_t di = 0, i = 0; di < ndt; di++)
        for (size_t j = 0; j < ndist; j++)
            for (size_t s = 0; s < (dists[j].kind == LN_DIST_FILE ? 1 : nD) * neps; s++, i++)
                if (ln_shard_takes(shard, i)) total += per_dtype[dtypes[di]];

    if (dump_dir) { /* creates the folder and proves it writable */
        char probe[4200];
        ln_outfile o;
        snprintf(probe, sizeof probe, "%s/.probe", dump_dir);
        ln_out_open(&o, probe);
        ln_out_abort(&o);
    }
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", out_path);
    ln_outfile out, meta;
    ln_out_open(&out, out_path);
    ln_out_open(&meta, meta_path); /* opened now so that a long run cannot end unwritable */
    fprintf(out.f, "%s\n", csv_header);

    /* ---- run ---- */
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* `lnbench accuracy | head`: the table is lost, the CSV still written */
    progress pr = {.total = total, .show = !quiet && total > 4, .tty = isatty(2)};
    if (!quiet)
        printf("%-28s %-14s %6s %-7s %10s %10s %8s %10s %9s\n", "kernel", "dist", "D", "eps", "max_ulp", "mean_ulp",
               "cr_frac", "max_norm", "nonfinite");
    size_t case_index = 0;
    for (size_t di = 0; di < ndt && !interrupted; di++)
        for (size_t j = 0; j < ndist && !interrupted; j++) {
            const ln_dist *d = &dists[j];
            size_t nshapes = d->kind == LN_DIST_FILE ? 1 : nD;
            for (size_t s = 0; s < nshapes && !interrupted; s++)
                for (size_t e = 0; e < neps && !interrupted; e++) {
                    if (!ln_shard_takes(shard, case_index++)) continue;
                    ln_case cs = {.dtype = dtypes[di], .dist = *d, .eps = epss[e], .seed = seed, .affine = affine,
                                  .D = d->kind == LN_DIST_FILE ? d->file_D : Ds[s],
                                  .rows = d->kind == LN_DIST_FILE ? d->file_rows : rows,
                                  .gamma_src = gamma_file.data, .beta_src = beta_file.data, .op = ln_cli_op,
                                  .saved_f32 = saved_f32};
                    progress_show(&pr, "reference", d->spec, cs.D, cs.eps);
                    ln_prepared p;
                    double t0 = now_seconds();
                    if (ln_prepare(&cs, &p) != 0) ln_die("could not prepare the case %s D=%zu", d->spec, cs.D);
                    double ref_seconds = now_seconds() - t0, kappa_max = ln_kappa_max(&p);
                    char folder[4200];
                    void *y_dump = NULL;
                    if (dump_dir) {
                        dump_folder(folder, sizeof folder, dump_dir, cs.dtype, d->spec, cs.D, cs.rows, cs.eps);
                        dump_inputs(folder, &p);
                        y_dump = malloc(cs.rows * cs.D * ln_fmt(cs.dtype)->size);
                        if (!y_dump) ln_die("out of memory");
                    }
                    for (size_t k = 0; k < nk && !interrupted; k++) {
                        if (ks[k]->dtype != cs.dtype) continue;
                        progress_show(&pr, ks[k]->name, d->spec, cs.D, cs.eps);
                        ln_errors er;
                        ln_measure_kernel(ks[k], &p, &er, y_dump);
                        if (dump_dir) {
                            char name[128];
                            snprintf(name, sizeof name, "y_%s", ks[k]->name);
                            dump_array(folder, name, cs.dtype, 2, cs.rows, cs.D, y_dump);
                        }
                        fprintf(out.f, "%s,%s,", ks[k]->name, ln_fmt(cs.dtype)->name);
                        csv_field(out.f, d->spec);
                        fprintf(out.f, ",%zu,%zu,%.17g,%llu,%.17g,%.17g,%.17g,%.17g,%zu,%zu,%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
                                cs.D, cs.rows, cs.eps,
                                (unsigned long long)seed, er.max_ulp, er.mean_ulp, er.cr_frac, er.max_norm,
                                er.nonfinite, er.worst_row, er.worst_col, er.worst_x, er.worst_y, er.worst_y_exact,
                                er.mean_relerr, er.rstd_relerr, kappa_max);
                        fprintf(out.f, ",%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g,%.17g,%.17g\n",
                                ln_op_name(cs.op), er.dgamma_max_ulp, er.dgamma_max_norm, er.dbeta_max_ulp,
                                er.dbeta_max_norm, p.dgamma_kappa, p.dbeta_kappa,
                                ln_op_is_backward(cs.op) ? (saved_f32 ? "f32" : "f64") : "", er.dx_saved_max_ulp,
                                er.dx_saved_max_norm, ref_seconds);
                        pr.done++;
                        if (!quiet) {
                            progress_clear(&pr);
                            printf("%-28s %-14s %6zu %-7g %10.3g %10.3g %8.4f %10.3g %9zu\n", ks[k]->name, d->spec,
                                   cs.D, cs.eps, er.max_ulp, er.mean_ulp, er.cr_frac, er.max_norm, er.nonfinite);
                            fflush(stdout);
                        }
                    }
                    free(y_dump);
                    ln_prepared_free(&p);
                }
        }
    progress_clear(&pr);
    ln_meta_write_json(meta.f, seed, argc + 1, argv - 1); /* main passes argv + 1: include the program */
    fputc('\n', meta.f);
    ln_out_commit(&meta);
    ln_out_commit(&out);
    if (interrupted) fprintf(stderr, "interrupted: %zu of %zu cases written to %s\n", pr.done, total, out_path);
    else if (!quiet) fprintf(stderr, "wrote %zu rows to %s\n", pr.done, out_path);
    free(gamma_file.data);
    free(beta_file.data);
    free(epss);
    free(eps_items);
    free(Ds);
    free(D_items);
    for (size_t j = 0; j < ndist; j++) ln_dist_free(&dists[j]);
    free(dists);
    free(dist_items);
    free(ks);
    return interrupted ? 130 : 0;
}
