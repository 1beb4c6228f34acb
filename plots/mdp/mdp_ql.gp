# title: Q-learning converging to Q*
# caption: Tabular Q-learning with Robbins–Monro steps α = 1/n(s, a) on the 3-state MDP of
# caption: plots/mdp/mdp_three.json (γ = 0.8, start state 0), GSL's mt19937 seeded with 1: the
# caption: distance max |Q_t − Q*| along the run, from t = 10 to 200000 updates, for an ε-greedy
# caption: (0.1) and a uniformly random behaviour policy (Q-learning is off-policy: both approach
# caption: Q*). The run is the same to the last bit for the same seed.
# equation: Q(s,a) ← Q(s,a) + α [r + γ max_{a′} Q(s′,a′) − Q(s,a)],  α = 1/n(s,a)
# equation: (Σ α = ∞, Σ α² < ∞);  Q*(s,a) = E[r + γ max_{a′} Q*(s′,a′)]
# source: seed 003 §2
# formulas: MDP-QL (egreedy-include, uniform)
#
# Data (mdp_ql_data.sh: rlref eval MDP-QL --variant egreedy-include or uniform ... steps=t, for
# t from 10 to 200000): data/mdp_ql.dat, data/mdp_ql_uniform.dat; columns: t, max |Q_t - Q*|
if (!exists("out")) out = "figures/mdp_ql"
load "style.gp"
egreedy = "data/mdp_ql.dat"
uniform = "data/mdp_ql_uniform.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 900, 560)
    set title "Q-learning on a 3-state MDP (γ = 0.8, α = 1/n(s,a), seed 1)" font TITLEFONT
    set xlabel "update t  (log scale)"
    set ylabel "max_{s,a} |Q_t(s,a) − Q*(s,a)|  (log scale)"
    set logscale xy
    set xrange [10:200000]
    set key top right
    plot egreedy using 1:2 with linespoints lt 1 title "ε-greedy (0.1), draw over all actions", \
         uniform using 1:2 with linespoints lt 2 title "uniformly random behaviour"
    unset logscale xy
}
