# title: DAPO: the soft overlong penalty in its three readings
# caption: DAPO's soft overlong penalty against the response length |y| (L_max 20480, L_cache 4096;
# caption: dotted verticals at L_max − L_cache = 16384 and L_max = 20480) in the three readings
# caption: of the libraries: 0 up to 16384 and linear to −1 at 20480 in each; beyond L_max the
# caption: paper (seed 000's 13.34, TRL) and OpenRLHF hold −1, while verl's line goes on
# caption: (−2 at 24576). DAPO's other change to the loss, clip-higher (13.31), is drawn with the
# caption: clipped surrogate of PPO (figure ppo_clip).
# equation: r_len(|y|) = 0 for |y| ≤ L_max − L_cache;  (L_max − L_cache − |y|)/L_cache for
# equation: L_max − L_cache < |y| ≤ L_max;  −1 beyond L_max  (13.34)
# source: seed 000 (13.34), §6; verl, OpenRLHF and TRL for the readings
# formulas: DAPO-OVERLONG (paper, verl, openrlhf)
#
# Data: data/dapo_overlong.dat (rlref eval DAPO-OVERLONG --variant paper|verl|openrlhf on
#   lengths 0, 128, ..., 28672, then evalcols.py array penalty): index i (|y| = 128 (i − 1)),
#   penalty under paper, verl, openrlhf.
if (!exists("out")) out = "figures/dapo"
load "style.gp"
overlong = "data/dapo_overlong.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 960, 600)
    set title "DAPO's soft overlong penalty, L_{max} 20480, L_{cache} 4096" font TITLEFONT
    set xlabel "|y| (tokens)"
    set ylabel "r_{len}(|y|)"
    set xrange [0:28672]
    set yrange [-2.2:0.2]
    set xtics 4096
    set arrow 1 from 16384, graph 0 to 16384, graph 1 nohead dt 3 lc rgb GREY
    set arrow 2 from 20480, graph 0 to 20480, graph 1 nohead dt 3 lc rgb GREY
    set key inside left bottom
    plot overlong using (($1 - 1) * 128):3 with lines lt 5 dt 1 lw 7 title "verl (not floored)", \
         overlong using (($1 - 1) * 128):4 with lines lt 1 title "OpenRLHF (−factor beyond L_{max}; factor 1)", \
         overlong using (($1 - 1) * 128):2 with lines lt 2 title "paper (13.34), TRL"
    unset arrow 1
    unset arrow 2
    set xtics autofreq
}
