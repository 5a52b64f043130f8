# Two runs compared (compare.csv of lnbench compare): per benchmark the ratio new / base of the
# median, one bar each, red where slower and green where faster beyond the threshold with
# p < 0.05, grey where the difference is not significant; probes first.
set datafile separator ","
stats csv skip 1 using 8 nooutput
N = STATS_records
W = 1100; H = 360 + 18 * N
if (term eq "svg") { set terminal svg size W, H dynamic font "DejaVu Sans,11" background "#ffffff"; set output out . ".svg" } \
else { set terminal pngcairo size W, H font "DejaVu Sans,10" background "#ffffff"; set output out . ".png" }
set termoption noenhanced
set title "new / base, median GB/s per benchmark (red: slower, green: faster, grey: within the threshold or p >= 0.05)"
set border 3; set tics nomirror out; set grid xtics lc rgb "#e4e4e4"
set yrange [N - 0.3:-0.7]
set ytics () font ",9"
set xlabel "ratio new / base (> 1: faster)"
set lmargin 50
color(v) = v eq "slower" ? 0xd00000 : v eq "faster" ? 0x1a9850 : 0x999999
set style fill solid 0.8 noborder
set arrow from 1, graph 0 to 1, graph 1 nohead lc rgb "#333333" dt 2
plot csv skip 1 using (($8 + 1) / 2):0:(1):($8):($0 - 0.35):($0 + 0.35):(color(strcol(10))):ytic(strcol(2) . "  " . strcol(3)) \
         with boxxyerror lc rgb variable notitle
