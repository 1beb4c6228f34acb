#!/bin/sh
# test_check.sh -- tests of "rlref check" against the hand-made fixtures.
#
# Usage: test_check.sh RLREF [FIXTURES]
#   RLREF     the built rlref binary
#   FIXTURES  the fixture directory (default: fixtures/ next to this script)
#
# The fixtures are made by fixtures/gen_fixtures.py (mpmath, 60 digits):
#   bt.json     one variant ("bt"), p = sigma(rw - rl), 5 valid cases (the
#               fifth, e^-800, underflows binary64 to 0) and an invalid one
#               (tcId 9, ENAN); bt_cand.json answers it.
#   grpo2.json  two variants of the group advantage, "trl" (tcIds 1-5) and
#               "verl" (tcIds 11-15), each with an invalid case (4, 14, 15)
#               and, in trl, an acceptable one (5, NaN reward).
#   grpo2_cand_trl.json, grpo2_cand_verl.json  each convention computed in
#               binary64 on every input; grpo2_cand_trl_perturbed.json has
#               tcId 2 adv[1] moved by a relative 1e-12;
#               grpo2_cand_trl_f32.json holds trl results rounded to binary32;
#               grpo2_cand_trl_only.json answers the trl cases only.
# Malformed files are written to a temporary directory.  The first test
# regenerates the fixtures (FIXTURES/gen_fixtures.py --check) and fails when
# a committed fixture differs from what the generator writes.
#
# Prints "N passed, M failed" last and exits non-zero when a test fails or
# none passed.

