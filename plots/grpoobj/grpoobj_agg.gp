# GRPO-AGG: the weight d loss / d L_t of every token under each loss-aggregation mode
# (CONVENTIONS.md "Loss aggregation"; seed 000 (13.32), (13.33); seed 003), for one group of
# four sequences of 2, 5, 9 and 4 tokens (N = 20).
# Run from plots/:  gnuplot grpoobj/grpoobj_agg.gp   (writes figures/grpoobj_agg.png and .svg)
# Data: data/grpoobj_agg.dat (plots/grpoobj/grpoobj.mk: rlref eval GRPO-AGG --variant V, the
# "weights" output): column 1 the token t, columns 2..9 the modes in the order below.

if (!exists("out")) out = "figures/grpoobj_agg"
set encoding utf8

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
array color[nm] = ["#08306b", "#e6850e", "#2ca25f", "#7b3294", "#d7191c", "#9ecae1", "#636363", "#f1b6da"]
array dash[nm]  = [1, 1, 1, 1, 2, 3, 1, 1]
array width[nm] = [5, 2.5, 2.5, 2.5, 2, 2, 2.5, 2.5]

do for [fmt in "png svg"] {
  if (fmt eq "png") {
    set terminal pngcairo size 1200,760 noenhanced font "DejaVu Sans,11"
  } else {
    set terminal svg size 1200,760 noenhanced font "DejaVu Sans,11" dynamic
  }
  set output out . "." . fmt
  set title "Per-token weight of each aggregation mode: one group, sequences of 2, 5, 9 and 4 tokens"
  set xlabel "token t (the sequences one after another)"
  set ylabel "weight ∂loss/∂L(t)"
  set logscale y
  set yrange [0.008:2]
  set xrange [0.5:20.5]
  set xtics 1, 1, 20
  set grid ytics
  set key below vertical maxrows 4 maxcols 2 Left reverse spacing 1.2 width 1
  set bmargin 9
  set arrow 1 from 2.5, graph 0 to 2.5, graph 1 nohead dt 3 lc rgb "#999999"
  set arrow 2 from 7.5, graph 0 to 7.5, graph 1 nohead dt 3 lc rgb "#999999"
  set arrow 3 from 16.5, graph 0 to 16.5, graph 1 nohead dt 3 lc rgb "#999999"
  set label 1 "y1" at 1.5, graph 0.96 center
  set label 2 "y2" at 5, graph 0.96 center
  set label 3 "y3" at 12, graph 0.96 center
  set label 4 "y4" at 18.5, graph 0.96 center
  plot for [k=1:nm] dat using ($1):(column(k + 1)) with histeps lw width[k] dt dash[k] \
       lc rgb color[k] title title[k]
  unset arrow
  unset label
  unset logscale y
}
set output
