# GRPO-ADV: group-relative advantages (seed 000 (13.23), seeds 001 and 003) of the
# worked groups under each convention, one panel per group, one bar per convention.
# Run from plots/:  gnuplot grpo/grpo_adv.gp   (writes figures/grpo_adv.png and .svg)
# Data: data/grpo_adv.dat (grpo_adv_data.sh: rlref eval GRPO-ADV --variant V ...), one block
# per group: column 1 the response index i, columns 2..10 the conventions in the order below.

if (!exists("out")) out = "figures/grpo_adv"
set encoding utf8

dat = "data/grpo_adv.dat"

nv = 9
array name[nv]  = ["seed-000", "seed-001", "seed-003", "trl", "verl", "verl-vectorized-old", "openrlhf", \
                   "eps-in-sqrt", "no-std"]
array descr[nv] = ["ddof 0, ε = 0  (seed 000, 13.23)", \
                   "ddof 0, ε = 1e−8, 0 if std ≤ ε  (seed 001)", \
                   "ddof 1, no ε  (seed 003)", \
                   "ddof 1, ε = 1e−4  (TRL)", \
                   "ddof 1, ε = 1e−6  (verl)", \
                   "binary32 one pass, ε = 1e−6  (old verl)", \
                   "ddof 1, ε = 1e−9  (OpenRLHF)", \
                   "ddof 1, (r − mean)/√(var + 1e−8)", \
                   "r − mean, no scaling"]
array color[nv] = ["#08306b", "#4a90d9", "#9ecae1", "#e6850e", "#2ca25f", "#d7191c", "#7b3294", "#f1b6da", "#969696"]

ngroups = 5
array gsize[ngroups]  = [4, 2, 4, 4, 2]
array gtitle[ngroups] = ["r = [1, 0, 0, 0]:  ddof 0 → √3 ≈ 1.73,  ddof 1 → 1.5", \
                         "r = [0, 1e−4]:  almost no spread, ε sets the scale", \
                         "r = [1, 0, 0, 1]:  seed 000 §5.1, mean 0.5, std 0.5 → ±1", \
                         "r = [0.2, 0.8, 0.4, 0.6]:  seed 003, σ ≈ 0.26 (ddof 1)", \
                         "r = [10000, 10001]:  binary32 Σr²/G − mean² cancels"]

ymax = 2.0
bw = 0.09                             # bar width: nv bars around each response index
xoff(k) = (k - (nv + 1) / 2.0) * bw
clip(v) = (v > ymax ? ymax : (v < -ymax ? -ymax : v))
offscale(v) = (abs(v) > ymax)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1600,1000 enhanced font ",11" linewidth 1.2
    } else {
        set terminal svg size 1600,1000 enhanced font "DejaVu Sans,11" linewidth 1.2 background "white"
    }
    set output out.".".fmt

    set multiplot layout 2,3 title "GRPO group-relative advantage  Â_i = (r_i − mean(r)) / (std(r) + ε)   (13.23):  the worked groups under each convention" font ",14"

    set style fill solid 0.9 border rgb "#333333"
    set boxwidth bw absolute
    set yrange [-ymax:ymax]
    set ytics 0.5
    set grid ytics lc rgb "#dddddd" lt 1 lw 0.6
    set xzeroaxis lt 1 lc rgb "#333333" lw 1
    set ylabel "advantage Â_i"
    set xlabel "response i within the group"
    unset key

    do for [g = 1:ngroups] {
        set title gtitle[g] font ",11.5"
        set xrange [0.45 : gsize[g] + 0.55]
        set xtics 1
        unset label
        if (g == 2) {
            set label 1 "Â_2:  ddof 0 → 1,  OpenRLHF 0.707,  verl 0.70,\nε in √ 0.41,  TRL 0.29,  old verl 0.05,  no-std 5e−5" at graph 0.03, graph 0.95 left front font ",10.5"
        }
        if (g == 5) {
            set label 1 "old verl (binary32): ±499.5, off scale" at graph 0.03, graph 0.95 left front font ",10.5" textcolor rgb color[6]
        }
        plot for [k = 1:nv] dat index (g - 1) using ($1 + xoff(k)):(clip(column(k + 1))) \
                 with boxes lc rgb color[k] notitle, \
             for [k = 1:nv] dat index (g - 1) \
                 using ($1 + xoff(k) + bw / 2):(offscale(column(k + 1)) ? sgn(column(k + 1)) * ymax * 0.9 : NaN):(sprintf("%+.1f", column(k + 1))) \
                 with labels left offset 0.3,0 font ",10.5" textcolor rgb color[k] notitle
    }

    # the sixth cell holds the legend
    unset title
    unset label
    unset border
    unset tics
    unset grid
    unset xzeroaxis
    unset xlabel
    unset ylabel
    set lmargin 2
    set rmargin 1
    set xrange [0:1]
    set yrange [0:1]
    set key at graph 0, graph 0.92 left top vertical Left reverse samplen 2 spacing 1.6 font ",11.5" \
        title "rlref GRPO-ADV --variant" 
    plot for [k = 1:nv] NaN with boxes lc rgb color[k] title sprintf("%s:  %s", name[k], descr[k])
    unset multiplot
    unset output
    # restore what the legend cell changed, for the next format
    unset key
    set border
    set tics
    set lmargin -1
    set rmargin -1
}
