# title: Token-level against sequence-level importance ratios (GSPO)
# caption: Left: one token's log-ratio d = log π(y_t) − log π_old(y_t) moves, every other token's
# caption: is 0. The token ratio e^d, which GRPO and PPO clip token by token, leaves PPO's range
# caption: [0.8, 1.2] at |d| ≈ 0.2; GSPO's sequence ratio s = (π(y)/π_old(y))^{1/|y|}, the geometric
# caption: mean, moves only as e^{d/|y|}. Middle: one response of 16 tokens whose log-ratios average
# caption: 0: the token ratios scatter from 0.67 to 1.49 while s = 1. Right: the gradient weight of
# caption: each token for A = +1 (minus ∂loss/∂log π(y_t)): PPO's token clip drops the four tokens
# caption: above 1.2 and weights the others by ρ_t/16; GSPO gives every token s·A/|y| = 1/16, or
# caption: drops the whole response once s leaves its range 1 ± 4·10^{−4}.
# equation: s_i = (π_θ(y_i)/π_old(y_i))^{1/|y_i|} = exp((1/|y_i|) Σ_t log ρ_{i,t});  L = −min(s_i A_i, clip(s_i, 1 − ε_low, 1 + ε_high) A_i)
# source: seed 000 §11 (table 4, figure 12); seed 003
# formulas: GRPO-GSPO (gspo), DAPO-CLIPHIGHER (symmetric)
#
# Data: data/gspo_single.dat (gspo_data.py single), columns d, token_ratio, s for
#   |y| = 4, 16, 64; data/gspo_tokens.dat (gspo_data.py tokens), columns t, logratio,
#   token_ratio, token_grad, s, gspo_grad.
if (!exists("out")) out = "figures/gspo_ratio"
load "style.gp"
single = "data/gspo_single.dat"
tokens = "data/gspo_tokens.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1560, 560)
    set multiplot layout 1,3 title "Importance ratios: per token (PPO, GRPO) against per sequence (GSPO)" font TITLEFONT
    set title "one token's log-ratio d, the rest 0"
    set xlabel "d = log π(y_t) − log π_{old}(y_t)"
    set ylabel "ratio"
    set logscale y
    set xrange [-1.5:1.5]
    set yrange [0.2:5]
    set ytics (0.25, 0.5, 0.8, 1, 1.2, 2, 4)
    set key left top
    set arrow 1 from graph 0, first 0.8 to graph 1, first 0.8 nohead dt 3 lc rgb GREY
    set arrow 2 from graph 0, first 1.2 to graph 1, first 1.2 nohead dt 3 lc rgb GREY
    plot single using 1:2 with lines lt 7 dt 1 title "token ratio e^d", \
         single using 1:3 with lines lt 1 title "s, |y| = 4", \
         single using 1:4 with lines lt 2 title "s, |y| = 16", \
         single using 1:5 with lines lt 3 title "s, |y| = 64"
    unset logscale y
    set ytics autofreq
    set title "one response of 16 tokens"
    set xlabel "token t"
    set xrange [0.5:16.5]
    set yrange [0.6:2]
    set xtics 1, 1, 16
    set key left top
    plot tokens using 1:($4 != 0 ? $3 : NaN) with points lt 1 ps 1.5*PS title "ρ_t, inside PPO's range", \
         tokens using 1:($4 == 0 ? $3 : NaN) with points lt 6 pt 6 ps 1.8*PS title "ρ_t, clipped (A = +1)", \
         tokens using 1:5 with lines lt 2 title "GSPO's s"
    unset arrow 1
    unset arrow 2
    set title "gradient weight of each token, A = +1"
    set ylabel "−∂L/∂log π(y_t)"
    set yrange [0:0.11]
    set key right top
    set style fill solid 1.0 noborder
    set boxwidth 0.4
    plot tokens using ($1 - 0.2):(-$4) with boxes lt 1 title "PPO clip: ρ_t/16, 0 if clipped", \
         tokens using ($1 + 0.2):(-$6) with boxes lt 2 title "GSPO: s/16"
    unset style fill
    set xtics autofreq
    unset multiplot
}
