# Speed against accuracy: each kernel a numbered point (x: GB/s in the trade-off regime, y: worst
# normwise error over accuracy.csv), the numbers named in a list beside the plot, fastest first;
# the Pareto front dashed, its points filled red. Kernels with non-finite outputs are listed
# under the plot, not drawn.
load vars
W = 1150; H = 680
load "scripts/common.gp"
set title title
set logscale y
set yrange [floor:top]
eval logtics("y", floor, top, 1)
set xrange [0:xmax]
set xlabel "throughput, " . regime . "-resident (GB/s, median over D; right is faster)"
set ylabel "worst normwise error (u; lower is better)" offset 1, 0
set lmargin at screen 0.10; set rmargin at screen 0.70; set bmargin 7
set label 1 broken at graph 0, graph -0.16 left font ",10" tc rgb NONFINITE
set label 2 legend at screen 0.72, screen 0.84 left font "DejaVu Sans Mono,10"
set key at screen 0.72, screen 0.91 left top horizontal Left reverse samplen 2 nobox
plot data index 0 using 1:2 with points pt 7 ps 1.3 lc rgb "#0072B2" title "kernel", \
     data index 1 using 1:2 with lines dt 2 lw 1.5 lc rgb "#D55E00" title "Pareto front", \
     data index 1 using 1:2 with points pt 7 ps 1.6 lc rgb "#D55E00" notitle, \
     data index 0 using 1:2:(sprintf("%d", $3)) with labels left offset char 0.6, char 0.5 font ",10" notitle
