# title: RLOO's leave-one-out baseline against the group mean
# caption: GRPO-STDBIAS, GRPO-VAR: RLOO's leave-one-out baseline against the group mean. Left:
# caption: the expected weight per sample w(p)/G that a binary-reward prompt of success rate p
# caption: gets, for G = 8, under (r − mean)/std with ddof 0 (GRPO, seed 000) and ddof 1 (seed 003),
# caption: r − mean (Dr.GRPO, (G − 1)/G = 0.875) and leave-one-out (RLOO, 1); the dashed curve is
# caption: the large-G limit 1/√(p(1 − p)) of dividing by the std. Right: the variance of the two
# caption: baselines against G for a fair coin (σ² = 1/4), exact (lines) and by a seeded
# caption: Monte-Carlo run of 2000 groups (points).
# equation: E[Σ_i Â_i ∇log π(y_i)] = w(p) ∇p;  RLOO: Â_i = r_i − (1/(G − 1)) Σ_{j≠i} r_j  (13.28);
# equation: Var[r̄] = σ²/G,  Var[b_i^loo] = σ²/(G − 1)  (13.28')
# source: seed 000 §11, (13.28), (13.28'); seed 003 (std ddof 1)
# formulas: GRPO-STDBIAS (seed-000, seed-003, no-std, rloo), GRPO-VAR (exact, monte-carlo)
#
# Data: data/grpobase_weight.dat (rlref table GRPO-STDBIAS: p, weight, per_sample; one block per
# advantage) and data/grpobase_var.dat (rlref eval GRPO-VAR: G, Var[mean], Var[b_loo], removed,
# Monte-Carlo Var[mean], Var[b_loo]).
if (!exists("out")) out = "figures/grpobase_rloo"
load "style.gp"

w = "data/grpobase_weight.dat"
v = "data/grpobase_var.dat"
s2 = 0.25

array name[4]  = ["(r − mean)/std, ddof 0  (GRPO, seed 000)", "(r − mean)/std, ddof 1  (seed 003)", \
                  "r − mean  (Dr.GRPO): (G − 1)/G = 0.875", "leave-one-out (RLOO, 13.28): 1"]
array lts[4] = [1, 6, 8, 2]

do for [fmt in FORMATS] {
    eval terminal(fmt, 1500, 720)
    set multiplot layout 1,2 title "RLOO's leave-one-out baseline against the group mean" font TITLEFONT

    set title "weight per sample of a prompt with success rate p, G = 8"
    set xlabel "success rate p"
    set ylabel "w(p)/G   (E[Σ_i Â_i ∇log π(y_i)] = w(p) ∇p)"
    set xrange [0:1]
    set yrange [0:3.2]
    set key bottom center spacing 1.0
    plot for [k = 1:4] w index (k - 1) using 1:3 with lines lt lts[k] title name[k], \
         1 / sqrt(x * (1 - x)) with lines lt 7 title "1/√(p(1 − p)): large G, ÷std"

    set title "variance of the baseline, fair coin (σ² = 1/4)"
    set xlabel "group size G"
    set ylabel "Var[baseline] / σ²"
    set logscale xy
    set xrange [1.8:140]
    set yrange [0.005:1.3]
    set key top right spacing 1.15
    plot v using 1:($3 / s2) with lines lt lts[4] title "leave-one-out b_i: 1/(G − 1)", \
         v using 1:($2 / s2) with lines lt lts[3] title "group mean: 1/G", \
         v using 1:($6 / s2) with points lt lts[4] title "Monte Carlo, 2000 groups", \
         v using 1:($5 / s2) with points lt lts[3] title "Monte Carlo, 2000 groups"
    unset logscale
    unset multiplot
}
