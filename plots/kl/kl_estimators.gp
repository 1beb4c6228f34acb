# title: k1, k2 and k3 against the log-ratio, and their expectations
# caption: Left: the three per-sample estimators of KL(π ‖ π_ref) against the log-ratio
# caption: ℓ = log π(y) − log π_ref(y) of one sampled token, ℓ from −3 to 3. k1 = ℓ is negative
# caption: whenever the sample is likelier under π_ref; k2 = ℓ²/2 and k3 = e^{−ℓ} − 1 + ℓ are never
# caption: negative; k3 ≈ k2 near ℓ = 0 and grows like e^{−ℓ} for ℓ < 0. Right: their
# caption: expectations over samples from q = N(0, 1) with π_ref = N(μ, 1): E[k1] = E[k3] = KL = μ²/2
# caption: (unbiased), while E[k2] = KL + μ⁴/8 lies above it.
# equation: k1 = ℓ,  k2 = ℓ²/2,  k3 = e^{−ℓ} − 1 + ℓ  (13.26);  E_π[k1] = E_π[k3] = KL(π ‖ π_ref)
# source: seed 000 (13.26), table 5 and §12.1; Schulman's note on KL approximators
# formulas: KL-K1 (plain), KL-K2 (plain), KL-K3 (stable), KL-EXACT (gaussian)
#
# Data: data/kl_k1.dat, data/kl_k2.dat, data/kl_k3.dat (rlref table KL-Kn --sweep
#   logp=-3:3:241 ref_logp=0), columns logp (= ℓ), k, grad;
# data/kl_gauss.dat (rlref table KL-EXACT --variant gaussian), columns mu, kl, kl_reverse,
#   e_k2, ...
if (!exists("out")) out = "figures/kl_estimators"
load "style.gp"
k1 = "data/kl_k1.dat"
k2 = "data/kl_k2.dat"
k3 = "data/kl_k3.dat"
gauss = "data/kl_gauss.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 1200, 560)
    set multiplot layout 1,2 title "The KL estimators k1, k2, k3: per sample, and in expectation" font TITLEFONT
    set title "per sample, against ℓ = log π − log π_{ref}"
    set xlabel "ℓ"
    set ylabel "estimate"
    set xrange [-3:3]
    set yrange [-3:8]
    set key right bottom
    plot 0 with lines lc rgb GREY lw 1 dt 1 notitle, \
         k1 using 1:2 with lines lt 1 title "k1 = ℓ", \
         k2 using 1:2 with lines lt 2 title "k2 = ℓ^2/2", \
         k3 using 1:2 with lines lt 3 title "k3 = e^{−ℓ} − 1 + ℓ"
    set title "expectation, q = N(0, 1), π_{ref} = N(μ, 1)"
    set xlabel "μ"
    set ylabel "E[k]  (nats)"
    set xrange [0:3]
    set yrange [0:15]
    set key left top
    plot gauss using 1:4 with lines lt 2 title "E[k2] = KL + μ^4/8", \
         gauss using 1:2 with lines lt 7 dt 1 title "E[k1] = E[k3] = KL = μ^2/2"
    unset multiplot
}
