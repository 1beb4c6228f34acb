# DAPO-CLIPHIGHER (13.31) and DAPO-OVERLONG (13.34).  Left and middle: the per-token
# surrogate min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A) against the ratio rho for
# A = +1 and A = -1, under PPO's symmetric range (0.2/0.2), DAPO's clip-higher (0.2/0.28) and,
# for A < 0, verl's dual clip max(., c A), c = 3.  Right: the soft overlong penalty against
# |y| (L_max 20480, L_cache 4096) in its three readings: the paper (seed 000, TRL) and
# OpenRLHF hold -1 beyond L_max, verl's line goes on.
# Run from plots/:  gnuplot dapo/dapo.gp   (writes figures/dapo.png and .svg)
# Data (made by the Makefile with rlref):
#   data/dapo_{pos,neg}_{sym,high}.dat, data/dapo_neg_dual.dat
#       rlref table DAPO-CLIPHIGHER --variant symmetric|seed-000|verl
#       --sweep logp=-3:1.6094379124341003:301 old_logp=0 mask=1 adv=+-1
#       -> logp loss surrogate ratio grad clipfrac
#   data/dapo_overlong.dat  rlref eval DAPO-OVERLONG (paper, verl, openrlhf) on
#       lengths 0, 128, ..., 28672 -> index, penalty under each reading

if (!exists("out")) out = "figures/dapo"
set encoding utf8

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1800,600 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1800,600 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,3 title "DAPO: clip-higher (13.31) and the soft overlong penalty (13.34)" font ",14"
    set grid lc rgb "#dddddd" lt 1 lw 0.5
    set key spacing 1.3
    set style arrow 1 nohead dashtype 3 lc rgb "#777777" lw 0.8

    set xlabel "ρ = π_θ/π_{old}"
    set xrange [0:5]
    set title "A = +1: clip-higher lets ρ rise to 1.28 (PPO: 1.2)"
    set key inside right bottom
    set ylabel "surrogate  min(ρA, clip(ρ, 1−ε_{low}, 1+ε_{high}) A)"
    set yrange [-0.2:1.6]
    set arrow 1 from 1.2, graph 0 to 1.2, graph 1 as 1
    set arrow 2 from 1.28, graph 0 to 1.28, graph 1 as 1
    plot "data/dapo_pos_sym.dat" using 4:3 with lines lw 2.4 lc rgb "#1f4e9c" title "PPO, ε = 0.2 / 0.2", \
         "data/dapo_pos_high.dat" using 4:3 with lines lw 1.8 dt 4 lc rgb "#2a7f3f" title "clip-higher, ε = 0.2 / 0.28 (DAPO)"

    set title "A = −1: flat below 1 − ε_{low}; the dual clip holds it at cA"
    set yrange [-5.2:0.2]
    unset arrow
    set arrow 1 from 0.8, graph 0 to 0.8, graph 1 as 1
    set arrow 2 from 3, graph 0 to 3, graph 1 as 1
    set key inside left bottom
    plot "data/dapo_neg_dual.dat" using 4:3 with lines lw 5 lc rgb "#f4a3a8" title "clip-higher + dual clip, c = 3 (verl)", \
         "data/dapo_neg_sym.dat" using 4:3 with lines lw 2.4 lc rgb "#1f4e9c" title "PPO, ε = 0.2 / 0.2", \
         "data/dapo_neg_high.dat" using 4:3 with lines lw 1.8 dt 4 lc rgb "#2a7f3f" title "clip-higher, ε = 0.2 / 0.28"

    unset arrow
    set title "Overlong penalty, L_{max} 20480, L_{cache} 4096"
    set xlabel "|y| (tokens)"
    set ylabel "r_{len}(|y|)"
    set xrange [0:28672]
    set yrange [-2.2:0.2]
    set xtics 4096
    set arrow 1 from 16384, graph 0 to 16384, graph 1 as 1
    set arrow 2 from 20480, graph 0 to 20480, graph 1 as 1
    set key inside left bottom
    plot "data/dapo_overlong.dat" using (($1 - 1) * 128):3 with lines lw 5 lc rgb "#f4a3a8" title "verl (not floored)", \
         "data/dapo_overlong.dat" using (($1 - 1) * 128):4 with lines lw 2.6 lc rgb "#2a7f3f" title "OpenRLHF (−factor beyond L_{max})", \
         "data/dapo_overlong.dat" using (($1 - 1) * 128):2 with lines lw 1.4 dt 2 lc rgb "#1f4e9c" title "paper 13.34, TRL"
    unset multiplot
    unset output
}
