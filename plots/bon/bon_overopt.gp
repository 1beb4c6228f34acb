# OVEROPT: the gold reward against d = sqrt(KL(pi || pi_ref)) in the two functional forms of
# Gao et al. (2022): best-of-n R = d (alpha - beta d), alpha = 1, beta = 0.25, peak at
# d* = alpha/(2 beta) = 2, R* = alpha^2/(4 beta) = 1; RL R = d (alpha - beta log d),
# alpha = 0.5, beta = 0.25, peak at d* = e^(alpha/beta - 1) = e, R* = beta d* = e/4.  The
# peaks are the oracle's closed-form outputs d_star and peak.
# Data: data/bon_overopt_bon.dat, data/bon_overopt_rl.dat (rlref table OVEROPT --sweep
# kl=0:36:721), columns kl, d, value, d_star, peak.
if (!exists("out")) out = "figures/bon_overopt"
set encoding utf8
bon = "data/bon_overopt_bon.dat"
rl = "data/bon_overopt_rl.dat"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 900,600 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 900,600 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "Over-optimisation: gold reward against d = √KL, and the peaks" font ",14"
    set grid
    set xrange [0:6]
    set yrange [-1.5:1.3]
    set xlabel "d = √KL(π ‖ π_{ref})"
    set ylabel "gold reward R(d)"
    set key left bottom
    plot bon using 2:3 with lines lw 2 lc 1 title "best-of-n: d (α − β d), α = 1, β = 0.25", \
         rl using 2:3 with lines lw 2 lc 2 title "RL: d (α − β log d), α = 0.5, β = 0.25", \
         bon every ::0::0 using 4:5 with points pt 7 ps 1.6 lc 1 title "peak d* = α/(2β), R* = α²/(4β)", \
         rl every ::0::0 using 4:5 with points pt 5 ps 1.6 lc 2 title "peak d* = e^{α/β − 1}, R* = β d*"
}