RLREF=${1:?usage: test_check.sh RLREF [FIXTURES]}
FIX=${2:-$(dirname "$0")/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/check_cmd.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM

passed=0
failed=0
OUT=$TMP/out
ERR=$TMP/err

# Record the outcome of test $1: ok when the last command matched.
verdict () {
  if [ "$2" = ok ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $1" >&2
    sed 's/^/  stdout: /' "$OUT" >&2
    sed 's/^/  stderr: /' "$ERR" >&2
  fi
}

# Run rlref check with the given arguments, keeping stdout, stderr, status.
run () {
  "$RLREF" check "$@" >"$OUT" 2>"$ERR"
  rc=$?
}

# expect NAME STATUS [PATTERN...] -- ARGS: run, then require exit STATUS
# and every PATTERN (grep -E) somewhere in stdout.
expect () {
  name=$1
  want=$2
  shift 2
  pats=$TMP/pats
  : >"$pats"
  while [ "$1" != "--" ]; do
    printf '%s\n' "$1" >>"$pats"
    shift
  done
  shift
  run "$@"
  ok=ok
  if [ "$rc" != "$want" ]; then
    ok=no
    echo "  (exit status $rc, expected $want)" >>"$ERR"
  fi
  while IFS= read -r p; do
    if ! grep -Eq -- "$p" "$OUT"; then
      ok=no
      echo "  (stdout lacks /$p/)" >>"$ERR"
    fi
  done <"$pats"
  verdict "$name" "$ok"
}

# reject NAME PATTERN -- ARGS: like expect, but PATTERN must not be in stdout.
reject () {
  name=$1
  pat=$2
  shift 3
  run "$@"
  if grep -Eq -- "$pat" "$OUT"; then
    echo "  (stdout has /$pat/)" >>"$ERR"
    verdict "$name" no
  else
    verdict "$name" ok
  fi
}

# malformed NAME GOLDEN CANDIDATE: exit 2, a message on stderr, no report.
malformed () {
  run "$2" "$3"
  if [ "$rc" = 2 ] && grep -q '^rlref check: ' "$ERR" && [ ! -s "$OUT" ]; then
    verdict "$1" ok
  else
    echo "  (exit status $rc; expected 2, a message and no report)" >>"$ERR"
    verdict "$1" no
  fi
}

G1=$FIX/bt.json
G2=$FIX/grpo2.json
TRL=$FIX/grpo2_cand_trl.json
VERL=$FIX/grpo2_cand_verl.json
LAST='^[0-9]+ passed, [0-9]+ failed$'

# --- the fixtures are what gen_fixtures.py writes ---------------------------
if /usr/bin/python3 "$FIX/gen_fixtures.py" --check "$FIX" >"$OUT" 2>"$ERR"; then
  verdict "fixtures as generated" ok
else
  verdict "fixtures as generated" no
fi

# --- usage -------------------------------------------------------------
expect "help" 0 "^[Uu]sage: rlref check" -- --help
expect "-h" 0 "^[Uu]sage: rlref check" -- -h
expect "unknown option" 2 -- "$G1" "$FIX/bt_cand.json" --frobnicate
expect "one file only" 2 -- "$G1"
expect "bad dtype" 2 -- "$G1" "$FIX/bt_cand.json" --dtype float16
expect "bad ulps" 2 -- "$G1" "$FIX/bt_cand.json" --ulps abc
expect "unknown variant" 2 -- "$G2" "$TRL" --variant nope

# --- a correct candidate -------------------------------------------------
expect "single variant, correct" 0 "^5 passed, 0 failed$" \
  "^Input validation against bt: rejects the one input it rejects$" -- "$G1" "$FIX/bt_cand.json"
expect "underflow to 0 passes" 0 "^PASS tcId 5 \[bt\] p: expected 3\.6678745841776872134\.\.\.e-348 got 0 " \
  -- "$G1" "$FIX/bt_cand.json" --verbose
expect "correct, --variant trl" 0 "^4 passed, 0 failed$" -- "$G2" "$TRL" --variant trl
expect "correct, --variant=verl, hex strings" 0 "^3 passed, 0 failed$" \
  -- "$G2" "$VERL" --variant=verl
reject "correct: no FAIL lines" "^FAIL" -- "$G2" "$TRL" --variant trl
expect "--verbose prints passes" 0 "^PASS tcId 1 \[bt\] p: expected 0\.731058578630004879" \
  "^PASS tcId 9 \[bt\]: rejected" "$LAST" -- "$G1" "$FIX/bt_cand.json" --verbose
expect "candidate on standard input" 0 "^5 passed, 0 failed$" \
  -- "$G1" - <"$FIX/bt_cand.json"

# --- one output beyond tolerance ------------------------------------------
expect "perturbed, --variant trl" 1 "^FAIL tcId 2 \[trl\] adv\[1\]: expected 0\.7068568695436562173" \
  "^3 passed, 1 failed$" -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json" --variant trl
expect "perturbed: only that element" 1 "err [0-9.e+]+ ulps, rel 1e-12, 12\.0 correct digits" \
  -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json" --variant trl
expect "perturbed, passes with --rtol 1e-11" 0 "^4 passed, 0 failed$" \
  -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json" --variant trl --rtol 1e-11
expect "perturbed, passes with --ulps 1e5" 0 "^4 passed, 0 failed$" \
  -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json" --variant trl --ulps 1e5
# 12 correct digits: no float32 step (that would leave 6 to 9)
expect "perturbed, multi-variant: no match" 1 "^variant trl: 3 passed, 1 failed  no match$" \
  "^Candidate matches no variant; nearest: trl \(3 of 4\)$" "^FAIL tcId 2 \[trl\]" \
  "^3 passed, 1 failed$" -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json"
reject "perturbed: no float32 diagnosis" "accuracy" -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json"

# --- float32 noise ------------------------------------------------------
expect "float32 results as float32" 0 "^4 passed, 0 failed$" \
  -- "$G2" "$FIX/grpo2_cand_trl_f32.json" --variant trl --dtype float32
expect "float32 results as float64" 1 "^FAIL tcId 1 \[trl\] adv\[0\]" \
  "^NOTE tcId 5 \[trl\] adv\[0\].*\(acceptable: flags NanReward\)$" \
  "^Candidate follows trl at float32 accuracy \(7\.[0-9] digits\); declared float64" \
  "^1 passed, 2 failed$" -- "$G2" "$FIX/grpo2_cand_trl_f32.json" --variant trl
expect "float32 results as bfloat16" 0 "^4 passed, 0 failed$" \
  -- "$G2" "$FIX/grpo2_cand_trl_f32.json" --variant trl --dtype bfloat16

# --- several variants -----------------------------------------------------
expect "trl candidate follows trl" 0 "^variant trl: 4 passed, 0 failed  MATCH$" \
  "^variant verl: 0 passed, 3 failed  no match$" "^Candidate follows: trl$" \
  "^4 passed, 0 failed$" -- "$G2" "$TRL"
reject "trl candidate: details of trl only" "\[verl\]" -- "$G2" "$TRL"
expect "verl candidate follows verl" 0 "^variant trl: 0 passed, 3 failed, 1 noted  no match$" \
  "^variant verl: 3 passed, 0 failed  MATCH$" "^Candidate follows: verl$" \
  "^3 passed, 0 failed$" -- "$G2" "$VERL"
expect "trl candidate against verl" 1 "^FAIL tcId 11 \[verl\] adv\[0\]" \
  "^FAIL tcId 13 \[verl\] adv\[0\]: expected 2\.4999975000024999975\.\.\. got 0 " \
  "^Input validation against verl: accepts 1 of the 2 inputs it rejects \(tcId 15\); not counted" \
  "^0 passed, 3 failed$" -- "$G2" "$TRL" --variant verl
expect "trl candidate against verl, --strict" 1 "^FAIL tcId 15 \[verl\]: not rejected \(gave values\)" \
  "^1 passed, 4 failed$" -- "$G2" "$TRL" --variant verl --strict
expect "verl candidate, --strict: every rejection" 0 "^5 passed, 0 failed$" \
  -- "$G2" "$VERL" --variant verl --strict
expect "verl candidate against trl: acceptable noted" 1 \
  "^NOTE tcId 5 \[trl\]: rejected the input .*\(acceptable: flags NanReward\)$" \
  "^1 acceptable mismatch noted$" "^0 passed, 3 failed$" -- "$G2" "$VERL" --variant trl
expect "--verbose: details of every variant" 0 "^FAIL tcId 11 \[verl\]" "^PASS tcId 1 \[trl\]" \
  "^Candidate follows: trl$" -- "$G2" "$TRL" --verbose

# --- candidates that leave cases out ---------------------------------------
expect "trl cases only: verl not run" 0 "^variant trl: 4 passed, 0 failed  MATCH$" \
  "^variant verl: not run$" "^Candidate follows: trl$" "^4 passed, 0 failed$" \
  -- "$G2" "$FIX/grpo2_cand_trl_only.json"
printf '{"results": []}\n' >"$TMP/none.json"
expect "no results: none run" 1 "^variant bt: not run$" "^Candidate ran none of these cases$" \
  "^0 passed, 0 failed$" -- "$G1" "$TMP/none.json"
expect "no results, --variant: all missing" 1 "^FAIL tcId 1 \[bt\]: missing$" "^0 passed, 5 failed$" \
  -- "$G1" "$TMP/none.json" --variant bt
printf '{"results": [{"tcId": 9, "outputs": {"p": 0.5}}, {"tcId": 1, "error": "EDOM"}]}\n' \
  >"$TMP/wrong.json"
expect "invalid answered, valid rejected" 1 \
  "^Input validation against bt: accepts the one input it rejects \(tcId 9\); not counted" \
  "^FAIL tcId 1 \[bt\]: rejected the input" "^0 passed, 5 failed$" -- "$G1" "$TMP/wrong.json"
expect "invalid answered, --strict" 1 "^FAIL tcId 9 \[bt\]: not rejected \(gave values\)" \
  "^0 passed, 6 failed$" -- "$G1" "$TMP/wrong.json" --strict
printf '{"results": [{"tcId": 1, "outputs": {"p": "0x1.764d4f5d5a2bdp-1"}},
 {"tcId": 2, "outputs": {"p": [0.18242552380635635]}},
 {"tcId": 3, "outputs": {}}, {"tcId": 4, "outputs": {"p": "nan"}},
 {"tcId": 5, "outputs": {"p": 5e-324}}, {"tcId": 9, "error": "EINVAL"}]}\n' \
  >"$TMP/shapes.json"
