/* The report of a results folder: REPORT.md and report.html, summary first (machine, verdicts,
 * per dtype and regime the fastest kernel against the machine limit and the peers, the most
 * accurate kernel and what it costs, the Pareto front, warnings), details next, full tables
 * last. Reads bench.csv, accuracy.csv, conditioning.csv, eps.csv (each if present, columns by
 * name), their .meta.json sidecars, bench.json (skipped cases, frequency scaling) and the
 * figures in plots/. */
#ifndef LN_REPORT_H
#define LN_REPORT_H

#include "table.h"

/* Writes dir/REPORT.md and dir/report.html. Returns 0, or 2 (with a message) when dir holds
 * none of the result files. */
int ln_report_write(const char *dir);

/* The machine limit of a regime: the best median GB/s of the probes (probe-copy,
 * probe-stream) in that regime of a bench.csv, traffic counted as for kernels (x read + y
 * written). NAN when the file has no probe row in that regime; *probe (if not NULL) names the
 * probe. */
double ln_regime_limit(const ln_table *bench, const char *regime, const char **probe);

#endif
