# Scaling with threads: GB/s (median over D) against the thread count, one line per kernel of
# LayerNorm f32 timed at several counts (each algorithm's fastest at one thread), the machine
# limit at each count (the faster probe of the same run, size and count) dotted.
load vars
W = 1000; H = 560
load "scripts/common.gp"
set title title
set xrange [0.8:tmax + 0.2]
set xtics 1
set yrange [0:ymax]
set xlabel "threads (each on its own CPU, its share of the rows)"
set ylabel "GB/s (x read + y written, all threads)"
set key outside right top vertical Left reverse samplen 3 spacing 1.25 width 2
plot for [i=0:n-1] data index i using 1:2 with linespoints lw 2 ps 1.3 \
         lc rgb kc(word(names, i + 1), i) pt kp(word(names, i + 1), i) dt kdash(word(names, i + 1)) title word(names, i + 1), \
     data index n using 1:2 with linespoints dt 3 lw 2 pt 1 lc rgb "#555555" title "machine limit"