expect "shapes and error names" 1 "^FAIL tcId 2 \[bt\] p: expected a single value" \
  "^FAIL tcId 3 \[bt\] p: missing output$" "^FAIL tcId 4 \[bt\] p: expected .* got nan$" \
  "^2 passed, 3 failed$" -- "$G1" "$TMP/shapes.json"
expect "a rejection under another name, --verbose" 1 \
  "^PASS tcId 9 \[bt\]: rejected with \"EINVAL\" \(the golden names \"ENAN\"\)$" \
  -- "$G1" "$TMP/shapes.json" --verbose

# --- GitHub workflow annotations -------------------------------------------
expect "github: a failing case and the verdict as errors" 1 \
  "^::error file=[^,]*grpo2\.json,title=rlref check GRPO-ADV-FIXTURE tcId 2::FAIL tcId 2 \[trl\] adv\[1\]: expected" \
  "^::error file=[^,]*grpo2\.json,title=rlref check GRPO-ADV-FIXTURE::Candidate matches no variant; nearest: trl \(3 of 4\)%0AUnexplained: " \
  "^3 passed, 1 failed$" -- "$G2" "$FIX/grpo2_cand_trl_perturbed.json" --format github
expect "github: a match as a notice" 0 \
  "^::notice file=[^,]*,title=rlref check GRPO-ADV-FIXTURE::Candidate follows: trl$" \
  "^4 passed, 0 failed$" -- "$G2" "$TRL" --format github
reject "github: no error for a match" "^::error" -- "$G2" "$TRL" --format github
expect "github: input validation a warning, an error with --strict" 1 \
  "^::warning file=[^,]*,title=rlref check GRPO-ADV-FIXTURE::Input validation against verl: accepts 1 of the 2" \
  -- "$G2" "$TRL" --variant verl --format github
