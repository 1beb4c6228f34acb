# title: The KL-optimal policy on the tiny LM against β
# caption: π*(y) of every one of the 15 sequences of the tiny language model
# caption: (oracles/models/tab3.json; tokens 0, 1, 2 with 2 = EOS) at 81 values of β from 0.01 to
# caption: 100 (log scale), in two panels: the sequences that begin with token 0 (left) and the
# caption: others (right). The limits: β → ∞ gives π_ref (the dots at the right end, β = 100),
# caption: β → 0 puts all the mass on the argmax of r, ties split by π_ref (left end: "0 0 0" and
# caption: "0 0 2", both of reward 1.25, share it 0.45 : 0.55).
# equation: π*(y) = π_ref(y) e^{r(y)/β} / Z,  Z = Σ_y π_ref(y) e^{r(y)/β}  (13.17)
# source: seed 000 §4.1
# formulas: KLOPT-PISTAR
#
# Data: data/lm_pistar.dat (lm_data.py pistar: rlref lm --table at 81 values of beta)
#   column 1 beta, columns 2..16 pi*(y), columns 17..31 pi_ref(y), in enumeration order
#   (columns 2..8 the sequences that begin with 0, 9..16 the others).
if (!exists("out")) out = "figures/lm_pistar"
load "style.gp"
data = "data/lm_pistar.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1300, 640)
    set multiplot layout 1,2 title "The KL-optimal policy on the tiny LM:  π*(y) = π_{ref}(y) e^{r(y)/β} / Z" font TITLEFONT
    set xlabel "β  (log scale)"
    set ylabel "π*(y)"
    set logscale x
    set xrange [0.01:100]
    set yrange [0:0.6]
    set key right center title "sequence y (2 = EOS)" noenhanced
    set label 1 "β → 0: all mass on argmax r\n(ties split by π_{ref})" at 0.012,0.57 font sprintf(",%g", FONTSIZE-1)
    set label 2 "β → ∞: π_{ref}\n(dots)" at 100,0.57 right font sprintf(",%g", FONTSIZE-1)
    set title "sequences that begin with token 0"
    plot for [i=2:8] data using 1:i with lines lt i-1 title columnhead(i), \
         for [i=17:23] data every ::81::81 using 1:i with points lt i-16 notitle
    set title "sequences that begin with token 1, and y = EOS"
    set key left center
    plot for [i=9:16] data using 1:i with lines lt i-8 title columnhead(i), \
         for [i=24:31] data every ::81::81 using 1:i with points lt i-23 notitle
    unset multiplot
    unset label 1
    unset label 2
    unset logscale x
}
