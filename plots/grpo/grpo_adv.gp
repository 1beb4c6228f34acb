# title: Group-relative advantages under every convention
# caption: The advantages Â_i of five worked groups under nine conventions, one bar per
# caption: convention. Each group (a column of two panels) is drawn twice: the seeds'
# caption: conventions and the plain centring r − mean (upper panel), the libraries' (lower
# caption: panel). r = [1, 0, 0, 0]: ddof 0 gives √3 ≈ 1.73, ddof 1 gives 1.5; r = [0, 1e−4]:
# caption: almost no spread, so ε sets the scale (Â_2 from 1 at ddof 0 down to 5e−5 without
# caption: scaling); r = [1, 0, 0, 1] (seed 000 §5.1): mean 0.5, std 0.5, Â = ±1;
# caption: r = [0.2, 0.8, 0.4, 0.6] (seed 003): σ ≈ 0.26 at ddof 1; r = [10000, 10001]: the
# caption: binary32 one-pass variance Σr²/G − mean² cancels, old verl gives ±499.5 (off scale,
# caption: value printed). The axis is cut at ±2.
# equation: Â_i = (r_i − mean(r)) / (std(r) + ε),  Â_i = 0 if std(r) = 0  (13.23)
# source: seed 000 §5.1; seeds 001 and 003; CONVENTIONS.md (TRL, verl, OpenRLHF)
# formulas: GRPO-ADV (seed-000, seed-001, seed-003, trl, verl, verl-vectorized-old, openrlhf,
# formulas: eps-in-sqrt, no-std), GRPO-ADV-EX
#
# Data: data/grpo_adv.dat (grpo_adv_data.sh: rlref eval GRPO-ADV --variant V ...), one block
# per group: column 1 the response index i, columns 2..10 the conventions in the order below.
if (!exists("out")) out = "figures/grpo_adv"
load "style.gp"
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
# the linetype of each convention (no-std: an empty black box)
array lt_[nv] = [1, 6, 3, 5, 4, 2, 8, 7, 7]
# the two rows of panels: the seeds' conventions and no scaling, then the libraries'
array rowk1[4] = [1, 2, 3, 9]
array rowk2[5] = [4, 5, 6, 7, 8]

ngroups = 5
array gsize[ngroups]  = [4, 2, 4, 4, 2]
array gtitle[ngroups] = ["r = [1, 0, 0, 0]:  ddof 0 → √3 ≈ 1.73,  ddof 1 → 1.5", \
                         "r = [0, 1e−4]:  almost no spread, ε sets the scale", \
                         "r = [1, 0, 0, 1]:  seed 000 §5.1, mean 0.5, std 0.5 → ±1", \
                         "r = [0.2, 0.8, 0.4, 0.6]:  seed 003, σ ≈ 0.26 (ddof 1)", \
                         "r = [10000, 10001]:  binary32 Σr²/G − mean² cancels"]
# the panels in the order the layout fills them (columns first)
array gorder[ngroups] = [1, 4, 2, 5, 3]

ymax = 2.0
bw = 0.15                             # bar width: the bars of a row around each response index
xoff(j, n) = (j - (n + 1) / 2.0) * bw
clip(v) = (v > ymax ? ymax : (v < -ymax ? -ymax : v))
offscale(v) = (abs(v) > ymax)
SMALL = sprintf(",%g", FONTSIZE - 1)

