# Error vs offset M: where each algorithm breaks as the row mean grows against its spread
# (condition number ~ M). Data: per-kernel files of "M max_norm" (clamped as in accuracy.gp).
W = 1000; H = 600
load "scripts/common.gp"
set title title
set logscale xy
set xrange [mmin / 2:mmax * 2]
set yrange [floor:top]
eval logtics("x", mmin, mmax, 0)
eval logtics("y", floor, top, floorcut ? 3 : 1)
set xlabel "offset M of the inputs (row mean; condition number ~ M)"
set ylabel "normwise error max|y - y_exact| / max|y_exact| (units of u)"
set key outside right top vertical Left reverse samplen 2.5 spacing 1.2
plot for [i=1:words(files)] word(files, i) using 1:2 with linespoints lw 1.8 ps 1.1 \
         lc rgb kcolor(word(idx, i)) pt kpoint(word(idx, i)) title word(names, i), \
     for [j=1:(nnf > 0)] nonfinite using 1:2 with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE \
         title "non-finite output", \
     top with lines dt 3 lc rgb NONFINITE notitle
