# PPO-CLIP (13.12), PPO-DUALCLIP: the per-token surrogate min(rho A, clip(rho, 1 - eps_low,
# 1 + eps_high) A) against the ratio rho, for A = +1 (left) and A = -1 (right): PPO's
# symmetric clip (eps 0.2), the clip-higher range (0.2, 0.28), and for A < 0 the dual clip
# max(., c A), c = 3; the unclipped rho A dashed.
# Run from plots/:  gnuplot ppo/ppo_clip.gp   (writes figures/ppo_clip.png and .svg)
# Data (made by the Makefile with rlref):
#   data/ppo_clip_pos.dat, _neg.dat  rlref table PPO-CLIP-EX2 --sweep rho=0:5:501 adv=+-1
#                                    -> rho clipped unclipped surrogate
#   data/ppo_cliphigh_pos.dat, _neg.dat, data/ppo_dual_neg.dat
#                                    rlref table PPO-DUALCLIP --sweep logp=-3:1.6094379124341003:301
#                                    old_logp=0 adv=+-1 mask=1 (none with eps_high=0.28; dual-clip)
#                                    -> logp loss surrogate ratio grad clipfrac

if (!exists("out")) out = "figures/ppo_clip"
set encoding utf8

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1300,600 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1300,600 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "The clipped surrogate (13.12) against the ratio ρ = π_θ/π_{old}" font ",14"
    set xlabel "ρ"
    set xrange [0:5]
    set grid lc rgb "#dddddd" lt 1 lw 0.5
    set key spacing 1.3
    unset arrow
    set style arrow 1 nohead dashtype 3 lc rgb "#777777" lw 0.8

    set title "A = +1: no gain beyond ρ = 1 + ε_{high}"
    set key inside right bottom
    set ylabel "surrogate  min(ρA, clip(ρ) A)"
    set yrange [-0.2:3.2]
    set arrow 1 from 1.2, graph 0 to 1.2, graph 1 as 1
    set arrow 2 from 1.28, graph 0 to 1.28, graph 1 as 1
    plot "data/ppo_clip_pos.dat" using 1:3 with lines dt 2 lw 1.4 lc rgb "#888888" title "ρA (unclipped)", \
         "data/ppo_clip_pos.dat" using 1:4 with lines lw 2.4 lc rgb "#1f4e9c" title "PPO, ε = 0.2", \
         "data/ppo_cliphigh_pos.dat" using 4:3 with lines lw 1.8 dt 4 lc rgb "#2a7f3f" title "clip-higher, ε = 0.2 / 0.28"

    set title "A = −1: flat below ρ = 1 − ε_{low}; the dual clip bounds it by cA"
    set yrange [-5.2:0.2]
    unset arrow
    set arrow 1 from 0.8, graph 0 to 0.8, graph 1 as 1
    set arrow 2 from 3, graph 0 to 3, graph 1 as 1
    set key inside left bottom
    plot "data/ppo_dual_neg.dat" using 4:3 with lines lw 5 lc rgb "#f4a3a8" title "dual clip, c = 3 (verl)", \
         "data/ppo_clip_neg.dat" using 1:3 with lines dt 2 lw 1.4 lc rgb "#888888" title "ρA (unclipped)", \
         "data/ppo_clip_neg.dat" using 1:4 with lines lw 2.4 lc rgb "#1f4e9c" title "PPO, ε = 0.2 (TRL, seeds)", \
         "data/ppo_cliphigh_neg.dat" using 4:3 with lines lw 1.8 dt 4 lc rgb "#2a7f3f" title "clip-higher, ε = 0.2 / 0.28"
    unset multiplot
    unset output
}
