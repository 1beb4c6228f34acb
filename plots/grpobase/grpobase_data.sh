#!/bin/sh
# grpobase_data.sh RLREF PYTHON weight|var > data/grpobase_weight.dat | data/grpobase_var.dat
#   weight: GRPO-STDBIAS, the per-sample weight against the success rate p for G = 8, one
#           gnuplot block per advantage (std ddof 0, std ddof 1, group mean, leave-one-out);
#   var:    GRPO-VAR for a fair coin (sigma^2 = 1/4) against G: Var[mean] and Var[b_loo]
#           exactly, and the seeded Monte-Carlo run (2000 groups each).
set -eu
RLREF=$1
PYTHON=$2
HERE=$(dirname "$0")

case $3 in
weight)
  echo "# GRPO-STDBIAS (000 section 11): per-sample weight w(p)/G of a binary reward, G = 8"
  echo "# made by: rlref table GRPO-STDBIAS --variant V --sweep p=0:1:201 group_size=8"
  k=0
  for v in seed-000 seed-003 no-std rloo; do
    [ "$k" -eq 0 ] || printf '\n\n'
    echo "# index $k: $v"
    "$RLREF" table GRPO-STDBIAS --variant "$v" --sweep p=0:1:201 group_size=8
    k=$((k + 1))
  done
  ;;
var)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT HUP INT TERM
  echo "# GRPO-VAR (000 (13.28')): a fair coin, sigma^2 = 1/4"
  echo "# made by: rlref eval GRPO-VAR --variant exact|monte-carlo values=0,1 weights=1,1 group_size=G [trials=2000 seed=G]"
  echo "# G var_mean var_loo removed_by_doubling mc_var_mean mc_var_loo"
  for G in 2 3 4 6 8 12 16 24 32 48 64 96 128; do
    "$RLREF" eval GRPO-VAR --variant exact values=0,1 weights=1,1 group_size="$G" > "$tmp/e.json"
    "$RLREF" eval GRPO-VAR --variant monte-carlo values=0,1 weights=1,1 group_size="$G" \
      trials=2000 seed="$G" > "$tmp/m.json"
    printf '%s %s\n' "$("$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/e.json" group_size var_mean var_loo removed)" \
      "$("$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/m.json" var_mean var_loo)"
  done
  ;;
*)
  echo "usage: grpobase_data.sh RLREF PYTHON weight|var" >&2
  exit 2
  ;;
esac
