# GRPO-STDBIAS, GRPO-VAR: RLOO's leave-one-out baseline against the group mean (seed 000
# (13.28), (13.28'), section 11).  Left: the expected weight per sample that a binary-reward
# prompt of success rate p gets, E[sum_i A_i grad log pi(y_i)] = w(p) grad p, for G = 8.
# Right: the variance of the two baselines against G for a fair coin, exact and by a seeded
# Monte-Carlo run.
# Run from plots/:  gnuplot grpobase/grpobase_rloo.gp   (writes figures/grpobase_rloo.png and .svg)
# Data: data/grpobase_weight.dat (rlref table GRPO-STDBIAS: p, weight, per_sample; one block per
# advantage) and data/grpobase_var.dat (rlref eval GRPO-VAR: G, Var[mean], Var[b_loo], removed,
# Monte-Carlo Var[mean], Var[b_loo]).

if (!exists("out")) out = "figures/grpobase_rloo"
set encoding utf8

w = "data/grpobase_weight.dat"
v = "data/grpobase_var.dat"
s2 = 0.25

array name[4]  = ["(r − mean)/std, ddof 0  (GRPO, seed 000)", "(r − mean)/std, ddof 1  (seed 003)", \
                  "r − mean  (Dr.GRPO): (G − 1)/G = 0.875", "leave-one-out (RLOO, 13.28): 1"]
array color[4] = ["#08306b", "#4a90d9", "#969696", "#d7191c"]

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1500,620 enhanced font ",11" linewidth 1.4
    } else {
        set terminal svg size 1500,620 enhanced font "DejaVu Sans,11" linewidth 1.4 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "RLOO's leave-one-out baseline against the group mean" font ",14"

    set title "weight per sample of a prompt with success rate p, G = 8 (GRPO-STDBIAS)" font ",11.5"
    set xlabel "success rate p"
    set ylabel "w(p)/G   (E[Σ_i Â_i ∇log π(y_i)] = w(p) ∇p)"
    set xrange [0:1]
    set yrange [0:3.2]
    set grid lc rgb "#dddddd" lt 1 lw 0.6
    set key bottom center opaque font ",10.5" spacing 1.3
    plot for [k = 1:4] w index (k - 1) using 1:3 with lines lw 2 lc rgb color[k] title name[k], \
         1 / sqrt(x * (1 - x)) with lines dt 2 lw 1.2 lc rgb "#333333" title "1/√(p(1 − p)): large G, ÷std"

    set title "variance of the baseline, fair coin (σ² = 1/4), GRPO-VAR (13.28')" font ",11.5"
    set xlabel "group size G"
    set ylabel "Var[baseline] / σ²"
    set logscale xy
    set xrange [1.8:140]
    set yrange [0.005:1.3]
    set key top right opaque font ",10.5" spacing 1.3
    plot v using 1:($3 / s2) with lines lw 2 lc rgb color[4] title "leave-one-out b_i: 1/(G − 1)", \
         v using 1:($2 / s2) with lines lw 2 lc rgb color[3] title "group mean: 1/G", \
         v using 1:($6 / s2) with points pt 7 ps 1.1 lc rgb color[4] title "Monte Carlo, 2000 groups", \
         v using 1:($5 / s2) with points pt 5 ps 1.0 lc rgb color[3] title "Monte Carlo, 2000 groups"
    unset logscale
    unset multiplot
    unset output
}
