/* The tidy tables the gnuplot scripts draw from, computed from a results folder: in
 * DIR/plots/data/, per figure NAME a NAME.dat (one gnuplot data block per series) and a NAME.gp
 * (title, series names, axis limits), and figures.txt listing "NAME SCRIPT" for each figure
 * the data supports (scripts/SCRIPT.gp draws it). At most 8 series a panel: the overview
 * figures draw the fastest kernel of each algorithm family, throughput-all-* every kernel. */
#ifndef LN_FIGURES_H
#define LN_FIGURES_H

/* Also the history figure of one kernel (NULL: the fastest f32 kernel) when dir/history/<this
 * machine>/ holds two runs or more. Returns 0, or 2 (with a message) when dir holds no result
 * file. */
int ln_figures_write(const char *dir, const char *history_kernel);

#endif
