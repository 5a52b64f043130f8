# Accuracy by input distribution: max and mean ulp error and the normwise error (log scales) of
# each kernel, clustered per distribution. Data: per-kernel files of "x max_ulp mean_ulp
# max_norm" (x = position in the cluster; values already clamped: exact zeros on the floor,
# non-finite values on the top line, ringed in red).
W = 1150; H = 1100
load "scripts/common.gp"
ndist = words(dists)
set xrange [0.5:ndist + 0.5]
set xtics () rotate by 30 right
do for [i=1:ndist-1] { set arrow from i + 0.5, graph 0 to i + 0.5, graph 1 nohead lc rgb "#cccccc" dt 3 }
set logscale y
set grid noxtics ytics
set multiplot title title
set lmargin at screen 0.085; set rmargin at screen 0.74
# panels: top, bottom (screen fractions) and what they show (column, limits, label)
ptop = "0.935 0.65 0.365"; pbot = "0.685 0.40 0.115"
do for [p=1:3] {
    set tmargin at screen word(ptop, p) + 0; set bmargin at screen word(pbot, p) + 0
    set xtics ()
    do for [i=1:ndist] { set xtics add ((p == 3 ? word(dists, i) : "") i) }   # names at the bottom only
    lo = p == 1 ? floor_max : p == 2 ? floor_mean : floor_norm
    hi = p == 1 ? top_max : p == 2 ? top_mean : top_norm
    cut = p == 1 ? floorcut_max : p == 2 ? floorcut_mean : floorcut_norm
    nf = p == 1 ? nnf_max : p == 2 ? nnf_mean : nnf_norm
    nffile = p == 1 ? nonfinite_max : p == 2 ? nonfinite_mean : nonfinite_norm
    set yrange [lo:hi]
    eval logtics("y", lo, hi, cut ? 3 : 1)
    set ylabel (p == 1 ? "max error (ulp)" : p == 2 ? "mean error (ulp)" : "max normwise error (units of u)")
    set xlabel (p == 3 ? "input distribution" : "")
    unset key
    plot for [i=1:words(files)] word(files, i) using 1:(column(p + 1)) with points ps 1.2 lw 1.4 \
             lc rgb kcolor(word(idx, i)) pt kpoint(word(idx, i)), \
         for [j=1:(nf > 0)] nffile using 1:2 with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE, \
         hi with lines dt 3 lc rgb NONFINITE
}
KEYSTYLE = "points"; KEYLEFT = 0.75; KEYTOP = 0.935; KEYBOTTOM = 0.115; anynf = nnf_max + nnf_mean + nnf_norm
load "scripts/legend.gp"
unset multiplot
