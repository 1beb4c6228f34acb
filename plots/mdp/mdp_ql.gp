# MDP-QL: tabular Q-learning with Robbins-Monro steps alpha = 1/n(s, a) (003 §2) on the
# 3-state MDP of plots/mdp/mdp_three.json (gamma 0.8, start state 0), GSL's mt19937 seeded with 1:
# the distance max |Q_t - Q*| along the run, for an epsilon-greedy (0.1) and a uniformly
# random behaviour policy (Q-learning is off-policy: both approach Q*).  The run is the same
# to the last bit for the same seed.
# Data (mdp_ql_data.sh: rlref eval MDP-QL --variant egreedy-include or uniform ... steps=t, for
# t from 10 to 200000): data/mdp_ql.dat, data/mdp_ql_uniform.dat; columns: t, max |Q_t - Q*|
if (!exists("out")) out = "figures/mdp_ql"
set encoding utf8
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 900,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 900,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "Q-learning on a 3-state MDP (γ = 0.8, α = 1/n(s,a), seed 1)"
    set grid
    set xlabel "update t  (log scale)"
    set ylabel "max_{s,a} |Q_t(s,a) − Q*(s,a)|  (log scale)"
    set logscale xy
    set xrange [10:200000]
    set key top right
    plot "data/mdp_ql.dat" using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb "#1f77b4" title "ε-greedy (0.1), draw over all actions", \
         "data/mdp_ql_uniform.dat" using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.7 lc rgb "#ff7f0e" title "uniformly random behaviour"
    unset output
}
