#!/bin/sh
# test_ppo_f32.sh RLREF GOLDEN_DIR -- what `rlref check --dtype float32` says of the
# clipped surrogate and of advantage whitening computed as TRL's, verl's and
# OpenRLHF's torch code runs in float32 (ppo_f32_candidate.py, binary32 by
# struct): each is named as its library's float32 variant and passes every
# case, at float32 accuracy and (the float32 variants being the float32
# recurrence certified) at binary64 accuracy.  The last line is "N passed, M failed"; the exit status is 0
# when M = 0 and N > 0.
RLREF=${1:?usage: test_ppo_f32.sh path/to/rlref golden}
GOLDEN=${2:-golden}
HERE=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# follows ID STYLE VARIANT: the checker's "Candidate follows:" line for STYLE's
# candidate on golden ID names VARIANT first (the others it is consistent
# with follow "; also consistent with:"), with exit 0.
follows () {
  id=$1 style=$2 want=$3
  if ! /usr/bin/python3 "$HERE/ppo_f32_candidate.py" "$GOLDEN/$id.json" "$style" > "$tmp/c.json"
  then
    fail=$((fail + 1)); echo "FAIL $id $style: the candidate could not be written"; return
  fi
  "$RLREF" check "$GOLDEN/$id.json" "$tmp/c.json" --dtype float32 > "$tmp/out" 2>&1
  rc=$?
  got=$(sed -n 's/^Candidate follows: \([^;]*\).*/\1/p' "$tmp/out")
  if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
    pass=$((pass + 1)); echo "ok   $id, $style's float32 code: follows $want"
  else
    fail=$((fail + 1)); echo "FAIL $id, $style's float32 code: exit $rc, follows '$got', not '$want'"
    tail -5 "$tmp/out" | sed 's/^/     /'
  fi
}

follows PPO-CLIP trl trl-float32
follows PPO-CLIP verl verl-float32
follows PPO-CLIP openrlhf openrlhf-float32
follows PPO-DUALCLIP verl verl-float32
follows PPO-WHITEN trl "trl-float32"
follows PPO-WHITEN verl "verl-float32"
follows PPO-WHITEN openrlhf "openrlhf-float32"

# at binary64 accuracy too: the float32 variants are the float32 recurrence
# certified, so a faithful float32 candidate follows them to the last bit,
# and the exact-arithmetic variant no longer
/usr/bin/python3 "$HERE/ppo_f32_candidate.py" "$GOLDEN/PPO-WHITEN.json" openrlhf > "$tmp/c.json"
"$RLREF" check "$GOLDEN/PPO-WHITEN.json" "$tmp/c.json" > "$tmp/out" 2>&1
got=$(sed -n 's/^Candidate follows: \([^;]*\).*/\1/p' "$tmp/out")
if [ "$got" = "openrlhf-float32" ]; then
  pass=$((pass + 1)); echo "ok   PPO-WHITEN, openrlhf's float32 code at binary64 accuracy: follows $got"
else
  fail=$((fail + 1)); echo "FAIL PPO-WHITEN, openrlhf's float32 code at binary64 accuracy: follows '$got'"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
