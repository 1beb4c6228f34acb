#!/bin/sh
# mdp_vi_data.sh RLREF PYTHON > data/mdp_vi.dat
# MDP-OPT, value iteration on the 5-state chain of mdp_river.json (gamma 0.9, V_0 = 0):
# for k = 0, 1, ..., 30 and 45, 60, ..., 1500, the certified max_s |V_k - V*| and the contraction bound
# gamma^k max_s |V_0 - V*|, each rounded to double.  Columns: k, error, bound.
set -eu
RLREF=$1
PYTHON=$2
HERE=$(dirname "$0")
MODEL="S=5 A=2 P=1,0,0,0,0,0.4,0.6,0,0,0,1,0,0,0,0,0.05,0.6,0.35,0,0,0,1,0,0,0,0,0.05,0.6,0.35,0,0,0,1,0,0,0,0,0.05,0.6,0.35,0,0,0,1,0,0,0,0,0.4,0.6 R=0.005,0,0,0,0,0,0,0,0,1 terminal= gamma=0.9"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

echo "# MDP-OPT value-iteration (003 §1) on mdp_river.json: the distance to V* and the contraction bound"
echo "# made by: rlref eval MDP-OPT --variant value-iteration S=5 A=2 P=... R=... terminal= gamma=0.9 k=K"
echo "# k error bound"
k=0
while [ "$k" -le 1500 ]; do
  # shellcheck disable=SC2086
  "$RLREF" eval MDP-OPT --variant value-iteration $MODEL k="$k" > "$tmp/e.json"
  printf '%s ' "$k"
  "$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/e.json" error bound
  k=$((k < 30 ? k + 1 : k + 15))
done
