# Error against offset M: where each algorithm breaks as the row mean grows against its spread
# (condition number ~ M). Each algorithm's fastest kernel; non-finite outputs on the top line.
load vars
W = 1100; H = 600
load "scripts/common.gp"
set title title
set logscale xy
set xrange [mmin / 2:mmax * 2]
set yrange [floor:top]
eval logtics("x", mmin, mmax, 0)
eval logtics("y", floor, top, 1)
set xlabel "offset M of the inputs (row mean; condition number ~ M)"
set ylabel "normwise error (units of u)"
set key outside right top vertical Left reverse samplen 3 spacing 1.25 width 2
# inputs that degenerate when stored (lnbench report --figure-data sets degen): shaded, said
if (exists("degen") && degen > 0) { \
    set object 1 rect from degen / 1.4, graph 0 to mmax * 2, graph 1 behind fc rgb "#ececec" fs solid noborder; \
    set label 3 degenwhat at graph 0.02, graph 0.96 left font ",10" tc rgb "#555555" }
plot for [i=0:n-1] data index i using 1:2 with linespoints lw 2 ps 1.2 \
         lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) dt kdash(word(names, i + 1)) title word(names, i + 1), \
     for [i=0:n-1] data index i using 1:($2 >= top ? $2 : 1/0) with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE \
         title (i == 0 ? "non-finite output" : ""), \
     top with lines dt 3 lc rgb NONFINITE notitle
