/* lnbench list: every kernel compiled in, whether it can run here, and how it computes. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "columns.h"
#include "cpu.h"
#include "kernel.h"
#include "plugin.h"
#include "verbs.h"

static const char list_help[] =
    "usage: lnbench list [--csv] [--op OP]\n"
    "       lnbench list --columns FILE\n"
    "Lists every kernel (of OP, with --op): name, dtype, algorithm, ISA, operator, whether this CPU (capped by "
    "LNBENCH_ISA)\n"
    "can run it, and how it computes mean, variance and y, with the error bound it claims.\n"
    "  --csv    one line per kernel as CSV: name,dtype,algorithm,isa,available,how,op\n"
    "  --columns FILE  the columns of a result file (accuracy, bench, hunt, compare; .csv optional):\n"
    "           name, type, unit, meaning, in file order (results/README.md says more)\n";

/* One schema of columns.def: its columns in file order, each with its type, unit and meaning. */
static int list_columns(const char *file)
{
    int s = ln_schema_find(file);
    if (s < 0) {
        char names[256] = "";
        for (int i = 0; i < LN_SCHEMAS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", ln_schemas[i].file);
        ln_die_usage("list --columns: no result file '%s' (one of %s)", file, names);
    }
    printf("%s\n\n%-20s %-13s %-9s %s\n", ln_schemas[s].what, "column", "type", "unit", "meaning");
    ln_column first = ln_schema_first((ln_schema)s);
    for (size_t i = 0; i < ln_schema_count((ln_schema)s); i++) {
        const ln_column_info *c = &ln_columns[first + i];
        printf("%-20s %-13s %-9s %s\n", c->name, ln_col_kind_name(c->kind), *c->unit ? c->unit : "-", c->description);
    }
    return 0;
}

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"csv", no_argument, 0, 'c'},
                                         {"columns", required_argument, 0, 'C'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *columns = NULL;
    int csv = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'c') csv = 1;
        else if (c == 'C') columns = optarg;
        else if (c == 'h') return fputs(list_help, stdout), 0;
        else ln_die_usage("list: see 'lnbench list --help'");
    }
    if (optind < argc) ln_die_usage("list: unexpected argument '%s'", argv[optind]);
    if (columns) return list_columns(columns);
    char isa[128], alg[64];
    int w = 6, wa = 9; /* the name and algorithm columns fit their longest entries */
    for (size_t i = 0; i < ln_kernel_count(); i++) {
        if ((int)strlen(ln_kernel_at(i)->name) > w) w = (int)strlen(ln_kernel_at(i)->name);
        if ((int)strlen(ln_kernel_algorithm(ln_kernel_at(i), alg, sizeof alg)) > wa) wa = (int)strlen(alg);
    }
    if (csv) puts("name,dtype,algorithm,isa,available,how,op");
    else
        printf("CPU: %s; features: %s\n\n%-*s %-5s %-*s %-11s %-5s %-13s %s\n", ln_cpu_model(),
               ln_isa_names(ln_cpu_features(), isa, sizeof isa), w, "kernel", "dtype", wa, "algorithm", "isa", "here",
               "op", "how");
    for (size_t i = 0; i < ln_kernel_count(); i++) {
        const ln_kernel *k = ln_kernel_at(i);
        if (ln_cli_op_given && k->op != ln_cli_op) continue;
        const char *dt = ln_fmt(k->dtype)->name, *here = ln_kernel_available(k) ? "yes" : "no", *op = ln_op_name(k->op);
        ln_kernel_algorithm(k, alg, sizeof alg);
        if (csv) printf("%s,%s,%s,%s,%s,\"%s\",%s\n", k->name, dt, alg, ln_kernel_isa_name(k), here, k->how, op);
        else
            printf("%-*s %-5s %-*s %-11s %-5s %-13s %s\n", w, k->name, dt, wa, alg, ln_kernel_isa_name(k), here, op,
                   k->how);
    }
    return 0;
}
