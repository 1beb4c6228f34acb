# MDP-GAE (000 (13.11)): the advantages of one 12-token response for several lambda
# (gamma 1, variant seed-000): a KL penalty -0.02 on every token, the score 1 on the last,
# values rising from 0.1 to 0.65.  lambda = 0 is the one-step TD error delta_t (flat here,
# 0.03, and 0.33 on the last token); lambda = 1 is the return minus V (Monte Carlo); in
# between the score reaches the early tokens discounted by lambda^(T - t).
# Data (mdp_gae_data.sh: rlref eval MDP-GAE for each lambda): data/mdp_gae.dat
#   columns: t, then A_t for lambda = 0, 0.5, 0.9, 0.95, 1
if (!exists("out")) out = "figures/mdp_gae"
set encoding utf8
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 900,560 enhanced font ",12" linewidth 1.5
    } else {
        set terminal svg size 900,560 enhanced font "DejaVu Sans,12" linewidth 1.5 background "white"
    }
    set output out.".".fmt
    set title "GAE advantages of one response (γ = 1): credit for the final score by λ"
    set grid
    set xlabel "token t"
    set ylabel "Â_t = Σ_l (γλ)^l δ_{t+l}"
    set xrange [0.5:12.5]
    set xtics 1
    set key top right
    plot for [k=2:6] "data/mdp_gae.dat" using 1:k with linespoints lw 2 pt 7 ps 0.8 \
         title sprintf("λ = %s", word("0 0.5 0.9 0.95 1", k - 1))
    unset output
}
