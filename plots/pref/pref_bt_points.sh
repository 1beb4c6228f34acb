#!/bin/sh
# pref_bt_points.sh RLREF PYTHON > data/pref_bt_points.dat
# The worked points of seed 000 section 2.1 (figure 3): delta_r and sigma(delta_r).
set -eu
RLREF=$1
PYTHON=$2
HERE=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

echo "# PREF-BT-EX (000 section 2.1): the seed's worked points, certified values rounded to double"
echo "# delta_r p"
echo "# row 0: r(A) = 1.5, r(B) = 0 (rlref eval PREF-BT-EX --variant sigma rw=1.5 rl=0)"
"$RLREF" eval PREF-BT-EX --variant sigma rw=1.5 rl=0 > "$tmp/a.json"
"$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/a.json" rw p
echo "# row 1: equal quality (rlref eval PREF-BT-EX --variant sigma rw=0 rl=0)"
"$RLREF" eval PREF-BT-EX --variant sigma rw=0 rl=0 > "$tmp/b.json"
"$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/b.json" rw p
echo "# row 2: 8 of 10 annotators prefer A: MLE (rlref eval PREF-BT-EX --variant mle-pair wins_w=8 wins_l=2)"
"$RLREF" eval PREF-BT-EX --variant mle-pair wins_w=8 wins_l=2 > "$tmp/c.json"
"$PYTHON" "$HERE/../evalcols.py" scalars "$tmp/c.json" delta p
