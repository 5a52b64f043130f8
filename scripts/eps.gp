# Error and non-finite outputs against eps on degenerate rows: a column of two panels per
# distribution where some kernel is not exact (the others are not drawn), the kernels that are
# not exact somewhere (8 at most, worst first), the legend in a panel of its own.
load vars
np = words(dists)
W = 380 + 300 * np; H = 720
load "scripts/common.gp"
left = 0.09; right = 1 - 300.0 / W; gap = 0.035
pw = (right - left - (np - 1) * gap) / np
set multiplot title title
set logscale x
set xrange [emin / 3:emax * 3]
do for [p=1:np] {
    set lmargin at screen left + (p - 1) * (pw + gap); set rmargin at screen left + (p - 1) * (pw + gap) + pw
    set tmargin at screen 0.88; set bmargin at screen 0.52
    set title word(dists, p) . " rows"
    set logscale y; set yrange [floor:top]
    eval logtics("y", floor, top, p > 1 ? 2 : 1)
    MAXTICS = 4; eval logtics("x", emin, emax, 2); MAXTICS = 10
    set xlabel ""
    set ylabel (p == 1 ? "max error (ulp)" : "")
    unset key
    base = (p - 1) * n
    plot for [i=0:n-1] data index base + i using 1:2 with linespoints lw 1.8 ps 1.2 lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) dt kdash(word(names, i + 1)), \
         for [i=0:n-1] data index base + i using 1:($2 >= top ? $2 : 1/0) with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE, \
         top with lines dt 3 lc rgb NONFINITE
    set title ""
    set tmargin at screen 0.47; set bmargin at screen 0.13
    unset logscale y; set yrange [0:(nfmax > 0 ? nfmax * 1.1 : 1)]
    set ytics autofreq; set format y (p == 1 ? "%g" : "")
    MAXTICS = 4; eval logtics("x", emin, emax, 0); MAXTICS = 10
    set xlabel "eps"
    set ylabel (p == 1 ? "non-finite outputs (count)" : "")
    plot for [i=0:n-1] data index base + i using 1:3 with linespoints lw 1.8 ps 1.2 lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) dt kdash(word(names, i + 1))
    set format y "%g"
}
# the legend, a panel of its own on the right
set lmargin at screen right + 0.01; set rmargin at screen 0.995
set tmargin at screen 0.88; set bmargin at screen 0.13
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset grid; unset logscale
set xrange [0:1]; set yrange [0:1]
set key inside left top vertical Left reverse samplen 2 spacing 1.25 nobox
set label 1 note at graph 0, graph 0.05 left font ",10"
plot -1 with lines notitle, \
     for [i=0:n-1] keyentry with linespoints lw 1.8 ps 1.2 lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) dt kdash(word(names, i + 1)) title word(names, i + 1), \
     keyentry with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE title "non-finite output"
unset multiplot
