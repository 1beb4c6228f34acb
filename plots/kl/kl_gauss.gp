# KL-EXACT for two Gaussians, Schulman's setting: samples from q = N(0, 1), the reference
# p = N(mu, 1), KL(q || p) = mu^2/2.  Left: stdev/true of k1, k2, k3 against mu, exact
# (lines) and by the seeded Monte-Carlo run, 10^4 draws (points); right: bias/true
# (k1 and k3 are unbiased: 0 exactly; the Monte-Carlo points scatter around it).  The
# dotted verticals mark Schulman's mu = 0.1 and mu = 1.
# Data: data/kl_gauss.dat (rlref table KL-EXACT --variant gaussian --sweep mu_ref=...)
#   columns: mu, kl, kl_reverse, e_k2, bias_k2, var_k1, var_k2, var_k3, bias_k2_rel,
#   std_k1_rel, std_k2_rel, std_k3_rel;
# data/kl_gauss_mc.dat (kl_data.py mc: rlref eval KL-EXACT --variant monte-carlo)
#   columns: mu, bias_k1_rel, bias_k2_rel, bias_k3_rel, std_k1_rel, std_k2_rel, std_k3_rel.
if (!exists("out")) out = "figures/kl_gauss"
set encoding utf8
data = "data/kl_gauss.dat"
mc = "data/kl_gauss_mc.dat"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "KL estimators for q = N(0, 1), p = N(μ, 1): exact (lines) and 10^4 seeded draws (points)" font ",14"
    set grid
    set logscale xy
    set xrange [0.05:3]
    set xlabel "μ   (KL = μ^2/2)"
    set arrow 1 from 0.1, graph 0 to 0.1, graph 1 nohead dt 3 lc "gray40"
    set arrow 2 from 1, graph 0 to 1, graph 1 nohead dt 3 lc "gray40"
    set title "standard deviation / true KL"
    set ylabel "stdev / KL"
    set yrange [0.5:100]
    set key right top
    plot data using 1:10 with lines lw 2 lc 1 title "k1", \
         data using 1:11 with lines lw 2 lc 2 title "k2", \
         data using 1:12 with lines lw 2 lc 3 title "k3", \
         mc using 1:5 with points pt 7 lc 1 notitle, \
         mc using 1:6 with points pt 5 lc 2 notitle, \
         mc using 1:7 with points pt 9 lc 3 notitle
    set title "bias / true KL"
    set ylabel "(E[k] − KL) / KL"
    unset logscale y
    set yrange [-0.4:1.2]
    set key left top
    plot data using 1:9 with lines lw 2 lc 2 title "k2: exact, μ^2/4", \
         0 with lines lw 2 lc 1 dt 1 title "k1, k3: exact 0", \
         mc using 1:2 with points pt 7 lc 1 title "k1 (draws)", \
         mc using 1:3 with points pt 5 lc 2 title "k2 (draws)", \
         mc using 1:4 with points pt 9 lc 3 title "k3 (draws)"
    unset multiplot
    unset logscale xy
    unset arrow 1
    unset arrow 2
}
