# title: The PPO clipped surrogate against the ratio
# caption: The per-token surrogate min(ρA, clip(ρ, 1 − ε_low, 1 + ε_high) A) against the ratio ρ,
# caption: for A = +1 (left) and A = −1 (right): PPO's symmetric clip (ε = 0.2), the clip-higher
# caption: range (0.2, 0.28), and for A < 0 the dual clip max(·, cA), c = 3; the unclipped ρA dashed.
# caption: Dotted verticals at ρ = 1.2 and 1.28 (left), 0.8 and 3 (right). For A = +1 there is no
# caption: gain beyond ρ = 1 + ε_high; for A = −1 the surrogate is flat below 1 − ε_low.
# equation: surrogate = min(ρA, clip(ρ, 1 − ε, 1 + ε) A),  ρ = π_θ/π_old,
# equation: clip(x, a, b) = min(max(x, a), b)  (13.12);  dual clip (A < 0): max(surrogate, cA)
# source: seed 000 13.12; seed 003 (PPO-CLIP-EX2); verl for the dual clip
# formulas: PPO-CLIP, PPO-CLIP-EX2, PPO-DUALCLIP (none, dual-clip)
#
# Data (made by the Makefile with rlref):
#   data/ppo_clip_pos.dat, _neg.dat  rlref table PPO-CLIP-EX2 --sweep rho=0:5:501 adv=+-1
#                                    -> rho clipped unclipped surrogate
#   data/ppo_cliphigh_pos.dat, _neg.dat, data/ppo_dual_neg.dat
#                                    rlref table PPO-DUALCLIP --sweep logp=-10:1.6094379124341003:1001
#                                    old_logp=0 adv=+-1 mask=1 (none with eps_high=0.28; dual-clip)
#                                    -> logp loss surrogate ratio grad clipfrac
if (!exists("out")) out = "figures/ppo_clip"
load "style.gp"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1400, 640)
    set multiplot layout 1,2 title "The clipped surrogate (13.12) against the ratio ρ = π_θ/π_{old}" font TITLEFONT
    set xlabel "ρ"
    set xrange [0:5]
    set style arrow 1 nohead dt 3 lc rgb GREY

    set title "A = +1: no gain beyond ρ = 1 + ε_{high}"
    set key inside right bottom
    set ylabel "surrogate  min(ρA, clip(ρ) A)"
    set yrange [-0.2:3.2]
    set arrow 1 from 1.2, graph 0 to 1.2, graph 1 as 1
    set arrow 2 from 1.28, graph 0 to 1.28, graph 1 as 1
    plot "data/ppo_clip_pos.dat" using 1:3 with lines lt 8 title "ρA (unclipped)", \
         "data/ppo_clip_pos.dat" using 1:4 with lines lt 1 title "PPO, ε = 0.2", \
         "data/ppo_cliphigh_pos.dat" using 4:3 with lines lt 3 title "clip-higher, ε = 0.2 / 0.28"

    set title "A = −1: flat below ρ = 1 − ε_{low}; the dual clip bounds it by cA"
    set yrange [-5.2:0.2]
    unset arrow
    set arrow 1 from 0.8, graph 0 to 0.8, graph 1 as 1
    set arrow 2 from 3, graph 0 to 3, graph 1 as 1
    set key inside left bottom
    plot "data/ppo_dual_neg.dat" using 4:3 with lines lt 5 dt 1 lw 7 title "dual clip, c = 3 (verl)", \
         "data/ppo_clip_neg.dat" using 1:3 with lines lt 8 title "ρA (unclipped)", \
         "data/ppo_clip_neg.dat" using 1:4 with lines lt 1 title "PPO, ε = 0.2 (TRL, seeds)", \
         "data/ppo_cliphigh_neg.dat" using 4:3 with lines lt 3 title "clip-higher, ε = 0.2 / 0.28"
    unset multiplot
    unset arrow
    unset style arrow
}
