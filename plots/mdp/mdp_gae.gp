# title: GAE advantages of one response by λ
# caption: The advantages of one 12-token response for several λ (γ = 1, variant seed-000): a
# caption: KL penalty −0.02 on every token, the score 1 on the last, values rising from 0.1 to
# caption: 0.65. λ = 0 is the one-step TD error δ_t (flat here, 0.03, and 0.33 on the last
# caption: token); λ = 1 is the return minus V (Monte Carlo); in between the score reaches the
# caption: early tokens discounted by λ^(T − t).
# equation: δ_t = r_t + γ V(s_{t+1}) − V(s_t),  Â_t = Σ_{l≥0} (γλ)^l δ_{t+l}  (13.11)
# source: seed 000 §3.1
# formulas: MDP-GAE (seed-000)
#
# Data (mdp_gae_data.sh: rlref eval MDP-GAE for each lambda): data/mdp_gae.dat
#   columns: t, then A_t for lambda = 0, 0.5, 0.9, 0.95, 1
if (!exists("out")) out = "figures/mdp_gae"
load "style.gp"
data = "data/mdp_gae.dat"
do for [fmt in FORMATS] {
    eval terminal(fmt, 900, 560)
    set title "GAE advantages of one response (γ = 1): credit for the final score by λ" font TITLEFONT
    set xlabel "token t"
    set ylabel "Â_t = Σ_l (γλ)^l δ_{t+l}"
    set xrange [0.5:12.5]
    set xtics 1
    set key top right
    plot for [k=2:6] data using 1:k with linespoints lt (k - 1) \
         title sprintf("λ = %s", word("0 0.5 0.9 0.95 1", k - 1))
}
