# title: The Bradley–Terry curve and the reward-model loss
# caption: The Bradley–Terry probability σ(Δr) that y_w is preferred over y_l, against the reward
# caption: difference Δr = r(x,y_w) − r(x,y_l) from −6 to 6 (left axis), with the reward-model loss
# caption: −log σ(Δr) on the right axis. The points are the seed's worked examples: Δr = 1.5 gives
# caption: σ ≈ 0.82, equal quality (Δr = 0) gives 0.5, and 8 of 10 annotators preferring y_w give the
# caption: maximum-likelihood Δr = log 4 with p = 0.8; dotted guides lead them to the axes.
# equation: P(y_w ≻ y_l | x) = e^{r_w}/(e^{r_w} + e^{r_l}) = σ(r_w − r_l)  (13.5–13.6);
# equation: L_RM = −log σ(r_w − r_l)  (13.7)
# source: seed 000 §2.1 (figure 3), 13.5–13.7
# formulas: PREF-BT, PREF-RM-LOSS, PREF-BT-EX (sigma, mle-pair)
#
# Data (made by the Makefile with rlref):
#   data/pref_bt.dat         rlref table PREF-BT --sweep rw=-6:6:241 rl=0        -> rw p
#   data/pref_rm_loss.dat    rlref table PREF-RM-LOSS --sweep rw=-6:6:241 rl=0   -> rw loss grad_rw grad_rl
#   data/pref_bt_points.dat  the seed's worked points (rlref eval PREF-BT-EX)    -> delta_r p
if (!exists("out")) out = "figures/pref_bt"
load "style.gp"
curve  = "data/pref_bt.dat"
loss   = "data/pref_rm_loss.dat"
points = "data/pref_bt_points.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1100, 740)
    set title "Bradley–Terry preference model:  P(y_w ≻ y_l | x) = σ(Δr)   (13.6)" font TITLEFONT
    set xlabel "Δr = r(x,y_w) − r(x,y_l)"
    set ylabel "P(y_w ≻ y_l | x) = σ(Δr)"
    set y2label "RM loss  −log σ(Δr)   (13.7)" textcolor rgb VERMILLION
    set xrange [-6:6]
    set yrange [0:1]
    set y2range [0:8]
    set xtics 1
    set ytics 0.1 nomirror
    set y2tics 1 textcolor rgb VERMILLION
    set mxtics 2
    set key outside below center horizontal maxrows 2 width 2
    set border 11

    # guides to the axes for the worked points
    set style arrow 1 nohead dt 3 lc rgb GREY
    set arrow 1 from first 1.5, graph 0 to first 1.5, first 0.8176 as 1
    set arrow 2 from first log(4), graph 0 to first log(4), first 0.8 as 1
    set arrow 3 from graph 0, first 0.8 to first log(4), first 0.8 as 1
    set arrow 4 from graph 0, first 0.5 to first 0, first 0.5 as 1
    set arrow 5 from first 0, graph 0 to first 0, first 0.5 as 1

    plot curve using 1:2 with lines lt 1 title "P = σ(Δr)", \
         loss using 1:2 axes x1y2 with lines lt 2 title "loss −log σ(Δr), right axis", \
         points every ::0::0 using 1:2 with points lt 4 ps 2*PS title "worked points Δr = 1.5 and Δr = 0", \
         points every ::0::0 using 1:2:("Δr = 1.5 → σ ≈ 0.82") with labels left offset 1.4,-1.8 notitle, \
         points every ::1::1 using 1:2 with points lt 4 ps 2*PS notitle, \
         points every ::1::1 using 1:2:("equal quality: Δr = 0 → σ = 0.5") with labels left offset 1.2,-0.6 notitle, \
         points every ::2::2 using 1:2 with points lt 3 ps 2*PS title "8 of 10 prefer y_w: MLE Δr = log 4, p = 0.8", \
         points every ::2::2 using 1:2:("8 of 10 → Δr = log 4") with labels right offset -1.0,1.4 notitle
    unset arrow
    unset style arrow
}
