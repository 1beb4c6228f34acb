# KL-K3: the error of k3 = e^-l - 1 + l (13.26) computed in binary64 as written,
# exp(-l) - 1 + l, and as expm1(-l) + l, in units of the last place of the exact k3,
# against |l| for l > 0 (left) and l < 0 (right).  Near l = 0 the naive form loses about
# 2 log2(1/|l|) bits, the expm1 form about log2(1/|l|); rlref's own binary64 k3 (the
# Taylor series below |l| = 1/2) stays within an ulp.  Beyond |l| ~ 1 both are within an
# ulp; for l > 745 e^-l underflows and both give l - 1 (errors below 1e-300 ulp drawn at
# the floor).
# Data: data/kl_naive.dat (kl_data.py naive: rlref eval KL-K3 --variant naive)
#   columns: l, k3, ulp_naive, ulp_expm1; index 0 is l > 0, index 1 is l < 0.
if (!exists("out")) out = "figures/kl_naive"
set encoding utf8
data = "data/kl_naive.dat"
floor = 1e-3
err(x) = (abs(x) > floor ? abs(x) : floor)
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "k3 = e^{−ℓ} − 1 + ℓ (13.26) in binary64: error in ulp of the exact k3" font ",14"
    set logscale xy
    set grid
    set format y "10^{%L}"
    set format x "10^{%L}"
    set yrange [floor:1e25]
    set ylabel "|error| (ulp; below 10^{−3} drawn at 10^{−3})"
    set key left bottom
    set title "ℓ > 0"
    set xlabel "ℓ"
    set xrange [1e-12:1e3]
    plot data index 0 using 1:(err($3)) with linespoints pt 7 ps 0.5 lw 2 title "exp(−ℓ) − 1 + ℓ", \
         data index 0 using 1:(err($4)) with linespoints pt 5 ps 0.5 lw 2 title "expm1(−ℓ) + ℓ", \
         1 with lines dt 2 lc "black" title "1 ulp"
    set title "ℓ < 0"
    set xlabel "−ℓ"
    set xrange [1e-12:1e3]
    plot data index 1 using (-$1):(err($3)) with linespoints pt 7 ps 0.5 lw 2 title "exp(−ℓ) − 1 + ℓ", \
         data index 1 using (-$1):(err($4)) with linespoints pt 5 ps 0.5 lw 2 title "expm1(−ℓ) + ℓ", \
         1 with lines dt 2 lc "black" title "1 ulp"
    unset multiplot
    unset logscale xy
    unset format
}
