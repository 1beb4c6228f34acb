# title: Over-optimisation: gold reward against √KL
# caption: The gold reward against d = √KL(π ‖ π_ref) in the two functional forms of Gao et al.
# caption: (2022). Best-of-n, α = 1, β = 0.25: peak at d* = α/(2β) = 2, R* = α²/(4β) = 1. RL,
# caption: α = 0.5, β = 0.25: peak at d* = e^{α/β − 1} = e, R* = β d* = e/4. The peaks drawn are
# caption: the oracle's closed-form outputs d_star and peak, not read off the curves.
# equation: R_bon(d) = d (α − β d);  R_RL(d) = d (α − β log d);  d = √KL(π ‖ π_ref)
# source: seed 000 §8.2 and §10.4 (the forms are from the literature)
# formulas: OVEROPT (bon, rl)
#
# Data: data/bon_overopt_bon.dat, data/bon_overopt_rl.dat (rlref table OVEROPT --sweep
# kl=0:36:721), columns kl, d, value, d_star, peak.
if (!exists("out")) out = "figures/bon_overopt"
load "style.gp"
bon = "data/bon_overopt_bon.dat"
rl = "data/bon_overopt_rl.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 960, 640)
    set title "Over-optimisation: gold reward against d = √KL, and the peaks" font TITLEFONT
    set xrange [0:6]
    set yrange [-1.5:1.3]
    set xlabel "d = √KL(π ‖ π_{ref})"
    set ylabel "gold reward R(d)"
    set key left bottom
    plot bon using 2:3 with lines lt 1 title "best-of-n: d (α − β d), α = 1, β = 0.25", \
         rl using 2:3 with lines lt 2 title "RL: d (α − β log d), α = 0.5, β = 0.25", \
         bon every ::0::0 using 4:5 with points lt 1 ps 1.6*PS title "peak d* = α/(2β), R* = α²/(4β)", \
         rl every ::0::0 using 4:5 with points lt 2 ps 1.6*PS title "peak d* = e^{α/β − 1}, R* = β d*"
}
