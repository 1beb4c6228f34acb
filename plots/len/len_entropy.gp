# title: Entropy along exact-gradient training
# caption: ENT-COLLAPSE: the policy entropy (left) and the accuracy (right) along exact-gradient
# caption: training of the think-then-answer model (T = 2, correct answer rare at the start:
# caption: logits 0, −2, 1 a step; G = 3, lr 4, 8 inner steps per batch, 40 batches), every group
# caption: of G enumerated, no sampling noise, with symmetric clip (0.2/0.2), clip-higher
# caption: (0.2/0.28) and dynamic sampling (0.2/0.2, only groups of mixed rewards). The middle
# caption: panel tells the two clips apart: the ratio of clip-higher's entropy to the symmetric
# caption: clip's is above 1 at every batch from the second, and keeps rising (1.23 at batch 40)
# caption: while both collapse. Dynamic sampling, in expectation a step 1/P(mixed group) larger,
# caption: collapses the entropy within five batches.
# equation: H(π) = −Σ_y π(y) log π(y);  accuracy E[r] = P(correct)
# source: seed 000 §12.3
# formulas: ENT-COLLAPSE (symmetric, clip-higher, dynamic-sampling)
#
# Data: data/len_entropy.dat (rlref eval ENT-COLLAPSE per recipe, evalcols.py array)
#   columns: step, entropy (symmetric, clip-higher, dynamic-sampling), acc (the same).
if (!exists("out")) out = "figures/len_entropy"
load "style.gp"
data = "data/len_entropy.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1560, 560)
    set multiplot layout 1,3 title "Entropy along exact-gradient training (every group of G enumerated, no sampling noise)" font TITLEFONT
    set xlabel "outer step (batch)"
    set xrange [1:40]
    set title "policy entropy H(π) = −Σ_y π(y) log π(y)"
    set ylabel "H (nats)"
    set yrange [0:1.6]
    set key right top
    plot data using 1:2 with linespoints lt 1 title "symmetric clip 0.2/0.2", \
         data using 1:3 with linespoints lt 2 title "clip-higher 0.2/0.28", \
         data using 1:4 with linespoints lt 3 title "dynamic sampling (0.2/0.2)"
    set title "clip-higher against symmetric clip"
    set ylabel "H_{clip-higher} / H_{symmetric}"
    set yrange [0.95:1.35]
    set key left top
    plot 1 with lines lc rgb GREY lw 1 dt 1 notitle, \
         data using 1:($3/$2) with linespoints lt 2 title "entropy ratio"
    set title "accuracy E[r]"
    set ylabel "P(correct)"
    set yrange [0:1.02]
    set key right bottom
    plot data using 1:5 with linespoints lt 1 title "symmetric clip 0.2/0.2", \
         data using 1:6 with linespoints lt 2 title "clip-higher 0.2/0.28", \
         data using 1:7 with linespoints lt 3 title "dynamic sampling (0.2/0.2)"
    unset multiplot
}
