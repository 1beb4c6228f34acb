#!/bin/sh
# grpo_adv_data.sh RLREF PYTHON > data/grpo_adv.dat
# The GRPO-ADV advantages of the seeds' worked groups under every convention,
# one gnuplot data block (index 0, 1, ...) per group: the response index, then
# one column per convention, each the certified value rounded to double.
set -eu
RLREF=$1
PYTHON=$2
HERE=$(dirname "$0")
GROUPS_="1,0,0,0 0,1e-4 1,0,0,1 0.2,0.8,0.4,0.6 10000,10001"
VARIANTS="seed-000 seed-001 seed-003 trl verl verl-vectorized-old openrlhf eps-in-sqrt no-std"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

echo "# GRPO-ADV (000 (13.23); 001; 003): advantages of the worked groups, one block per group"
echo "# made by: rlref eval GRPO-ADV --variant V rewards=R group_size=G (certified value rounded to double)"
echo "# i $VARIANTS"
k=0
for g in $GROUPS_; do
  n=$(printf '%s\n' "$g" | tr ',' '\n' | wc -l | tr -d ' ')
  files=""
  for v in $VARIANTS; do
    "$RLREF" eval GRPO-ADV --variant "$v" rewards="$g" group_size="$n" > "$tmp/$k-$v.json"
    files="$files $tmp/$k-$v.json"
  done
  [ "$k" -eq 0 ] || printf '\n\n'
  echo "# index $k: rewards [$g], G = $n"
  # shellcheck disable=SC2086
  "$PYTHON" "$HERE/../evalcols.py" array adv $files
  k=$((k + 1))
done
