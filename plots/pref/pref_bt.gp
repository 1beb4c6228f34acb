# PREF-BT: the Bradley-Terry curve (seed 000, section 2.1, figure 3; equation 13.6)
# with the reward-model loss -log sigma(delta r) (13.7) on the right axis.
# Run from plots/:  gnuplot pref/pref_bt.gp   (writes figures/pref_bt.png and .svg)
# Data (made by the Makefile with rlref):
#   data/pref_bt.dat         rlref table PREF-BT --sweep rw=-6:6:241 rl=0        -> rw p
#   data/pref_rm_loss.dat    rlref table PREF-RM-LOSS --sweep rw=-6:6:241 rl=0   -> rw loss grad_rw grad_rl
#   data/pref_bt_points.dat  the seed's worked points (rlref eval PREF-BT-EX)    -> delta_r p

if (!exists("out")) out = "figures/pref_bt"
set encoding utf8

curve  = "data/pref_bt.dat"
loss   = "data/pref_rm_loss.dat"
points = "data/pref_bt_points.dat"

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,680 enhanced font ",12" linewidth 1.5
        ps = 1.6
    } else {
        set terminal svg size 1000,680 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
        ps = 1.0
    }
    set output out.".".fmt

    set title "Bradley–Terry preference model:  P(y_w ≻ y_l | x) = σ(Δr)   (13.6)" font ",14"
    set xlabel "Δr = r(x,y_w) − r(x,y_l)"
    set ylabel "P(y_w ≻ y_l | x) = σ(Δr)"
    set y2label "RM loss  −log σ(Δr)   (13.7)" textcolor rgb "#b35806"
    set xrange [-6:6]
    set yrange [0:1]
    set y2range [0:8]
    set xtics 1
    set ytics 0.1 nomirror
    set y2tics 1 textcolor rgb "#b35806"
    set mxtics 2
    set grid xtics ytics lc rgb "#dddddd" lt 1 lw 0.5
    set key outside below center horizontal maxrows 2 width 2 spacing 1.2
    set border 11

    # guides to the axes for the worked points
    unset arrow
    set style arrow 1 nohead dashtype 3 lc rgb "#777777" lw 0.8
    set arrow 1 from first 1.5, graph 0 to first 1.5, first 0.8176 as 1
    set arrow 2 from first log(4), graph 0 to first log(4), first 0.8 as 1
    set arrow 3 from graph 0, first 0.8 to first log(4), first 0.8 as 1
    set arrow 4 from graph 0, first 0.5 to first 0, first 0.5 as 1
    set arrow 5 from first 0, graph 0 to first 0, first 0.5 as 1

    plot curve using 1:2 with lines lw 2.2 lc rgb "#1f4e9c" title "σ(Δr)  (PREF-BT)", \
         loss using 1:2 axes x1y2 with lines lw 1.6 dt 2 lc rgb "#b35806" title "−log σ(Δr), right axis  (PREF-RM-LOSS)", \
         points every ::0::0 using 1:2 with points pt 7 ps ps lc rgb "#c0142c" title "seed 000 §2.1: Δr = 1.5 and Δr = 0  (PREF-BT-EX)", \
         points every ::0::0 using 1:2:("Δr = 1.5 → σ ≈ 0.82") with labels left offset 1.2,-0.6 notitle, \
         points every ::1::1 using 1:2 with points pt 7 ps ps lc rgb "#c0142c" notitle, \
         points every ::1::1 using 1:2:("equal quality: Δr = 0 → σ = 0.5") with labels left offset 1.2,-0.6 notitle, \
         points every ::2::2 using 1:2 with points pt 9 ps 1.2 * ps lc rgb "#2a7f3f" title "8 of 10 prefer y_w: MLE Δr = log 4, p = 0.8  (PREF-BT-EX)", \
         points every ::2::2 using 1:2:("8 of 10 → Δr = log 4") with labels right offset -1.0,1.0 notitle
    unset output
}
