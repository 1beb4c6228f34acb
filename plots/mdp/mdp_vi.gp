# title: Value iteration against its contraction bound
# caption: Value iteration on the 5-state chain of plots/mdp/mdp_river.json (γ = 0.9, from
# caption: V_0 = 0). Left: the error max_s |V_k(s) − V*(s)| and γ^k max_s |V_0(s) − V*(s)|, the
# caption: bound of a γ-contraction in the max norm, down to 1e-68 (certified at 256 bits; the
# caption: rounding level, about 1e-76, is reached after 1650 sweeps); the two lie on one another
# caption: at this scale, the bound the wide grey band under the error. Right: their ratio over the
# caption: first 30 sweeps, never above 1: it falls from 1 while the error shrinks faster than
# caption: γ per sweep, then settles near 0.83 from about the 10th sweep on, where the error
# caption: shrinks at exactly the bound's rate γ (it stays there to k = 1500).
# equation: V_{k+1}(s) = max_a [R(s,a) + γ Σ_{s′} P(s′|s,a) V_k(s′)];
# equation: ‖V_k − V*‖_∞ ≤ γ^k ‖V_0 − V*‖_∞
# source: seed 003 §1
# formulas: MDP-OPT (value-iteration)
#
# Data (mdp_vi_data.sh: rlref eval MDP-OPT --variant value-iteration ... k=K, K = 0, 1, ..., 30, 45, 60, ..., 1500):
#   data/mdp_vi.dat; columns: k, max |V_k - V*|, gamma^k max |V_0 - V*|
if (!exists("out")) out = "figures/mdp_vi"
load "style.gp"
data = "data/mdp_vi.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1200, 560)
    set multiplot layout 1,2 title "Value iteration on a 5-state chain (γ = 0.9)" font TITLEFONT
    set title "error and contraction bound"
    set xlabel "sweep k"
    set ylabel "max_s |V_k(s) − V*(s)|  (log scale)"
    set logscale y
    set format y "10^{%L}"
    set yrange [1e-70:100]
    set mytics 1
    set key top right
    plot data using 1:3 with lines lt 8 dt 1 lw 8 title "bound γ^k max|V_0 − V*|", \
         "" using 1:2 with linespoints lt 1 ps 0.5*PS title "max|V_k − V*| (certified)"
    set mytics default
    unset logscale y
    set format y "%g"
    set title "error / bound, the first 30 sweeps (≤ 1)"
    set ylabel "max|V_k − V*| / (γ^k max|V_0 − V*|)"
    set xrange [0:30]
    set yrange [0.8:1.02]
    set key top right
    plot data using 1:($2/$3) with linespoints lt 1 ps 0.7*PS title "ratio", \
         1 with lines lt 7 title "1"
    unset xrange
    unset multiplot
    unset format y
    unset yrange
}
