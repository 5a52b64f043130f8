# One kernel's GB/s across the runs kept in results/history/<machine>/, oldest first: a line
# per regime (median over D of each run).
load vars
W = 1000; H = 520
load "scripts/common.gp"
set title title
set xrange [-0.5:n - 0.5]
set xtics () rotate by 30 right
rest = labels . "|"
do for [i=1:n] { cut = strstrt(rest, "|"); set xtics add (rest[1:cut - 1] i - 1); rest = rest[cut + 1:] }
set yrange [0:ymax]
set ylabel "GB/s (median over D)"
set key outside right top vertical Left reverse samplen 3 spacing 1.25
plot data index 0 using 1:2 with linespoints lw 2 ps 1.3 lc rgb kcolor(0) pt kpoint(0) title "cache-resident", \
     data index 1 using 1:2 with linespoints lw 2 ps 1.3 lc rgb kcolor(1) pt kpoint(1) title "memory-resident"
