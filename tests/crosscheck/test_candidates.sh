#!/bin/sh
# test_candidates.sh RLREF GOLDEN -- `rlref check` must name the convention
# of candidates computed independently (tests/crosscheck/candidates.py, plain
# Python written from CONVENTIONS.md) in binary64 and binary32, and must
# fail a candidate with one value perturbed, naming the case.  A run of
# `rlref check` that passes must have passed at least one case; a missing
# golden file fails every test.  The last line is "N passed, M failed".
RLREF=${1:?usage: test_candidates.sh path/to/rlref golden/GRPO-ADV.json}
GOLDEN=${2:-golden/GRPO-ADV.json}
HERE=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for conv in trl verl openrlhf no-std; do
  for dtype in float64 float32; do
    rm -f "$tmp/c.json"
    /usr/bin/python3 "$HERE/candidates.py" "$GOLDEN" "$conv" "$tmp/c.json" --dtype "$dtype" >/dev/null
    "$RLREF" check "$GOLDEN" "$tmp/c.json" --dtype "$dtype" > "$tmp/out" 2>&1
    status=$?
    if [ "$status" -eq 0 ] && grep -q "^Candidate follows: $conv\$" "$tmp/out" \
       && grep -Eq "^[1-9][0-9]* passed, 0 failed\$" "$tmp/out"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL: $conv ($dtype) not recognised (exit $status):"
      grep -E "Candidate|variant" "$tmp/out"
    fi
  done
done
# one advantage perturbed by a relative 1e-9: beyond binary64 noise
rm -f "$tmp/c.json"
/usr/bin/python3 "$HERE/candidates.py" "$GOLDEN" trl "$tmp/c.json" --perturb 70 >/dev/null
"$RLREF" check "$GOLDEN" "$tmp/c.json" > "$tmp/out" 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q "FAIL tcId 70 " "$tmp/out" && grep -q "matches no variant" "$tmp/out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: perturbed trl candidate: exit $status"
  tail -5 "$tmp/out"
fi
echo "independent candidates: $pass of $((pass + fail)) recognised as expected"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
