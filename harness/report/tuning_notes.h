/* What the report and compare say about tunings (docs/tune.md): a run of `lnbench bench --tuning`
 * names its tuning file in its metadata (bench.csv.meta.json "tuning", bench.json's context
 * "lnbench_tuning"). */
#ifndef LN_TUNING_NOTES_H
#define LN_TUNING_NOTES_H

#include <stddef.h>

#include "doc.h"

/* The report's "Tuning" section for the results folder dir: the tuning file the run used and,
 * per kernel, regime and D whose tuned parameters beat the defaults, tuned against default GB/s,
 * gain and p-value from that file. Nothing when the run used no tuning. */
void ln_report_tuning_section(const char *dir, ln_doc *d);

/* One line on stdout when the two sides of a comparison ran with different tunings (or one with
 * none); nothing otherwise. Each run is a results folder or a bench JSON. */
void ln_compare_tuning_note(const char *const *base, size_t nbase, const char *const *new_, size_t nnew);

#endif
