# MDP-OPT: value iteration's distance to V* against the contraction bound (003 §1).
# The 5-state chain of plots/mdp/mdp_river.json (gamma 0.9, from V_0 = 0).  Left: max_s |V_k(s) - V*(s)|
# and gamma^k max_s |V_0(s) - V*(s)|, the bound of a gamma-contraction in the max norm, down
# to 1e-68 (certified at 256 bits; the rounding level, about 1e-76, is reached after 1650
# sweeps).  Right: their ratio, which never exceeds 1 (here it settles near 0.83: the error
# shrinks at the bound's rate gamma).
# Data (mdp_vi_data.sh: rlref eval MDP-OPT --variant value-iteration ... k=K, K = 0, 15, ..., 1500):
#   data/mdp_vi.dat; columns: k, max |V_k - V*|, gamma^k max |V_0 - V*|
if (!exists("out")) out = "figures/mdp_vi"
set encoding utf8
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "Value iteration on a 5-state chain (γ = 0.9)" font ",14"
    set grid
    set title "error and contraction bound"
    set xlabel "sweep k"
    set ylabel "max_s |V_k(s) − V*(s)|  (log scale)"
    set logscale y
    set format y "10^{%L}"
    set yrange [1e-70:100]
    set key top right
    plot "data/mdp_vi.dat" using 1:3 with lines lw 3 dt 2 lc rgb "#d62728" title "bound γ^k max|V_0 − V*|", \
         "" using 1:2 with linespoints lw 1.5 pt 7 ps 0.4 lc rgb "#1f77b4" title "max|V_k − V*| (certified)"
    unset logscale y
    set format y "%g"
    set title "error / bound (≤ 1)"
    set ylabel "max|V_k − V*| / (γ^k max|V_0 − V*|)"
    set yrange [0:1.05]
    set key bottom right
    plot "data/mdp_vi.dat" using 1:($2/$3) with lines lw 2 lc rgb "#1f77b4" title "ratio", \
         1 with lines lw 1 dt 3 lc rgb "black" title "1"
    unset multiplot
    unset output
}
