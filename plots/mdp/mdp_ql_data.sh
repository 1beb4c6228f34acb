#!/bin/sh
# mdp_ql_data.sh RLREF PYTHON VARIANT > data/mdp_ql_VARIANT.dat
# MDP-QL on the 3-state MDP of mdp_three.json (gamma 0.8, start 0, GSL's mt19937 seeded
# with 1, alpha = 1/n(s,a)): the certified max |Q_t - Q*| after t updates, for t on a
# logarithmic grid from 10 to 200000 (the runs share their first t steps: one trajectory).
# Columns: t, error.
set -eu
RLREF=$1
PYTHON=$2
VARIANT=$3
HERE=$(dirname "$0")
MODEL="S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 R=0.9,0.1,-0.4,1.75,0.3,-1.1 terminal= gamma=0.8 start=0 seed=1"
STEPS="10 15 20 30 50 70 100 150 200 300 500 700 1000 1500 2000 3000 5000 7000 10000 15000 20000 30000 50000 70000 100000 150000 200000"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

echo "# MDP-QL (003 §2), variant $VARIANT, on mdp_three.json: max |Q_t - Q*| after t updates"
echo "# made by: rlref eval MDP-QL --variant $VARIANT S=3 A=2 P=... R=... terminal= gamma=0.8 start=0 seed=1 steps=t"
echo "# t error"
for t in $STEPS; do
  # shellcheck disable=SC2086
  "$RLREF" eval MDP-QL --variant "$VARIANT" $MODEL steps="$t" > "$tmp/e.json"
  printf '%s ' "$t"
  "$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/e.json" error
done
