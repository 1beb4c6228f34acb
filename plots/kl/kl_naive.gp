# title: k3 in binary64: the naive form against expm1
# caption: The error of k3 computed in binary64 as written, exp(−ℓ) − 1 + ℓ, and as
# caption: expm1(−ℓ) + ℓ, in units of the last place of the exact k3, against |ℓ| for ℓ > 0
# caption: (left) and ℓ < 0 (right). Near ℓ = 0 the naive form loses about 2 log₂(1/|ℓ|) bits,
# caption: the expm1 form about log₂(1/|ℓ|); rlref's own binary64 k3 (the Taylor series below
# caption: |ℓ| = 1/2) stays within an ulp. Beyond |ℓ| ≈ 1 both are within an ulp; for ℓ > 745
# caption: e^{−ℓ} underflows and both give ℓ − 1 (errors below 10^{−3} ulp are drawn at 10^{−3}).
# equation: k3 = e^{−ℓ} − 1 + ℓ = expm1(−ℓ) + ℓ,  ℓ = log π(y) − log π_ref(y)  (13.26)
# source: seed 000 (13.26) and table 5
# formulas: KL-K3 (default, naive)
#
# Data: data/kl_naive.dat (kl_data.py naive: rlref eval KL-K3 --variant naive)
#   columns: l, k3, ulp_naive, ulp_expm1; index 0 is l > 0, index 1 is l < 0.
if (!exists("out")) out = "figures/kl_naive"
load "style.gp"
data = "data/kl_naive.dat"
floor = 1e-3
err(x) = (abs(x) > floor ? abs(x) : floor)
do for [fmt in FORMATS] {
    eval terminal(fmt, 1200, 560)
    set multiplot layout 1,2 title "k3 = e^{−ℓ} − 1 + ℓ (13.26) in binary64: error in ulp of the exact k3" font TITLEFONT
    set logscale xy
    set format y "10^{%L}"
    set format x "10^{%L}"
    set yrange [floor:1e25]
    set ylabel "|error| (ulp; below 10^{−3} drawn at 10^{−3})"
    set key left bottom
    set title "ℓ > 0"
    set xlabel "ℓ"
    set xrange [1e-12:1e3]
    plot data index 0 using 1:(err($3)) with linespoints lt 2 ps 0.5*PS title "exp(−ℓ) − 1 + ℓ", \
         data index 0 using 1:(err($4)) with linespoints lt 1 ps 0.5*PS title "expm1(−ℓ) + ℓ", \
         1 with lines lt 7 title "1 ulp"
    set title "ℓ < 0"
    set xlabel "−ℓ"
    set xrange [1e-12:1e3]
    plot data index 1 using (-$1):(err($3)) with linespoints lt 2 ps 0.5*PS title "exp(−ℓ) − 1 + ℓ", \
         data index 1 using (-$1):(err($4)) with linespoints lt 1 ps 0.5*PS title "expm1(−ℓ) + ℓ", \
         1 with lines lt 7 title "1 ulp"
    unset multiplot
    unset logscale xy
    unset format
}
