/* The report of a results folder: REPORT.md and report.html. First screen: the machine and, per
 * operator, dtype and regime, the fastest kernel against the machine limit, the most accurate
 * one and what it costs, the fastest's error on its hardest distribution; then the verdicts, a
 * section per operator (speed against the peers, accuracy and cost, Pareto front, hardest
 * distribution, per-D and per-distribution tables), scaling with threads, warnings, figures,
 * full tables. Rows of one op or thread count never enter another's medians. Reads bench.csv, accuracy.csv, conditioning.csv, eps.csv (each if present, columns by
 * name) with the op runs' ops/accuracy-OP.csv and ops/bench-OP.csv, their .meta.json sidecars,
 * bench.json and ops/bench-OP.json (skipped cases per op, frequency scaling, load) and the
 * figures in plots/. */
#ifndef LN_REPORT_H
#define LN_REPORT_H

/* Writes dir/REPORT.md and dir/report.html. Returns 0, or 2 (with a message) when dir holds
 * none of the result files. */
int ln_report_write(const char *dir);

#endif
