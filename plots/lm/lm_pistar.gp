# KLOPT-PISTAR on the tiny LM: pi*(y) = pi_ref(y) e^{r(y)/beta} / Z (13.17) of every
# sequence of oracles/models/tab3.json against beta, with the limits: beta -> infinity
# gives pi_ref (right), beta -> 0 the argmax of r, ties split by pi_ref (left).
# Data: data/lm_pistar.dat (lm_data.py pistar: rlref lm --table at 81 values of beta)
#   column 1 beta, columns 2..16 pi*(y), columns 17..31 pi_ref(y), in enumeration order.
if (!exists("out")) out = "figures/lm_pistar"
set encoding utf8
data = "data/lm_pistar.dat"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,680 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1000,680 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "The KL-optimal policy on the tiny LM:  π*(y) = π_{ref}(y) e^{r(y)/β} / Z   (13.17)" font ",14"
    set xlabel "β  (log scale)"
    set ylabel "π*(y)"
    set logscale x
    set xrange [0.01:100]
    set yrange [0:0.6]
    set key outside right top title "sequence y (tokens; 2 = EOS)" font ",10"
    set grid
    set label 1 "β → 0: all mass on argmax r\n(ties split by π_{ref})" at 0.012,0.58 font ",10"
    set label 2 "β → ∞: π_{ref}\n(dots)" at 30,0.58 font ",10"
    set key noenhanced
    plot for [i=2:16] data using 1:i with lines lw 1.5 lc i-1 title columnhead(i), \
         for [i=17:31] data every ::81::81 using 1:i with points pt 7 ps 1.2 lc i-16 notitle
    unset label 1
    unset label 2
    unset logscale x
}
