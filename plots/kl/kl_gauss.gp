# title: KL estimators on two Gaussians
# caption: Samples from q = N(0, 1), the reference p = N(μ, 1), μ from 0.05 to 3. Left: the
# caption: standard deviation of k1, k2 and k3 over the true KL (k1's is 2/μ); right: their
# caption: bias over the true KL (k2's is μ²/4; k1 and k3 are unbiased). Lines are exact; the
# caption: points are 10^4 seeded draws. k2's and k3's spread overtake k1's at μ ≈ 1.11 and
# caption: 1.12; the dotted verticals mark Schulman's μ = 0.1 and μ = 1.
# equation: KL(q‖p) = μ²/2;  ℓ = log q(x) − log p(x);  k1 = ℓ,  k2 = ℓ²/2,  k3 = e^{−ℓ} − 1 + ℓ  (13.26)
# source: seed 000 §12.1 and table 5; Schulman's table
# formulas: KL-EXACT (gaussian, monte-carlo)
#
# Data: data/kl_gauss.dat (rlref table KL-EXACT --variant gaussian --sweep mu_ref=...)
#   columns: mu, kl, kl_reverse, e_k2, bias_k2, var_k1, var_k2, var_k3, bias_k2_rel,
#   std_k1_rel, std_k2_rel, std_k3_rel;
# data/kl_gauss_mc.dat (kl_data.py mc: rlref eval KL-EXACT --variant monte-carlo)
#   columns: mu, bias_k1_rel, bias_k2_rel, bias_k3_rel, std_k1_rel, std_k2_rel, std_k3_rel.
if (!exists("out")) out = "figures/kl_gauss"
load "style.gp"
data = "data/kl_gauss.dat"
mc = "data/kl_gauss_mc.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1200, 560)
    set multiplot layout 1,2 title "KL estimators for q = N(0, 1), p = N(μ, 1): exact (lines), 10^4 seeded draws (points)" font TITLEFONT
    set logscale xy
    set xrange [0.05:3]
    set xlabel "μ   (KL = μ^2/2)"
    set arrow 1 from 0.1, graph 0 to 0.1, graph 1 nohead dt 3 lc rgb GREY
    set arrow 2 from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb GREY
    set title "standard deviation / true KL"
    set ylabel "stdev / KL"
    set yrange [0.5:100]
    set key right top
    plot data using 1:10 with lines lt 1 title "k1", \
         data using 1:11 with lines lt 2 title "k2", \
         data using 1:12 with lines lt 3 title "k3", \
         mc using 1:5 with points lt 1 notitle, \
         mc using 1:6 with points lt 2 notitle, \
         mc using 1:7 with points lt 3 notitle
    set title "bias / true KL"
    set ylabel "(E[k] − KL) / KL"
    unset logscale y
    set yrange [-0.4:1.2]
    set key left top
    plot data using 1:9 with lines lt 2 title "k2: exact, μ^2/4", \
         0 with lines lt 7 dt 1 lw 1.5 title "k1, k3: exact 0", \
         mc using 1:2 with points lt 1 title "k1 (draws)", \
         mc using 1:3 with points lt 2 title "k2 (draws)", \
         mc using 1:4 with points lt 3 title "k3 (draws)"
    unset multiplot
    unset logscale xy
    unset arrow 1
    unset arrow 2
}
