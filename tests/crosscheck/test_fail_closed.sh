#!/bin/sh
# test_fail_closed.sh [GOLDEN_DIR] -- the cross-check fails closed.  Faults
# are planted in a copy of tests/crosscheck (and of the golden files) in a
# temporary directory, never in the tree:
#   * a family module deleted, one formula's evaluator deleted, a golden
#     file of a formula no module knows: the run fails naming the formula;
#   * one output no longer recomputed (a whole output, one array element),
#     an output the golden lacks, a golden value one digit off: it fails
#     naming the test and output;
#   * a module that does not import, declares no evaluators, or claims a
#     formula another module claims; a selftest that no longer holds;
#   * an empty directory, one without golden files, a missing one;
#   * detectors.py, validate.py, naive.py and test_candidates.sh with their
#     golden files missing.
# A new family module, one folder and file, is picked up with no list edited.
# Every runner must print "N passed, M failed" last.
#
# Prints "N passed, M failed" last; exits non-zero when a test fails or none
# passed.
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
GOLDEN=$(cd "${1:-$TOP/golden}" && pwd) || exit 2
PY=/usr/bin/python3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fail_closed.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
XC=$TMP/crosscheck
FAM=$TMP/families
G=$TMP/golden
OUT=$TMP/out
passed=0
failed=0
LAST='^[0-9]+ passed, [0-9]+ failed$'

# fresh: a clean copy of the harness in $XC, of the family modules in $FAM (the
# harness finds them beside itself, ../families) and of the golden files in $G
fresh () {
  rm -rf "$XC" "$FAM" "$G"
  cp -R "$HERE" "$XC"
  cp -R "$TOP/tests/families" "$FAM"
  find "$XC" "$FAM" -name __pycache__ -prune -exec rm -rf {} +
  cp -R "$GOLDEN" "$G"
}

