# DPO-IMPLICIT-R (13.18) on the tiny LM: every sequence's reward r(y) against
# beta log(pi*(y)/pi_ref(y)) + beta log Z, which must lie on the identity line.
# Data: data/lm_identity.dat (lm_data.py identity: rlref lm --table, beta 0.5)
if (!exists("out")) out = "figures/lm_identity"
set encoding utf8
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 800,700 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 800,700 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "The implicit reward (13.18):  r(y) = β log(π*(y)/π_{ref}(y)) + β log Z" font ",14"
    set xlabel "r(y)"
    set ylabel "β log(π*(y)/π_{ref}(y)) + β log Z"
    set grid
    set size square
    set key left top
    plot x with lines lc rgb "#999999" title "identity", \
         "data/lm_identity.dat" using 2:3 with points pt 7 ps 1.5 title "the 15 sequences (β = 0.5)"
}
