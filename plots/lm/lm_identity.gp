# title: The implicit reward on the tiny LM
# caption: Every one of the 15 sequences of the tiny language model (oracles/models/tab3.json,
# caption: β = 0.5): its reward r(y) against β log(π*(y)/π_ref(y)) + β log Z, computed from the
# caption: KL-optimal policy π*. All points lie on the identity line: the reward is reconstructed
# caption: exactly from the policy, the step on which DPO rests. The 15 rewards take six values
# caption: (−3.25 to 1.25), so several points coincide; the label beside each point counts the
# caption: sequences on it (6 at −0.25, 4 at −1.75, 2 at 1.25, one each at 0.5, −1 and −3.25).
# equation: r(y) = β log(π*(y)/π_ref(y)) + β log Z  (13.18)
# source: seed 000 §4.2
# formulas: DPO-IMPLICIT-R, KLOPT-PISTAR
#
# Data: data/lm_identity.dat (lm_data.py identity: rlref lm --table, beta 0.5)
if (!exists("out")) out = "figures/lm_identity"
load "style.gp"
data = "data/lm_identity.dat"
# the sequences that share a reward: one row (r, count) per distinct r(y)
set table $ties
plot data using 2:(1) smooth frequency
unset table
do for [fmt in FORMATS] {
    eval terminal(fmt, 800, 760)
    set title "The implicit reward:  r(y) = β log(π*(y)/π_{ref}(y)) + β log Z" font TITLEFONT
    set xlabel "r(y)"
    set ylabel "β log(π*(y)/π_{ref}(y)) + β log Z"
    set size square
    set xrange [-3.5:2.25]
    set yrange [-3.5:2.25]
    set key left top
    plot x with lines lt 8 title "identity", \
         data using 2:3 with points lt 1 ps 1.4*PS title "the 15 sequences (β = 0.5)", \
         $ties using 1:1:(sprintf("%d sequence%s", $2, $2 > 1 ? "s" : "")) with labels left offset 1.2, -0.6 notitle
    unset size
}
