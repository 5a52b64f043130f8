# Error and non-finite outputs vs eps on degenerate rows (const, zero, tiny): one column of two
# panels per distribution. Data: per (distribution, kernel) files of "eps max_ulp nonfinite".
W = 1250; H = 720
load "scripts/common.gp"
np = words(dists)
left = 0.09; right = 0.73; gap = 0.035
pw = (right - left - (np - 1) * gap) / np
anynf = 0
do for [p=1:np] { anynf = anynf + value("nnf_" . p) }
set multiplot title title
set logscale x
set xrange [emin / 3:emax * 3]
do for [p=1:np] {
    set lmargin at screen left + (p - 1) * (pw + gap); set rmargin at screen left + (p - 1) * (pw + gap) + pw
    # top: ulp error
    set tmargin at screen 0.88; set bmargin at screen 0.52
    set title word(dists, p) . " rows"
    set logscale y; set yrange [floor:top]
    eval logtics("y", floor, top, p > 1 ? 2 : floorcut ? 3 : 1)
    MAXTICS = 4; eval logtics("x", emin, emax, 2); MAXTICS = 11
    set xlabel ""
    set ylabel (p == 1 ? "max error (ulp)" : "")
    unset key
    f = value("files_" . p); nm = value("names_" . p); ix = value("idx_" . p)
    plot for [i=1:words(f)] word(f, i) using 1:2 with linespoints lw 1.6 ps 1.1 \
             lc rgb kcolor(word(ix, i)) pt kpoint(word(ix, i)), \
         for [j=1:(value("nnf_" . p) > 0)] value("nonfinite_" . p) using 1:2 with points pt 6 ps 2.6 lw 2 \
             lc rgb NONFINITE, \
         top with lines dt 3 lc rgb NONFINITE notitle
    # bottom: count of non-finite outputs
    unset key
    set title ""
    set tmargin at screen 0.47; set bmargin at screen 0.12
    unset logscale y; set format y "%g"; set yrange [0:(nfmax > 0 ? nfmax * 1.1 : 1)]
    set ytics autofreq
    MAXTICS = 4; eval logtics("x", emin, emax, 0); MAXTICS = 11
    set xlabel "eps"
    set ylabel (p == 1 ? "non-finite outputs (count)" : "")
    if (p > 1) { set format y "" }
    plot for [i=1:words(f)] word(f, i) using 1:3 with linespoints lw 1.6 ps 1.1 \
             lc rgb kcolor(word(ix, i)) pt kpoint(word(ix, i))
}
# the legend lists every kernel of the figure, whichever panels it is in
KEYSTYLE = "linespoints"; KEYLEFT = right + 0.01; KEYTOP = 0.88; KEYBOTTOM = 0.12
load "scripts/legend.gp"
unset multiplot
