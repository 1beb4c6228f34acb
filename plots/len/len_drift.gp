# LEN-DRIFT on the think-then-answer model (T = 3, uniform steps, G = 4): left, the change
# of E[|y|] after one step theta + eta g of the exact expected update g under each loss
# normalisation; right, its first-order rate and the parts of it from the correct answers
# (A > 0) and from the wrong ones (A < 0).
# Data: data/len_drift_NORM.dat (rlref table LEN-DRIFT --variant NORM --sweep eta=...)
#   columns: eta, len, acc, dlen, dlen_pos, dlen_neg, dlen_correct, dlen_wrong, dacc,
#   len_step.
if (!exists("out")) out = "figures/len_drift"
set encoding utf8
norms = "seq-mean-token-mean token-mean seq-mean-token-sum seq-mean-token-sum-norm"
file(i) = sprintf("data/len_drift_%s.dat", word(norms, i))
name(i) = (i == 1 ? "1/(G|y_i|)  (13.24, GRPO)" : i == 2 ? "1/Σ_j|y_j|  (13.33, DAPO; seed 003)" \
           : i == 3 ? "1/G  (Dr.GRPO, no 1/|y|)" : "1/(G T)  (TRL dr\\_grpo)")
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1200,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 1200,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set multiplot layout 1,2 title "Length drift of one exact expected GRPO update (think-then-answer model, T = 3, G = 4)" font ",14"
    set grid
    set title "E[|y|] after the step θ + η g, minus before"
    set xlabel "η"
    set ylabel "ΔE[|y|]"
    set key left bottom
    set xrange [0:6]
    plot for [i=1:4] file(i) using 1:10 with lines lw 2 lc i title name(i)
    set title "d E[|y|]/dη and its parts from correct and from wrong answers"
    set xlabel "normalisation"
    set ylabel "rate"
    set xrange [0.4:4.6]
    set xtics ("1/(G|y|)" 1, "1/Σ|y|" 2, "1/G" 3, "1/(G T)" 4)
    set xzeroaxis lt -1
    set boxwidth 0.25
    set style fill solid 0.8 border -1
    set key right bottom
    plot for [i=1:4] file(i) every ::0::0 using (i - 0.27):4 with boxes lc rgb "gray50" title (i == 1 ? "all (dlen)" : ""), \
         for [i=1:4] file(i) every ::0::0 using (i):5 with boxes lc rgb "#1a9850" title (i == 1 ? "correct answers (dlen\\_pos)" : ""), \
         for [i=1:4] file(i) every ::0::0 using (i + 0.27):6 with boxes lc rgb "#d73027" title (i == 1 ? "wrong answers (dlen\\_neg)" : "")
    unset multiplot
    set xtics autofreq
    unset xzeroaxis
}
