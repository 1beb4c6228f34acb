# ENT-COLLAPSE: the policy entropy and the accuracy along exact-gradient training of the
# think-then-answer model (T = 2, correct answer rare at the start: logits 0, -2, 1 a step;
# G = 3, lr 4, 8 inner steps per batch, 40 batches) with symmetric clip (0.2/0.2),
# clip-higher (0.2/0.28) and dynamic sampling (0.2/0.2, only groups of mixed rewards).
# Data: data/len_entropy.dat (rlref eval ENT-COLLAPSE per recipe, evalcols.py array)
#   columns: step, entropy (symmetric, clip-higher, dynamic-sampling), acc (the same).
if (!exists("out")) out = "figures/len_entropy"
set encoding utf8
data = "data/len_entropy.dat"
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "Entropy along exact-gradient training (every group of G enumerated, no sampling noise)" font ",14"
    set grid
    set xlabel "outer step (batch)"
    set xrange [1:40]
    set title "policy entropy H(π) = −Σ_y π(y) log π(y)"
    set ylabel "H (nats)"
    set yrange [0:1.6]
    set key right center
    plot data using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc 1 title "symmetric clip 0.2/0.2", \
         data using 1:3 with linespoints pt 5 ps 0.6 lw 2 lc 2 title "clip-higher 0.2/0.28", \
         data using 1:4 with linespoints pt 9 ps 0.6 lw 2 lc 3 title "dynamic sampling (0.2/0.2)"
    set title "accuracy E[r]"
    set ylabel "P(correct)"
    set yrange [0:1.02]
    set key right bottom
    plot data using 1:5 with linespoints pt 7 ps 0.6 lw 2 lc 1 title "symmetric clip 0.2/0.2", \
         data using 1:6 with linespoints pt 5 ps 0.6 lw 2 lc 2 title "clip-higher 0.2/0.28", \
         data using 1:7 with linespoints pt 9 ps 0.6 lw 2 lc 3 title "dynamic sampling (0.2/0.2)"
    unset multiplot
}
