# title: Length drift of one exact GRPO update
# caption: LEN-DRIFT on the think-then-answer model (T = 3, uniform steps, G = 4). Left: the
# caption: change of E[|y|] after one step θ + η g of the exact expected update g, η from 0 to 6,
# caption: under each loss normalisation (1/(G|y_i|), 1/Σ_j|y_j|, 1/G, 1/(G T)). Right: its
# caption: first-order rate d E[|y|]/dη and the parts of it from the correct answers (A > 0) and
# caption: from the wrong ones (A < 0): under GRPO's 1/|y| the wrong answers' part lengthens.
# equation: ΔE[|y|](η) = E_{θ+ηg}[|y|] − E_θ[|y|];  g = E[Σ_i w_i A_i ∇log π(y_i)];
# equation: d E[|y|]/dη = ∇E[|y|]·g = dlen_pos (A > 0) + dlen_neg (A < 0);
# equation: w_i = 1/(G|y_i|) (13.24), 1/Σ_j|y_j| (13.33), 1/G, 1/(G T)
# source: seed 000 §12.2, (13.24), (13.33); seed 004; seed 003 (Dr.GRPO, the opposite claim)
# formulas: LEN-DRIFT (seq-mean-token-mean, token-mean, seq-mean-token-sum, seq-mean-token-sum-norm)
#
# Data: data/len_drift_NORM.dat (rlref table LEN-DRIFT --variant NORM --sweep eta=...)
#   columns: eta, len, acc, dlen, dlen_pos, dlen_neg, dlen_correct, dlen_wrong, dacc,
#   len_step.
if (!exists("out")) out = "figures/len_drift"
load "style.gp"
norms = "seq-mean-token-mean token-mean seq-mean-token-sum seq-mean-token-sum-norm"
file(i) = sprintf("data/len_drift_%s.dat", word(norms, i))
name(i) = (i == 1 ? "1/(G|y_i|)  (13.24, GRPO)" : i == 2 ? "1/Σ_j|y_j|  (13.33, DAPO; seed 003)" \
           : i == 3 ? "1/G  (Dr.GRPO, no 1/|y|)" : "1/(G T)  (TRL dr\\_grpo)")
do for [fmt in FORMATS] {
    eval terminal(fmt, 1400, 600)
    set multiplot layout 1,2 title "Length drift of one exact expected GRPO update (think-then-answer model, T = 3, G = 4)" font TITLEFONT
    set title "E[|y|] after the step θ + η g, minus before"
    set xlabel "η"
    set ylabel "ΔE[|y|]  (tokens)"
    set key left bottom Left reverse samplen 2
    set xrange [0:6]
    plot for [i=1:4] file(i) using 1:10 with lines lt i title name(i)
    set title "d E[|y|]/dη and its parts from correct and from wrong answers"
    set xlabel "normalisation"
    set ylabel "dE[|y|]/dη  (tokens per unit of η)"
    set xrange [0.4:4.6]
    set xtics ("1/(G|y|)" 1, "1/Σ|y|" 2, "1/G" 3, "1/(G T)" 4)
    set xzeroaxis lt -1
    set boxwidth 0.25
    set style fill solid 1.0 border lc rgb BLACK
    set key right bottom noreverse Right samplen 3
    plot for [i=1:4] file(i) every ::0::0 using (i - 0.27):4 with boxes lt 8 dt 1 title (i == 1 ? "all (dlen)" : ""), \
         for [i=1:4] file(i) every ::0::0 using (i):5 with boxes lt 3 dt 1 title (i == 1 ? "correct answers (dlen\\_pos)" : ""), \
         for [i=1:4] file(i) every ::0::0 using (i + 0.27):6 with boxes lt 2 dt 1 title (i == 1 ? "wrong answers (dlen\\_neg)" : "")
    unset multiplot
    set xtics autofreq
    unset xzeroaxis
    unset style fill
    unset boxwidth
}
