/* The report of a results folder: REPORT.md and report.html, summary first (machine, verdicts,
 * per dtype and regime the fastest kernel against the machine limit and the peers, the most
 * accurate kernel and what it costs, the Pareto front, warnings), details next, full tables
 * last. Reads bench.csv, accuracy.csv, conditioning.csv, eps.csv (each if present, columns by
 * name), their .meta.json sidecars, bench.json (skipped cases, frequency scaling) and the
 * figures in plots/. */
#ifndef LN_REPORT_H
#define LN_REPORT_H

/* Writes dir/REPORT.md and dir/report.html. Returns 0, or 2 (with a message) when dir holds
 * none of the result files. */
int ln_report_write(const char *dir);

#endif
