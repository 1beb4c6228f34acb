# title: DAPO: clip-higher and the soft overlong penalty
# caption: Left and middle: the per-token surrogate min(ρA, clip(ρ, 1 − ε_low, 1 + ε_high) A) against
# caption: the ratio ρ for A = +1 and A = −1, under PPO's symmetric range (0.2/0.2), DAPO's
# caption: clip-higher (0.2/0.28) and, for A < 0, verl's dual clip max(·, cA), c = 3; dotted verticals
# caption: at ρ = 1.2 and 1.28 (A = +1), 0.8 and 3 (A = −1). Right: the soft overlong penalty against
# caption: |y| (L_max 20480, L_cache 4096, dotted verticals at 16384 and 20480) in its three readings:
# caption: the paper (seed 000, TRL) and OpenRLHF hold −1 beyond L_max, verl's line goes on.
# equation: surrogate = min(ρA, clip(ρ, 1 − ε_low, 1 + ε_high) A),  ρ = π_θ/π_old  (13.31);
# equation: dual clip (A < 0): max(surrogate, cA);
# equation: r_len(|y|) = 0 for |y| ≤ L_max − L_cache,  (L_max − L_cache − |y|)/L_cache up to L_max,
# equation: −1 beyond L_max  (13.34)
# source: seed 000 13.31, 13.34; verl, OpenRLHF and TRL for the readings
# formulas: DAPO-CLIPHIGHER (symmetric, seed-000, verl), DAPO-OVERLONG (paper, verl, openrlhf)
#
# Data (made by the Makefile with rlref):
#   data/dapo_{pos,neg}_{sym,high}.dat, data/dapo_neg_dual.dat
#       rlref table DAPO-CLIPHIGHER --variant symmetric|seed-000|verl
#       --sweep logp=-3:1.6094379124341003:301 old_logp=0 mask=1 adv=+-1
#       -> logp loss surrogate ratio grad clipfrac
#   data/dapo_overlong.dat  rlref eval DAPO-OVERLONG (paper, verl, openrlhf) on
#       lengths 0, 128, ..., 28672 -> index, penalty under each reading
if (!exists("out")) out = "figures/dapo"
load "style.gp"
overlong = "data/dapo_overlong.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1800, 640)
    set multiplot layout 1,3 title "DAPO: clip-higher (13.31) and the soft overlong penalty (13.34)" font TITLEFONT
    set style arrow 1 nohead dt 3 lc rgb GREY

    set xlabel "ρ = π_θ/π_{old}"
    set xrange [0:5]
    set title "A = +1: clip-higher lets ρ rise to 1.28 (PPO: 1.2)"
    set key inside right bottom
    set ylabel "surrogate  min(ρA, clip(ρ, 1−ε_{low}, 1+ε_{high}) A)"
    set yrange [-0.2:1.6]
    set arrow 1 from 1.2, graph 0 to 1.2, graph 1 as 1
    set arrow 2 from 1.28, graph 0 to 1.28, graph 1 as 1
    plot "data/dapo_pos_sym.dat" using 4:3 with lines lt 1 title "PPO, ε = 0.2 / 0.2", \
         "data/dapo_pos_high.dat" using 4:3 with lines lt 3 title "clip-higher, ε = 0.2 / 0.28 (DAPO)"

    set title "A = −1: flat below 1 − ε_{low}; the dual clip holds it at cA"
    set yrange [-5.2:0.2]
    unset arrow
    set arrow 1 from 0.8, graph 0 to 0.8, graph 1 as 1
    set arrow 2 from 3, graph 0 to 3, graph 1 as 1
    set key inside right top
    plot "data/dapo_neg_dual.dat" using 4:3 with lines lt 5 dt 1 lw 7 title "clip-higher + dual clip, c = 3 (verl)", \
         "data/dapo_neg_sym.dat" using 4:3 with lines lt 1 title "PPO, ε = 0.2 / 0.2", \
         "data/dapo_neg_high.dat" using 4:3 with lines lt 3 title "clip-higher, ε = 0.2 / 0.28"

    unset arrow
    set title "Overlong penalty, L_{max} 20480, L_{cache} 4096"
    set xlabel "|y| (tokens)"
    set ylabel "r_{len}(|y|)"
    set xrange [0:28672]
    set yrange [-2.2:0.2]
    set xtics 4096
    set arrow 1 from 16384, graph 0 to 16384, graph 1 as 1
    set arrow 2 from 20480, graph 0 to 20480, graph 1 as 1
    set key inside left bottom samplen 2
    plot overlong using (($1 - 1) * 128):3 with lines lt 5 dt 1 lw 7 title "verl (not floored)", \
         overlong using (($1 - 1) * 128):4 with lines lt 1 title "OpenRLHF (−factor beyond L_{max})", \
         overlong using (($1 - 1) * 128):2 with lines lt 2 title "paper 13.34, TRL"
    unset multiplot
    unset arrow
    unset style arrow
    set xtics autofreq
    set key samplen 3
}