expect "github: --strict" 1 \
  "^::error file=[^,]*,title=rlref check GRPO-ADV-FIXTURE tcId 15::FAIL tcId 15 \[verl\]: not rejected" \
  "^::error file=[^,]*,title=rlref check GRPO-ADV-FIXTURE::Input validation against verl: accepts" \
  -- "$G2" "$TRL" --variant verl --format github --strict
printf '{"testGroups": [{"variant": "a,b", "tests": [{"tcId": 1, "result": "valid", "outputs": {"p": {"value": "1", "sens": "0"}}}]}], "formula": "F%%:1"}\n' \
  >"$TMP/esc,g:1.json"
printf '{"results": [{"tcId": 1, "outputs": {"p": 2}}]}\n' >"$TMP/esc_c.json"
expect "github: % : , escaped in properties" 1 "^::error file=[^:]*esc%2Cg%3A1\.json,title=rlref check F%25%3A1 tcId 1::FAIL tcId 1 \[a,b\] p: expected 1 got 2" \
  -- "$TMP/esc,g:1.json" "$TMP/esc_c.json" --format github
expect "unknown format" 2 -- "$G1" "$FIX/bt_cand.json" --format xml

# --- malformed files ------------------------------------------------------
malformed "missing golden file" "$TMP/nonexistent.json" "$TRL"
malformed "missing candidate file" "$G2" "$TMP/nonexistent.json"
head -c 2000 "$G2" >"$TMP/trunc_g.json"
malformed "truncated golden" "$TMP/trunc_g.json" "$TRL"
head -c 200 "$TRL" >"$TMP/trunc_c.json"
malformed "truncated candidate" "$G2" "$TMP/trunc_c.json"
: >"$TMP/empty.json"
malformed "empty candidate" "$G2" "$TMP/empty.json"
printf '{"schemaVersion": 1}\n' >"$TMP/nogroups.json"
malformed "golden without testGroups" "$TMP/nogroups.json" "$TRL"
printf '{"testGroups": {}}\n' >"$TMP/groupsobj.json"
malformed "testGroups not an array" "$TMP/groupsobj.json" "$TRL"
printf '{"testGroups": [{"variant": "a", "tests": [{"tcId": "1", "result": "valid", "outputs": {}}]}]}\n' \
  >"$TMP/tcidstr_g.json"
malformed "golden tcId a string" "$TMP/tcidstr_g.json" "$TRL"
printf '{"testGroups": [{"variant": "a", "tests": [{"tcId": 1, "result": "valid", "outputs": {"p": {"value": 0.5, "sens": "0"}}}]}]}\n' \
  >"$TMP/valnum_g.json"
malformed "golden value a JSON number" "$TMP/valnum_g.json" "$TRL"
printf '{"testGroups": [{"variant": "a", "tests": [{"tcId": 1, "result": "valid", "outputs": {}}, {"tcId": 1, "result": "valid", "outputs": {}}]}]}\n' \
  >"$TMP/dup_g.json"
malformed "golden duplicate tcId" "$TMP/dup_g.json" "$TRL"
printf '{"result": []}\n' >"$TMP/noresults.json"
malformed "candidate without results" "$G1" "$TMP/noresults.json"
printf '{"results": [{"tcId": "1", "outputs": {"p": 0.5}}]}\n' >"$TMP/tcidstr_c.json"
malformed "candidate tcId a string" "$G1" "$TMP/tcidstr_c.json"
printf '{"results": [{"tcId": 1.5, "outputs": {"p": 0.5}}]}\n' >"$TMP/tcidreal_c.json"
malformed "candidate tcId not an integer" "$G1" "$TMP/tcidreal_c.json"
printf '{"results": [{"tcId": 1, "outputs": {"p": 0.5}}, {"tcId": 1, "outputs": {"p": 0.5}}]}\n' \
  >"$TMP/dup_c.json"
malformed "candidate duplicate tcId" "$G1" "$TMP/dup_c.json"
printf '{"results": [{"tcId": 1, "outputs": {"p": "half"}}]}\n' >"$TMP/word_c.json"
malformed "candidate value not a number" "$G1" "$TMP/word_c.json"
printf '{"results": [{"tcId": 1, "outputs": {"p": NaN}}]}\n' >"$TMP/nanlit_c.json"
malformed "candidate NaN literal" "$G1" "$TMP/nanlit_c.json"
printf '{"results": [{"tcId": 1, "outputs": {"p": null}}]}\n' >"$TMP/null_c.json"
malformed "candidate null value" "$G1" "$TMP/null_c.json"
printf '{"results": [{"tcId": 1}]}\n' >"$TMP/neither_c.json"
malformed "candidate result without outputs or error" "$G1" "$TMP/neither_c.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
