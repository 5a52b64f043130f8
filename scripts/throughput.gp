# Throughput against row length: one line per kernel (median GB/s, bars from the slowest to the
# fastest repetition), the machine limit dotted. Overview figures hold the fastest kernel of each
# algorithm; throughput-all-* every kernel, 8 a panel. Log y when the rates span over 10x.
load vars
npanels = int((n + panel - 1) / panel)
W = 1100; H = npanels > 1 ? 90 + 380 * npanels : 560
load "scripts/common.gp"
set logscale x 2
set xrange [xmin / 1.25:xmax * 1.25]
set xtics ()
do for [i=1:words(dvals)] { set xtics add (word(dvals, i) word(dvals, i) + 0) }
set xlabel "row length D (elements)"
set ylabel "GB/s (" . traffic . ")"
if (logy) { set logscale y; set yrange [ymin:ymax]; set format y "%g"; set ytics 10; \
    do for [e=-3:3] { do for [m in "1 2 5"] { set ytics add (sprintf("%g", m * 10.0**e) m * 10.0**e) } } } \
else { set yrange [0:ymax] }
set key outside right top vertical Left reverse samplen 3 spacing 1.25 width 2
set multiplot layout npanels, 1 title title
do for [p=0:npanels-1] {
    first = p * panel; last = (first + panel < n ? first + panel : n) - 1
    plot for [i=first:last] data index i using 1:2:3:4 with yerrorlines lw 2 ps 1.2 \
             lc rgb kc(word(names, i + 1), i - first) pt kp(word(names, i + 1), i - first) dt kdash(word(names, i + 1)) title word(names, i + 1), \
         (limit > 0 ? limit : 1/0) with lines dt 3 lw 2 lc rgb "#555555" title limitname
}
unset multiplot
