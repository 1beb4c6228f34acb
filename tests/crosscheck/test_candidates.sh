#!/bin/sh
# test_candidates.sh RLREF GOLDEN -- what `rlref check` says of GRPO advantages
# computed independently as each library's code computes them
# (tests/crosscheck/candidates.py), in binary64 and binary32.
#
#   follows V   a careful implementation (rewards scaled by a power of two,
#               --scale) in binary64, and TRL's own float32 arithmetic: exit
#               0, "Candidate follows: V" (V named first), at least one case
#               passed.
#   closest V   the library's code as it is: exit 1, V named as the convention it follows
#               apart from its failures, or as the nearest
#               variant, and every case it fails is one the golden flags as
#               out of that arithmetic's reach -- RangeScaling in binary64
#               (squares of 1e154, sums near DBL_MAX overflow), and in
#               binary32 also Float32Subnormal and OperationOrder (rewards
#               rounded to binary32, a binary32 mean divided by a small std).
#   lower V     TRL's code in binary64, scaled: its Bessel factor is a
#               float32 tensor, so it fails trl at binary64 accuracy, and
#               the checker says it follows trl at float32 accuracy.
#
# TRL's binary64 code unscaled is not judged: it differs from the exact trl
# in every case (the float32 Bessel factor) and overflows on 1e154 besides.
# Last, one advantage of a named candidate is perturbed by a relative 1e-9,
# beyond binary64 noise: the checker must fail that case and match nothing.
# A missing golden file fails every test.  The last line is "N passed, M
# failed"; the exit status is 0 when M = 0 and N > 0.
RLREF=${1:?usage: test_candidates.sh path/to/rlref golden/GRPO-ADV.json}
GOLDEN=${2:-golden/GRPO-ADV.json}
HERE=$(dirname "$0")
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok () { pass=$((pass + 1)); echo "ok   $1"; }
bad () { fail=$((fail + 1)); echo "FAIL: $1"; sed 's/^/  /' "$tmp/why"; }

# failures VARIANT FLAGS: the tcIds of the "FAIL tcId N [VARIANT]" lines of
# $tmp/out with their flags; status 0 when there is one at least and each
# carries one of FLAGS (comma-separated).
failures () {
  "$PY" - "$GOLDEN" "$tmp/out" "$1" "$2" <<'EOF'
import json, re, sys
golden, out, variant, want = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split(","))
flags = {t["tcId"]: t.get("flags", []) for g in json.load(open(golden))["testGroups"]
         for t in g["tests"]}
pat = r"^FAIL tcId (\d+) \[%s\]" % re.escape(variant)
failed = sorted({int(n) for n in re.findall(pat, open(out).read(), re.M)})
print(", ".join("%d (%s)" % (n, " ".join(flags.get(n, []))) for n in failed) or "none")
sys.exit(0 if failed and all(want & set(flags.get(n, [])) for n in failed) else 1)
EOF
}

# judge CONV DTYPE MODE EXPECT VARIANT [FLAGS]: run the candidate, check it
# against the whole golden at DTYPE, and hold the report to EXPECT.
judge () {
  conv=$1 dtype=$2 mode=$3 expect=$4 variant=$5 flags=${6:-}
  what="$conv ($dtype) $mode: $expect $variant"
  nope="$conv ($dtype) not recognised as expected: $mode: $expect $variant"
  opt=
  [ "$mode" = scaled ] && opt=--scale
  rm -f "$tmp/c.json"
  if ! "$PY" "$HERE/candidates.py" "$GOLDEN" "$conv" "$tmp/c.json" --dtype "$dtype" $opt \
       > "$tmp/why" 2>&1; then
    bad "$nope: candidates.py failed"
    return
  fi
  "$RLREF" check "$GOLDEN" "$tmp/c.json" --dtype "$dtype" > "$tmp/out" 2>&1
  status=$?
  grep -E "Candidate|^[0-9]+ passed" "$tmp/out" > "$tmp/why"
  case $expect in
    follows)
      if [ "$status" -eq 0 ] && grep -Eq "^Candidate follows: $variant(;|\$)" "$tmp/out" \
         && tail -n 1 "$tmp/out" | grep -Eq "^[1-9][0-9]* passed, 0 failed\$"; then
        ok "$what"
      else
        bad "$nope (exit $status)"
      fi ;;
    closest)
      # named as the convention it follows, apart from its failures on the
      # numerically demanding (flagged) cases
      if [ "$status" -eq 1 ] \
         && grep -Eq "^Candidate (matches no variant; nearest: $variant |follows the convention $variant, but fails)" "$tmp/out" \
         && failures "$variant" "$flags" > "$tmp/ids"; then
        ok "$what, fails only $flags cases: $(cat "$tmp/ids")"
      else
        failures "$variant" "$flags" >> "$tmp/why"
        bad "$nope, failing only $flags cases (exit $status)"
      fi ;;
    lower)
      if [ "$status" -eq 1 ] \
         && grep -q "^Candidate follows $variant at float32 accuracy" "$tmp/out"; then
        ok "$what"
      else
        bad "$nope (exit $status)"
      fi ;;
  esac
}

judge trl float32 library follows trl-float32
judge trl float64 scaled lower trl
for conv in verl openrlhf no-std ddof0; do
  v=$conv
  [ "$conv" = ddof0 ] && v=seed-001
  judge "$conv" float64 scaled follows "$v"
  judge "$conv" float64 library closest "$v" RangeScaling
  judge "$conv" float32 library closest "$v" RangeScaling,Float32Subnormal,OperationOrder
done

# one advantage perturbed by a relative 1e-9: beyond binary64 noise.  The case
# is found by its content (verl's detector [1, 0, 0, 0]), not by its tcId.
what="verl (float64) scaled, [1,0,0,0] perturbed by 1e-9: caught"
rm -f "$tmp/c.json"
if "$PY" "$HERE/candidates.py" "$GOLDEN" verl "$tmp/c.json" --scale --perturb verl/1,0,0,0 \
     > "$tmp/why" 2>&1; then
  id=$(sed -n 's/^perturbed tcId \([0-9][0-9]*\)$/\1/p' "$tmp/why")
  "$RLREF" check "$GOLDEN" "$tmp/c.json" > "$tmp/out" 2>&1
  status=$?
  tail -n 5 "$tmp/out" > "$tmp/why"
  if [ -n "$id" ] && [ "$status" -eq 1 ] && grep -q "^FAIL tcId $id \[verl\] adv\[0\]" "$tmp/out" \
     && grep -q "^Candidate matches no variant; nearest: verl " "$tmp/out"; then
    ok "$what (tcId $id)"
  else
    bad "perturbed verl candidate not caught (tcId ${id:-?}, exit $status)"
  fi
else
  bad "perturbed verl candidate: candidates.py failed"
fi

echo "independent candidates: $pass of $((pass + fail)) judged as expected"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
