# title: DPO training as TRL logs it
# caption: The two runs of the DPO training figure as TRL's DPOTrainer logs them, with the
# caption: implicit reward β h(y), h = log π_θ(y) − log π_ref(y). Left: the population DPO loss on
# caption: the tiny LM (oracles/models/tab3.json, β = 0.5, lr 40), the expectations over its pairs:
# caption: rewards/chosen and rewards/rejected both fall below 0 while rewards/margins rises to
# caption: E[r_w − r_l] = 0.93 at π*. Middle: rewards/accuracies, the share of pairs with
# caption: β h(y_w) > β h(y_l), leaves 0 at the first step and stays at 0.74, not 1: the labels are
# caption: Bradley–Terry draws, so a pair labelled against its rewards is never ordered "right"
# caption: (P(r_w > r_l) = 0.63), and the pairs of equal reward, tied at π*, count by how the
# caption: trained policy breaks their tie (up to 0.86); the mean loss per pair falls from
# caption: log 2. Right: one pair in a bigram model (oracles/models/displace.json, β = 1): the
# caption: chosen reward falls too (likelihood displacement) while the margin grows; the
# caption: accuracy is 1 from the first step.
# equation: rewards/chosen = mean β h(y_w);  rewards/rejected = mean β h(y_l);
# equation: rewards/accuracies = mean [β h(y_w) > β h(y_l)];  rewards/margins = mean β (h(y_w) − h(y_l))  (13.18, 13.21)
# source: seed 000 §4.3, (13.18)–(13.21); TRL's DPOTrainer for the logged quantities
# formulas: DPO-EQUIV, DPO-DISPLACE
#
# Data: data/dpo_trl_logs.dat, data/dpo_trl_pair.dat (rlref train ... --trl-log), columns
#   step, loss, rewards/chosen, rewards/rejected, rewards/accuracies, rewards/margins.
if (!exists("out")) out = "figures/dpo_trl_logs"
load "style.gp"
pop = "data/dpo_trl_logs.dat"
pair = "data/dpo_trl_pair.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1560, 560)
    set multiplot layout 1,3 title "DPO training as TRL's DPOTrainer logs it (exact gradients)" font TITLEFONT
    set xlabel "step"
    set xrange [0:120]
    set title "population loss: the logged rewards"
    set ylabel "implicit reward β h  (nats)"
    set yrange [-1.5:1.6]
    set key right top
    plot 0 with lines lc rgb GREY lw 1 dt 1 notitle, \
         pop using 1:6 with lines lt 3 title "rewards/margins", \
         pop using 1:3 with lines lt 1 title "rewards/chosen", \
         pop using 1:4 with lines lt 2 title "rewards/rejected"
    set title "population loss: accuracy and loss"
    set ylabel "share of pairs,  loss per pair"
    set yrange [0:1]
    set key right bottom
    plot pop using 1:5 with lines lt 1 title "rewards/accuracies", \
         pop using 1:2 with lines lt 2 title "loss (from log 2)"
    set title "one preference pair"
    set ylabel "implicit reward β h  (nats)"
    set xrange [0:200]
    set yrange [-12:7]
    set key at graph 0.98, graph 0.62 right top
    plot 0 with lines lc rgb GREY lw 1 dt 1 notitle, \
         pair using 1:6 with lines lt 3 title "rewards/margins", \
         pair using 1:3 with lines lt 1 title "rewards/chosen", \
         pair using 1:4 with lines lt 2 title "rewards/rejected"
    unset multiplot
}