# only F...: $G keeps only these golden files (and the schema)
only () {
  mkdir "$TMP/keep"
  for f in "$@"; do mv "$G/$f" "$TMP/keep/"; done
  rm -f "$G"/[A-Z]*.json
  mv "$TMP/keep"/* "$G/"
  rmdir "$TMP/keep"
}

# plant FILE SED-SCRIPT: edit FILE of the copy; an edit that changes nothing
# is itself a failure (the fault would not be planted)
plant () {
  cp "$1" "$TMP/before"
  sed -i "$2" "$1"
  if cmp -s "$1" "$TMP/before"; then
    echo "  (plant: '$2' left $1 unchanged)" >>"$TMP/why"
  fi
}

# run CMD...: run it, keeping stdout and stderr in $OUT and the status in $rc
run () {
  : >"$TMP/why"
  "$@" >"$OUT" 2>&1
  rc=$?
}

# judge NAME STATUS PATTERN [ONLY]: the last run exited STATUS (0: at least one
# pass and no failure; 1: at least one failure), printed PATTERN (grep -E),
# ended with "N passed, M failed", and, with ONLY, every FAIL line matches ONLY
judge () {
  [ "$rc" -eq "$2" ] || echo "  (exit status $rc, expected $2)" >>"$TMP/why"
  grep -Eq -- "$3" "$OUT" || echo "  (output lacks /$3/)" >>"$TMP/why"
  if ! tail -n 1 "$OUT" | grep -Eq "$LAST"; then
    echo "  (last line is not \"N passed, M failed\")" >>"$TMP/why"
  elif [ "$2" -eq 0 ] && ! tail -n 1 "$OUT" | grep -Eq '^[1-9][0-9]* passed, 0 failed$'; then
    echo "  (last line: $(tail -n 1 "$OUT"))" >>"$TMP/why"
  elif [ "$2" -ne 0 ] && ! tail -n 1 "$OUT" | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed$'; then
    echo "  (last line: $(tail -n 1 "$OUT"))" >>"$TMP/why"
  fi
  if [ -n "${4:-}" ] && grep '^FAIL' "$OUT" | grep -Evq -- "$4"; then
    echo "  (a FAIL line other than /$4/)" >>"$TMP/why"
  fi
  if [ -s "$TMP/why" ]; then
    failed=$((failed + 1))
    echo "FAIL $1"
    cat "$TMP/why"
    grep -E '^FAIL|passed, ' "$OUT" | head -n 8 | sed 's/^/  | /'
  else
    passed=$((passed + 1))
    echo "ok   $1"
  fi
}

# --- the copy as it is passes ------------------------------------------------
fresh
only PREF-MARGIN.json GRPO-ADV-EX.json
run $PY "$XC/xcheck.py" "$G"
judge "unmodified harness on two golden files" 0 '^PREF-MARGIN\.json: [1-9][0-9]* passed, 0 failed'

# --- a family module deleted ------------------------------------------------
fresh
rm "$FAM/pref/pref.py"
run $PY "$XC/xcheck.py" "$G"
# the ids families/pref/pref.py evaluates (PREF-PAIRS has a module of its own)
n=0
for id in $(sed -n 's/^    "\(PREF-[A-Z-]*\)": .*/\1/p' "$TOP/tests/families/pref/pref.py"); do
  n=$((n + 1))
  grep -q "^FAIL $id\.json: formula $id has no evaluator" "$OUT" \
    || echo "  (no FAIL line names $id)" >>"$TMP/why"
done
[ "$n" -ge 9 ] || echo "  (only $n PREF ids read from families/pref/pref.py)" >>"$TMP/why"
grep -Eq '^GRPO-ADV\.json: [1-9][0-9]* passed, 0 failed' "$OUT" \
  || echo "  (GRPO-ADV.json is no longer checked in full)" >>"$TMP/why"
judge "families/pref/pref.py deleted: every PREF formula named, GRPO still checked" 1 \
  '^FAIL PREF-BT\.json: formula PREF-BT has no evaluator' \
  '^FAIL PREF-[A-Z-]+\.json: formula PREF-[A-Z-]+ has no evaluator'

# --- one formula's evaluator deleted ------------------------------------------
fresh
plant "$FAM/pref/pref.py" '/^    "PREF-BT-GUMBEL": eval_pref_bt_gumbel,$/d'
run $PY "$XC/xcheck.py" "$G"
judge "evaluator of PREF-BT-GUMBEL deleted" 1 \
  '^FAIL PREF-BT-GUMBEL\.json: formula PREF-BT-GUMBEL has no evaluator' '^FAIL PREF-BT-GUMBEL\.json'

# --- a golden formula that no module knows; then its module, one new file -----
fresh
only PREF-MARGIN.json
sed 's/"formula": "PREF-MARGIN"/"formula": "NEW-FAMILY"/' "$G/PREF-MARGIN.json" \
  >"$G/NEW-FAMILY.json"
run $PY "$XC/xcheck.py" "$G"
judge "a golden file of a new formula without a module" 1 \
  '^FAIL NEW-FAMILY\.json: formula NEW-FAMILY has no evaluator' '^FAIL NEW-FAMILY\.json'
mkdir "$FAM/newfamily"
cat >"$FAM/newfamily/newfamily.py" <<'EOF'
"""A new family: one file, found by listing the directory."""
import families

EVALUATORS = {"NEW-FAMILY": families.module("pref").eval_pref_margin}
EOF
run $PY "$XC/xcheck.py" "$G"
judge "the new formula's module added as one file" 0 \
  '^NEW-FAMILY\.json: [1-9][0-9]* passed, 0 failed'

# --- an output no longer recomputed ---------------------------------------------
fresh
only PREF-ENSEMBLE.json
plant "$FAM/pref/pref.py" \
  's/return {"mean": M(mean), "var": M(var), "std": std,/return {"mean": M(mean), "std": std,/'
run $PY "$XC/xcheck.py" "$G"
judge "PREF-ENSEMBLE var no longer recomputed" 1 \
  '^FAIL PREF-ENSEMBLE\.json tcId [0-9]+ var: .*no evaluator of PREF-ENSEMBLE recomputes' \
  '^FAIL PREF-ENSEMBLE\.json tcId [0-9]+ var:'

fresh
only GRPO-ADV.json
plant "$FAM/grpo/grpo.py" 's/^    return {"adv": adv}$/    return {"adv": adv[:-1]}/'
run $PY "$XC/xcheck.py" "$G"
judge "GRPO-ADV last advantage no longer recomputed" 1 \
  '^FAIL GRPO-ADV\.json tcId [0-9]+ adv\[[0-9]+\]: .*no evaluator of GRPO-ADV recomputes' \
  '^FAIL GRPO-ADV\.json tcId [0-9]+ adv'

# --- an output the golden lacks ---------------------------------------------------
fresh
only PREF-MARGIN.json
plant "$FAM/pref/pref.py" 's/"grad_rw": -s, "grad_rl": s}/"grad_rw": -s, "grad_rl": s, "grad_m": s}/'
run $PY "$XC/xcheck.py" "$G"
judge "an output recomputed here that the golden lacks" 1 \
  "^FAIL PREF-MARGIN\.json tcId [0-9]+ grad_m: .*the golden has no output 'grad_m'" \
  '^FAIL PREF-MARGIN\.json'

# --- a golden value one digit off -------------------------------------------------
fresh
only PREF-MARGIN.json
$PY - "$G/PREF-MARGIN.json" <<'EOF'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
out = doc["testGroups"][0]["tests"][0]["outputs"]["loss"]
v = out["value"]
i = max(k for k, c in enumerate(v) if c.isdigit())
out["value"] = v[:i] + str((int(v[i]) + 2) % 10) + v[i + 1:]
json.dump(doc, open(path, "w"), indent=1)
EOF
run $PY "$XC/xcheck.py" "$G"
judge "a golden value two units off in its last digit" 1 \
  '^FAIL PREF-MARGIN\.json tcId [0-9]+ loss: .*units of the last digit' '^FAIL PREF-MARGIN\.json'

# --- broken family modules ----------------------------------------------------------
fresh
only PREF-MARGIN.json
mkdir "$FAM/dup"
printf 'EVALUATORS = {"PREF-MARGIN": lambda v, p, i, c: {}}\n' >"$FAM/dup/dup.py"
run $PY "$XC/xcheck.py" "$G"
judge "two modules claim PREF-MARGIN" 1 \
  '^FAIL families/(dup|pref)/(dup|pref)\.py: formula PREF-MARGIN is claimed by families/(dup|pref)/(dup|pref)\.py too'
fresh
only PREF-MARGIN.json
mkdir "$FAM/broken"
printf 'EVALUATORS = {\n' >"$FAM/broken/broken.py"
run $PY "$XC/xcheck.py" "$G"
judge "a module that does not import" 1 \
  '^FAIL families/broken/broken\.py does not import: SyntaxError' '^FAIL families/broken/broken\.py'
fresh
only PREF-MARGIN.json
mkdir "$FAM/empty"
printf 'DETECTORS = []\n' >"$FAM/empty/empty.py"
run $PY "$XC/xcheck.py" "$G"
judge "a module without evaluators" 1 \
  '^FAIL families/empty/empty\.py declares no EVALUATORS' '^FAIL families/empty/empty\.py'

# --- a selftest that no longer holds ---------------------------------------------------
fresh
plant "$FAM/grpo/grpo.py" \
  '/^    expect("seed-003 \[1,0,0,0\]"/s/\[0\], mpf(1\.5))$/[0], mpf(1.25))/'
run $PY "$XC/xcheck.py" --selftest
judge "--selftest with a wrong expected value" 1 '^BAD  seed-003 \[1,0,0,0\]'

# --- nothing to check ---------------------------------------------------------------------
fresh
mkdir "$TMP/empty"
run $PY "$XC/xcheck.py" "$TMP/empty"
judge "xcheck.py on an empty directory" 1 '^FAIL .*: no golden file' '^FAIL .*: no golden file'
rm -f "$G"/[A-Z]*.json
run $PY "$XC/xcheck.py" "$G"
judge "xcheck.py on a directory with the schema only" 1 '^FAIL .*: no golden file'
run $PY "$XC/xcheck.py" "$TMP/nonexistent"
judge "xcheck.py on a missing directory" 1 '^FAIL .*nonexistent: no such file or directory'
printf '{"formula": \n' >"$G/PREF-BT.json"
run $PY "$XC/xcheck.py" "$G"
judge "xcheck.py on a golden file that is not JSON" 1 \
  '^FAIL PREF-BT\.json: cannot read a golden file'

# --- the other runners, with their golden files missing ---------------------------------
fresh
rm "$G/GRPO-ADV.json"
run $PY "$XC/detectors.py" "$G"
judge "detectors.py without GRPO-ADV.json" 1 '^FAIL GRPO-ADV: the checks of this formula need' \
  '^FAIL GRPO-ADV: '
run $PY "$XC/detectors.py" "$TMP/empty"
judge "detectors.py on an empty directory" 1 '^FAIL PREF-BT: the checks of this formula need'
run $PY "$TOP/tests/schema/validate.py" "$TMP/empty"
judge "validate.py on an empty directory" 1 '^FAIL '
cp "$GOLDEN/rlref-golden.schema.json" "$TMP/empty/"
run $PY "$TOP/tests/schema/validate.py" "$TMP/empty"
judge "validate.py on a directory with the schema only" 1 '^FAIL .*: no golden file'
run $PY "$TOP/tests/selfcheck/naive.py" /bin/false "$TMP/empty"
judge "naive.py on a directory without golden files" 1 '^FAIL PREF-BT \[stable\]'
run sh "$XC/test_candidates.sh" /bin/false "$TMP/empty/GRPO-ADV.json"
judge "test_candidates.sh without its golden file" 1 '^FAIL: trl \(float64\) not recognised'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