do for [fmt in FORMATS] {
    eval terminal(fmt, 1900, 1500)
    set multiplot layout 4,3 columnsfirst title "GRPO group-relative advantage  Â_i = (r_i − mean(r)) / (std(r) + ε):  the worked groups under each convention" font TITLEFONT

    set style fill solid 0.9 border rgb "#333333"
    set boxwidth bw absolute
    set yrange [-ymax:ymax]
    set ytics 0.5
    set xzeroaxis lt 1 lc rgb "#333333" lw 1 dt 1
    set xlabel "response i within the group"
    unset key

    do for [gi = 1:ngroups] {
        g = gorder[gi]
        set xrange [0.45 : gsize[g] + 0.55]
        set xtics 1
        do for [row = 1:2] {
            unset label
            if (row == 1) {
                set title gtitle[g]
                set ylabel "Â_i: seeds, no scaling"
                n = 4
            } else {
                set title "the same group: the libraries' conventions"
                set ylabel "Â_i: libraries"
                n = 5
                if (g == 2) {
                    set label 1 "Â_2:  ddof 0 → 1,  OpenRLHF 0.707,  verl 0.70,\nε in √ 0.41,  TRL 0.29,  old verl 0.05,  no-std 5e−5" at graph 0.03, graph 0.95 left front font SMALL
                }
                if (g == 5) {
                    set label 1 "old verl (binary32): ±499.5, off scale" at graph 0.03, graph 0.95 left front font SMALL textcolor lt lt_[6]
                }
            }
            if (row == 1) {
                plot for [j = 1:3] dat index (g - 1) using ($1 + xoff(j, n)):(clip(column(rowk1[j] + 1))) \
                         with boxes lt lt_[rowk1[j]] dt 1 notitle, \
                     dat index (g - 1) using ($1 + xoff(4, n)):(clip(column(10))) \
                         with boxes fs empty lt 7 dt 1 notitle, \
                     for [j = 1:4] dat index (g - 1) \
                         using ($1 + xoff(j, n) + bw / 2):(offscale(column(rowk1[j] + 1)) ? sgn(column(rowk1[j] + 1)) * ymax * 0.9 : NaN):(sprintf("%+.1f", column(rowk1[j] + 1))) \
                         with labels left offset 0.3,0 font SMALL textcolor lt lt_[rowk1[j]] notitle
            } else {
                plot for [j = 1:5] dat index (g - 1) using ($1 + xoff(j, n)):(clip(column(rowk2[j] + 1))) \
                         with boxes lt lt_[rowk2[j]] dt 1 notitle, \
                     for [j = 1:5] dat index (g - 1) \
                         using ($1 + xoff(j, n) + bw / 2):(offscale(column(rowk2[j] + 1)) ? sgn(column(rowk2[j] + 1)) * ymax * 0.9 : NaN):(sprintf("%+.1f", column(rowk2[j] + 1))) \
                         with labels left offset 0.3,0 font SMALL textcolor lt lt_[rowk2[j]] notitle
            }
        }
    }

    # the last two cells hold the legends of the two rows
    unset title
    unset label
    unset border
    unset tics
    unset grid
    unset xzeroaxis
    unset xlabel
    unset ylabel
    set lmargin 0
    set rmargin 1
    set xrange [0:1]
    set yrange [0:1]
    set key at graph 0, graph 0.92 left top vertical Left reverse samplen 2 spacing 1.6 noopaque nobox \
        title "upper panels: the seeds' conventions"
    plot for [j = 1:3] NaN with boxes lt lt_[rowk1[j]] dt 1 title sprintf("%s:  %s", name[rowk1[j]], descr[rowk1[j]]), \
         NaN with boxes fs empty lt 7 dt 1 title sprintf("%s:  %s", name[9], descr[9])
    set key title "lower panels: the libraries' conventions"
    plot for [j = 1:5] NaN with boxes lt lt_[rowk2[j]] dt 1 title sprintf("%s:  %s", name[rowk2[j]], descr[rowk2[j]])
    unset multiplot
    # restore what the panels and the legend cells changed, for the next format
    unset key
    set key noautotitle opaque box lc rgb "#D0D0D0" samplen 3 spacing 1.15
    set border lw 1
    set tics
    set grid lc rgb "#D0D0D0" lw 1 dt 1
    set ytics autofreq
    set lmargin -1
    set rmargin -1
    set style fill empty
    set autoscale x
    set autoscale y
}
