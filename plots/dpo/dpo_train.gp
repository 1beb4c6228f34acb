# title: DPO trained with exact gradients on the tiny LM
# caption: Left: the population DPO loss on the Bradley–Terry preferences of the reward
# caption: (oracles/models/tab3.json, β = 0.5, lr 40, 600 steps): KL(π_θ ‖ π*) falls
# caption: geometrically to the rounding level of binary64 training (values below 10^{−15}, rounding
# caption: noise, are not drawn) and the margin of the best over the worst sequence
# caption: (right axis) reaches (r_w − r_l)/β = 9 (13.19). Right: one preference pair in a
# caption: bigram model (oracles/models/displace.json, lr 0.5, 200 steps): log π(y_w) and
# caption: log π(y_l) both fall while the margin grows (likelihood displacement).
# equation: L_DPO = −E log σ(β(h_w − h_l)),  h = log π_θ(y)/π_ref(y)  (13.21);
# equation: minimiser π* = π_ref e^{r/β}/Z  (13.17),  so h_w − h_l → (r_w − r_l)/β  (13.19)
# source: seed 000 §4.3, 13.17–13.21
# formulas: DPO-EQUIV, DPO-DISPLACE
#
# Data (rlref train): data/dpo_train.dat, data/dpo_displace.dat
#   columns: step, objective, KL to pi*, log pi(y_w), log pi(y_l), margin
if (!exists("out")) out = "figures/dpo_train"
load "style.gp"
train = "data/dpo_train.dat"
displace = "data/dpo_displace.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1400, 600)
    set multiplot layout 1,2 title "DPO trained with exact gradients on the tiny LM" font TITLEFONT
    set title "population DPO loss: π_θ converges to π*"
    set xlabel "step"
    set ylabel "KL(π_θ ‖ π*)  (log scale)"
    set logscale y
    set format y "10^{%L}"
    set yrange [1e-16:10]
    set ytics nomirror
    set y2label "margin h_w − h_l"
    set y2tics
    set y2range [0:10]
    set key at graph 0.98, graph 0.87 right top
    plot train using 1:($3 > 1e-15 ? $3 : NaN) with lines lt 1 title "KL(π_θ ‖ π*)", \
         "" using 1:6 axes x1y2 with lines lt 2 title "margin (→ (r_w − r_l)/β = 9)"
    unset logscale y
    set format y "%g"
    unset y2tics
    unset y2label
    set ytics mirror
    set autoscale y
    set title "one preference pair: likelihood displacement"
    set ylabel "log π_θ(y)"
    set y2label "margin h_w − h_l"
    set y2tics
    set ytics nomirror
    set yrange [-20:0]
    set y2range [0:10]
    set key right top
    plot displace using 1:4 with lines lt 1 title "log π_θ(y_w)", \
         "" using 1:5 with lines lt 3 title "log π_θ(y_l)", \
         "" using 1:6 axes x1y2 with lines lt 2 title "margin h_w − h_l (right axis)"
    unset multiplot
    unset y2tics
    unset y2label
    set ytics mirror
    set yrange [*:*]
    set y2range [*:*]
}
