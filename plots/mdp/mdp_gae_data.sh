#!/bin/sh
# mdp_gae_data.sh RLREF PYTHON > data/mdp_gae.dat
# MDP-GAE (000 (13.11)) on one response of 12 tokens: a KL penalty -0.02 on every
# token and the score 1 on the last, values rising from 0.1 to 0.65; the
# advantages A_t for lambda 0, 0.5, 0.9, 0.95, 1 (gamma 1), each the certified
# value rounded to double.  Columns: t (1-based), then one per lambda.
set -eu
RLREF=$1
PYTHON=$2
HERE=$(dirname "$0")
LAMBDAS="0 0.5 0.9 0.95 1"
R="-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02,-0.02"
V="0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65"
M="1,1,1,1,1,1,1,1,1,1,1,1"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

echo "# MDP-GAE (000 (13.11)), variant seed-000, gamma 1: rewards -0.02 per token, score 1 on the last"
echo "# made by: rlref eval MDP-GAE --variant seed-000 rewards=R values=V mask=M score=1 W=12 gamma=1 lambda=L"
echo "# t lambda=$LAMBDAS"
files=""
for l in $LAMBDAS; do
  "$RLREF" eval MDP-GAE --variant seed-000 rewards="$R" values="$V" mask="$M" score=1 W=12 \
    gamma=1 lambda="$l" > "$tmp/$l.json"
  files="$files $tmp/$l.json"
done
# shellcheck disable=SC2086
"$PYTHON" "$HERE/../evalcols.py" array adv $files
