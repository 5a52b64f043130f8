# The legend of a multiplot figure as a panel of its own, spanning the figure's height, so that
# it never wraps into columns that run off the page. Caller sets: names, idx (the kernels),
# KEYSTYLE ("points" or "linespoints"), KEYLEFT, KEYTOP, KEYBOTTOM (screen fractions), anynf
# (> 0 adds the non-finite marker).
set lmargin at screen KEYLEFT; set rmargin at screen 0.995
set tmargin at screen KEYTOP; set bmargin at screen KEYBOTTOM
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset arrow; unset grid
unset logscale; set xrange [0:1]; set yrange [0:1]
set key inside left top vertical Left reverse samplen 1.5 spacing 1.15 maxrows 100 noopaque nobox
# (the first element, a line below the panel, is there because a plot of key entries only fails)
plot -1 with lines notitle, \
     for [i=1:words(names)] keyentry with @KEYSTYLE lw 1.5 ps 1.2 \
         lc rgb kcolor(word(idx, i)) pt kpoint(word(idx, i)) title word(names, i), \
     for [j=1:(anynf > 0)] keyentry with points pt 6 ps 2.6 lw 2 lc rgb NONFINITE title "non-finite output"
