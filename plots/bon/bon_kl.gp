# title: Best-of-n: KL to the base against n
# caption: KL(best-of-n ‖ base) against the number of draws n, for a uniform base over K = 2,
# caption: 8, 64 and 512 outcomes with distinct rewards, beside the bound log n − (n − 1)/n (the
# caption: KL of best-of-n on a continuous space). Each discrete curve stays below the bound and
# caption: below log K (dotted), which it approaches as n grows: best-of-n can move no further
# caption: than onto the single best outcome.
# equation: π_n(y_k) = (k/K)^n − ((k−1)/K)^n (rewards ranked k = 1..K);  KL(π_n ‖ π_0) ≤ log n − (n − 1)/n
# source: seed 000 §8.4 and §10.4 (the bound is from the literature)
# formulas: BON
#
# Data: data/bon_kl.dat (bon_data.py kl: rlref eval BON), columns n, bound, kl_K2, kl_K8,
# kl_K64, kl_K512.
if (!exists("out")) out = "figures/bon_kl"
load "style.gp"
data = "data/bon_kl.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 960, 640)
    set title "Best-of-n: KL(best-of-n ‖ base) against n, uniform base over K outcomes" font TITLEFONT
    set logscale x 2
    set xrange [1:4096]
    set yrange [0:7.5]
    set xlabel "n (draws)"
    set ylabel "KL (nats)"
    set key left top
    plot data using 1:2 with lines lt 7 dt 1 lw 3 title "bound log n − (n−1)/n", \
         data using 1:3 with linespoints lt 1 ps 0.6*PS title "K = 2", \
         data using 1:4 with linespoints lt 2 ps 0.6*PS title "K = 8", \
         data using 1:5 with linespoints lt 3 ps 0.6*PS title "K = 64", \
         data using 1:6 with linespoints lt 4 ps 0.6*PS title "K = 512", \
         log(2) with lines lt 1 dt 3 lw 1.5 notitle, \
         log(8) with lines lt 2 dt 3 lw 1.5 notitle, \
         log(64) with lines lt 3 dt 3 lw 1.5 notitle, \
         log(512) with lines lt 4 dt 3 lw 1.5 title "log K (dotted, colour of its K)"
    unset logscale x
}
