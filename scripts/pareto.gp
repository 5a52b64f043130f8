# Speed vs accuracy: each kernel a labelled point (x: memory-resident GB/s, y: worst normwise
# error on the hard distributions), the Pareto frontier dashed. Data: per-kernel one-point
# files, a labels file placed without overlaps by series.awk, the frontier's points.
W = 1000; H = 620
load "scripts/common.gp"
set title title
set logscale y
set yrange [floor:top]
eval logtics("y", floor, top, floorcut ? 3 : 1)
set xrange [xmin:xmax]
set xlabel "throughput, " . regime . "-resident (GB/s, median over D)"
set ylabel "worst normwise error on offset:1e4..1e6 rows (units of u)"
set key outside bottom center horizontal Left reverse samplen 2 spacing 1.2 width 2
set bmargin 6
plot frontier using 1:2 with fsteps dt 2 lw 1.5 lc rgb "#555555" title "Pareto frontier", \
     for [i=1:words(files)] word(files, i) using 1:2 with points ps 1.8 lw 2 \
         lc rgb kcolor(word(idx, i)) pt kpoint(word(idx, i)), \
     labelfile using 1:2:3 with labels left font ",10" notitle, \
     for [j=1:(nnf > 0)] nonfinite using 1:2 with points pt 6 ps 3 lw 2 lc rgb NONFINITE title "non-finite output", \
     top with lines dt 3 lc rgb NONFINITE notitle
