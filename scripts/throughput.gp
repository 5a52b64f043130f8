# Throughput vs row length: one line per kernel (median GB/s, min-max bars), streaming probes
# dashed as the attainable limit. Data: per-kernel files of "D gbps gbps_min gbps_max".
W = 1000; H = 560
load "scripts/common.gp"
set title title
set logscale x 2
set format x "%.0f"
set xlabel "row length D (elements)"
set ylabel "throughput (GB/s = 1e9 bytes of x read + y written per s)"
set yrange [0:*]
set offsets graph 0.03, graph 0.03, graph 0.05, 0
set key outside right top vertical Left reverse samplen 2.5 spacing 1.2 width 1
plot for [i=1:words(probes)] word(probes, i) using 1:2 with lines dt 2 lw 2 lc rgb probecolor(i) \
         title word(probenames, i) . " (limit)", \
     for [i=1:words(files)] word(files, i) using 1:2:3:4 with yerrorlines lw 1.6 ps 0.9 \
         lc rgb kcolor(word(idx, i)) pt kpoint(word(idx, i)) title word(names, i)
