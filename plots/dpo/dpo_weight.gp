# title: The DPO gradient weight against the implicit margin
# caption: The weight σ(r̂_l − r̂_w) = σ(−βD) that scales DPO's gradient on one pair, against the
# caption: margin D = log(π(y_w)/π_ref(y_w)) − log(π(y_l)/π_ref(y_l)) of the implicit rewards
# caption: r̂ = β log(π/π_ref), for β = 0.1, 0.5 and 1. A pair the
# caption: policy still ranks the wrong way (D < 0) gets a weight near 1, a pair it already ranks
# caption: right by much a weight near 0: DPO is a hard-example weighting, and a larger β hands
# caption: the weight over faster. At D = 0 every β gives 1/2; the curves' steepest slope is β/4.
# equation: ∇_θ L_DPO = −β σ(r̂_l − r̂_w) [∇ log π(y_w) − ∇ log π(y_l)],  r̂ = β log(π/π_ref)  (13.22)
# source: seed 000 (13.22), §4.3
# formulas: DPO-GRAD (seed-000)
#
# Data: data/dpo_weight_bB.dat for B = 0.1, 0.5, 1 (rlref table DPO-GRAD --sweep
#   logp_w=-20:20:401 logp_l=0 ref_w=0 ref_l=0 beta=B), columns logp_w (= D), weight,
#   grad_w, grad_l.
if (!exists("out")) out = "figures/dpo_weight"
load "style.gp"
do for [fmt in FORMATS] {
    eval terminal(fmt, 960, 600)
    set title "DPO: the gradient weight σ(−βD) against the implicit-reward margin D" font TITLEFONT
    set xrange [-20:20]
    set yrange [0:1.05]
    set xlabel "D = log π(y_w)/π_{ref}(y_w) − log π(y_l)/π_{ref}(y_l)"
    set ylabel "gradient weight σ(r̂_l − r̂_w)"
    set key right top
    set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 3 lc rgb GREY
    plot "data/dpo_weight_b0.1.dat" using 1:2 with lines lt 1 title "β = 0.1", \
         "data/dpo_weight_b0.5.dat" using 1:2 with lines lt 2 title "β = 0.5", \
         "data/dpo_weight_b1.dat" using 1:2 with lines lt 3 title "β = 1"
    unset arrow 1
}
