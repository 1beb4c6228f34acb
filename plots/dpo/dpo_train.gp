# DPO-EQUIV and DPO-DISPLACE: exact-gradient DPO training on the tiny LM.
# Left: the population DPO loss on the Bradley-Terry preferences of the reward
# (oracles/models/tab3.json, beta 0.5, lr 40): KL(pi_theta || pi*) falls to 0 and the
# margin of the best over the worst sequence reaches (r_w - r_l)/beta = 9 (13.19).
# Right: one preference pair in a bigram model (oracles/models/displace.json, lr 0.5):
# log pi(y_w) and log pi(y_l) both fall while the margin grows.
# Data (rlref train): data/dpo_train.dat, data/dpo_displace.dat
#   columns: step, objective, KL to pi*, log pi(y_w), log pi(y_l), margin
if (!exists("out")) out = "figures/dpo_train"
set encoding utf8
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "DPO trained with exact gradients on the tiny LM" font ",14"
    set grid
    set title "population DPO loss: converges to π* (DPO-EQUIV)"
    set xlabel "step"
    set ylabel "KL(π_θ ‖ π*)  (log scale)"
    set logscale y
    set yrange [1e-17:10]
    set y2label "margin h_w − h_l"
    set y2tics
    set y2range [0:10]
    set key right center
    plot "data/dpo_train.dat" using 1:(abs($3) > 1e-17 ? abs($3) : 1e-17) with lines lw 2 title "KL(π_θ ‖ π*)", \
         "" using 1:6 axes x1y2 with lines lw 2 dt 2 title "margin (→ (r_w − r_l)/β = 9)"
    unset logscale y
    unset y2tics
    unset y2label
    set autoscale y
    set title "one preference pair: likelihood displacement (DPO-DISPLACE)"
    set ylabel "log π_θ(y)   /   margin"
    set key left bottom
    plot "data/dpo_displace.dat" using 1:4 with lines lw 2 title "log π_θ(y_w)", \
         "" using 1:5 with lines lw 2 title "log π_θ(y_l)", \
         "" using 1:6 with lines lw 2 dt 2 title "margin h_w − h_l"
    unset multiplot
}
