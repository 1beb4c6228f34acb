#!/bin/sh
# test_fixture_drift.sh [RLREF] -- `gen_fixtures.py --check` catches fixtures
# that drift from their generator.  Works on a copy of tests/check_cmd/fixtures
# in a temporary directory: the copy as it is passes; an edited expected
# value, an edited candidate, a deleted fixture, a stray one, and a generator
# changed without its fixtures being regenerated each fail, naming the file.
# With RLREF, test_check.sh run on the drifted copy fails too (the drift is
# caught by the command tests themselves).
#
# Prints "N passed, M failed" last; exits non-zero when a test fails or none
# passed.
HERE=$(cd "$(dirname "$0")" && pwd)
RLREF=${1:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fixture_drift.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
passed=0
failed=0

# fresh: a clean copy of the fixtures and their generator in $TMP/fx
fresh () {
  rm -rf "$TMP/fx"
  mkdir "$TMP/fx"
  cp "$HERE"/fixtures/*.json "$HERE/fixtures/gen_fixtures.py" "$TMP/fx/"
}

# drift NAME WANT_STATUS PATTERN: run the check on $TMP/fx; require the exit
# status and PATTERN (grep -E) in its output, and "N passed, M failed" last.
drift () {
  /usr/bin/python3 "$TMP/fx/gen_fixtures.py" --check "$TMP/fx" >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -eq "$2" ] && grep -Eq -- "$3" "$TMP/out" \
     && tail -n 1 "$TMP/out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
    passed=$((passed + 1))
    echo "ok   $1"
  else
    failed=$((failed + 1))
    echo "FAIL $1 (exit $rc, expected $2 and /$3/):"
    sed 's/^/  /' "$TMP/out"
  fi
}

fresh
drift "the fixtures as committed" 0 '^8 passed, 0 failed$'

fresh
sed -i '0,/"value": "0\.731058578630004879/s//"value": "0.731058578630004878/' "$TMP/fx/bt.json"
drift "an expected value edited by hand" 1 '^FAIL bt\.json differs .* line [0-9]+'

fresh
sed -i '0,/1\.4997000599880024/s//1.4997000599880025/' "$TMP/fx/grpo2_cand_trl.json"
drift "a candidate value edited by hand" 1 '^FAIL grpo2_cand_trl\.json differs'

fresh
rm "$TMP/fx/grpo2_cand_trl_f32.json"
drift "a fixture deleted" 1 '^FAIL grpo2_cand_trl_f32\.json: missing'

fresh
cp "$TMP/fx/bt.json" "$TMP/fx/bt_copy.json"
drift "a fixture the generator does not write" 1 '^FAIL bt_copy\.json: a fixture gen_fixtures\.py does not write'

fresh
sed -i 's/^DIGITS = 40$/DIGITS = 39/' "$TMP/fx/gen_fixtures.py"
drift "the generator changed, the fixtures not regenerated" 1 '^FAIL grpo2\.json differs'

if [ -n "$RLREF" ]; then
  fresh
  sed -i '0,/"value": "0\.731058578630004879/s//"value": "0.731058578630004878/' "$TMP/fx/bt.json"
  sh "$HERE/test_check.sh" "$RLREF" "$TMP/fx" >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && grep -q '^FAILED: fixtures as generated$' "$TMP/out"; then
    passed=$((passed + 1))
    echo "ok   test_check.sh fails on drifted fixtures"
  else
    failed=$((failed + 1))
    echo "FAIL test_check.sh on drifted fixtures: exit $rc"
    tail -n 5 "$TMP/out" | sed 's/^/  /'
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
