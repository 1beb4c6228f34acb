# title: Per-token weight of each loss-aggregation mode
# caption: One GRPO group of four sequences of 2, 5, 9 and 4 tokens (N = 20 tokens, B = 4,
# caption: L_const = 20, micro-batches of two sequences), every token's loss term L_t = 1: the
# caption: weight ∂loss/∂L_t of each token under eight aggregation modes, the sequences one after
# caption: another (dotted verticals at their borders, log scale). token-mean weighs every token
# caption: 1/N; seq-mean-token-mean gives every sequence the same total, so short sequences' tokens
# caption: weigh more; group-mean length 1/(B L̄) and sum-norm without B 1/L_const equal token-mean's
# caption: 1/N = 0.05 here (one line); the sum-norm modes divide by the constant L_const (with
# caption: or without B); the token sum weighs each token 1.
# equation: token-mean: (1/Σᵢ|yᵢ|) Σᵢ Σₜ L_{i,t}  (13.33);  seq-mean-token-mean: (1/G) Σᵢ (1/|yᵢ|) Σₜ L_{i,t}  (13.32)
# source: seed 000 §6.3; seed 003; CONVENTIONS.md "Loss aggregation" (TRL, verl, OpenRLHF)
# formulas: GRPO-AGG (token-mean, seq-mean-token-mean, seq-mean-token-sum,
# formulas: seq-mean-token-sum-norm, seq-mean-token-sum-norm-no-b, group-mean-length, token-sum,
# formulas: micro-batch-token-mean)
#
# Data: data/grpoobj_agg.dat (plots/grpoobj/grpoobj.mk: rlref eval GRPO-AGG --variant V, the
# "weights" output): column 1 the token t, columns 2..9 the modes in the order below.
if (!exists("out")) out = "figures/grpoobj_agg"
load "style.gp"
dat = "data/grpoobj_agg.dat"

nm = 8
array title[nm] = ["token-mean 1/N (verl, OpenRLHF, TRL dapo; 13.33)", \
                   "seq-mean-token-mean 1/(B n_i) (TRL grpo; 13.32)", \
                   "seq-mean-token-sum 1/B (verl)", \
                   "sum-norm 1/(B L_const), L_const = 20 (TRL dr_grpo)", \
                   "sum-norm without B 1/L_const (verl < Feb 2026)", \
                   "group-mean length 1/(B L̄) = 1/N (seed 003)", \
                   "token sum 1 (seed 003 pseudo-code)", \
                   "micro-batch token means, 2 sequences each"]

do for [fmt in FORMATS] {
    eval terminal(fmt, 1200, 800)
    set termoption noenhanced
    set title "Per-token weight of each aggregation mode: one group, sequences of 2, 5, 9 and 4 tokens" font TITLEFONT
    set xlabel "token t (the sequences one after another)"
    set ylabel "weight ∂loss/∂L(t)"
    set logscale y
    set yrange [0.008:2]
    set xrange [0.55:20.45]   # inside the histeps ends, which drop to the axis
    set xtics 1, 1, 20
    set key below vertical maxrows 4 maxcols 2 Left reverse width -5
    set bmargin 10
    set arrow 1 from 2.5, graph 0 to 2.5, graph 1 nohead dt 3 lc rgb GREY
    set arrow 2 from 7.5, graph 0 to 7.5, graph 1 nohead dt 3 lc rgb GREY
    set arrow 3 from 16.5, graph 0 to 16.5, graph 1 nohead dt 3 lc rgb GREY
    set label 1 "y1" at 1.5, graph 0.96 center
    set label 2 "y2" at 5, graph 0.96 center
    set label 3 "y3" at 12, graph 0.96 center
    set label 4 "y4" at 18.5, graph 0.96 center
    set label 5 "token-mean, group-mean length and\nsum-norm without B coincide: 1/N = 1/20" at 12, 0.075 center front
    plot for [k=1:nm] dat using ($1):(column(k + 1)) with histeps lt k title title[k]
    unset arrow
    unset label
    unset logscale y
}
