# title: The implicit reward on the tiny LM
# caption: Every one of the 15 sequences of the tiny language model (oracles/models/tab3.json,
# caption: β = 0.5): its reward r(y) against β log(π*(y)/π_ref(y)) + β log Z, computed from the
# caption: KL-optimal policy π*. All points lie on the identity line: the reward is reconstructed
# caption: exactly from the policy, the step on which DPO rests. The 15 rewards take six values
# caption: (−3.25 to 1.25), so several points coincide.
# equation: r(y) = β log(π*(y)/π_ref(y)) + β log Z  (13.18)
# source: seed 000 §4.2
# formulas: DPO-IMPLICIT-R, KLOPT-PISTAR
#
# Data: data/lm_identity.dat (lm_data.py identity: rlref lm --table, beta 0.5)
if (!exists("out")) out = "figures/lm_identity"
load "style.gp"
data = "data/lm_identity.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 800, 760)
    set title "The implicit reward:  r(y) = β log(π*(y)/π_{ref}(y)) + β log Z" font TITLEFONT
    set xlabel "r(y)"
    set ylabel "β log(π*(y)/π_{ref}(y)) + β log Z"
    set size square
    set key left top
    plot x with lines lt 8 title "identity", \
         data using 2:3 with points lt 1 ps 1.4*PS title "the 15 sequences (β = 0.5)"
    unset size
}
