# Accuracy by input distribution: max ulp error (top) and normwise error (bottom) of each
# algorithm's fastest kernel, clustered per distribution, log scales; exact results on the
# floor ("≤10^n"), non-finite ones on the top line ("inf/NaN"), ringed in red.
load vars
W = 1250; H = 820
load "scripts/common.gp"
ndist = words(dists)
set xrange [0.5:ndist + 0.5]
do for [i=1:ndist-1] { set arrow from i + 0.5, graph 0 to i + 0.5, graph 1 nohead lc rgb "#cccccc" dt 3 }
set logscale y
set grid noxtics ytics
set multiplot title title
set lmargin at screen 0.085; set rmargin at screen 0.68
set key at screen 0.69, screen 0.90 left top vertical Left reverse samplen 1.5 spacing 1.25
do for [p=1:2] {
    if (p == 1) { set tmargin at screen 0.90; set bmargin at screen 0.53 } else { set tmargin at screen 0.49; set bmargin at screen 0.12 }
    set xtics ()
    do for [i=1:ndist] { set xtics add ((p == 2 ? word(dists, i) : "") i) }
    set xtics rotate by 25 right
    lo = p == 1 ? floor_ulp : floor_norm; hi = p == 1 ? top_ulp : top_norm
    set yrange [lo:hi]
    eval logtics("y", lo, hi, 1)
    set ylabel (p == 1 ? "max error (ulp)" : "max normwise error (units of u)")
    set xlabel (p == 2 ? "input distribution" : "")
    if (p == 2) { unset key }
    plot for [i=0:n-1] data index i using 1:(column(p + 1)) with points ps 1.4 lw 1.6 \
             lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) title word(names, i + 1), \
         for [i=0:n-1] data index i using 1:(column(p + 1) >= hi ? column(p + 1) : 1/0) with points pt 6 ps 2.6 lw 2 \
             lc rgb NONFINITE title (i == 0 && p == 1 ? "non-finite output" : ""), \
         hi with lines dt 3 lc rgb NONFINITE notitle
}
unset multiplot
