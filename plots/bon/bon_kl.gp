# BON: KL(best-of-n || base) against the number of draws n, for a uniform base over K = 2, 8,
# 64 and 512 outcomes with distinct rewards, beside the bound log n - (n - 1)/n (the KL of
# best-of-n on a continuous space).  Each discrete curve stays below the bound and below
# log K (dotted), which it approaches as n grows: best-of-n can move no further than onto the
# single best outcome.
# Data: data/bon_kl.dat (bon_data.py kl: rlref eval BON), columns n, bound, kl_K2, kl_K8,
# kl_K64, kl_K512.
if (!exists("out")) out = "figures/bon_kl"
set encoding utf8
data = "data/bon_kl.dat"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 900,600 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 900,600 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "Best-of-n: KL(best-of-n ‖ base) against n, uniform base over K outcomes" font ",14"
    set grid
    set logscale x 2
    set xrange [1:4096]
    set yrange [0:7.5]
    set xlabel "n (draws)"
    set ylabel "KL (nats)"
    set key left top
    plot data using 1:2 with lines lw 3 lc "black" title "bound log n − (n−1)/n", \
         data using 1:3 with linespoints lw 2 pt 7 ps 0.6 lc 1 title "K = 2", \
         data using 1:4 with linespoints lw 2 pt 5 ps 0.6 lc 2 title "K = 8", \
         data using 1:5 with linespoints lw 2 pt 9 ps 0.6 lc 3 title "K = 64", \
         data using 1:6 with linespoints lw 2 pt 11 ps 0.6 lc 4 title "K = 512", \
         log(2) with lines dt 3 lc 1 notitle, \
         log(8) with lines dt 3 lc 2 notitle, \
         log(64) with lines dt 3 lc 3 notitle, \
         log(512) with lines dt 3 lc 4 title "log K"
    unset logscale x
}
