#!/bin/sh
# test_real.sh -- what "rlref check" says of the advantages computed by the
# real TRL, verl and OpenRLHF code on the inputs of golden/GRPO-ADV.json.
#
# Usage: test_real.sh RLREF [GOLDEN [DIR]]
#   RLREF   the built rlref binary
#   GOLDEN  golden/GRPO-ADV.json (default: the one of this source tree)
#   DIR     the recorded candidates (default: real/ next to this script)
#
# DIR/README.md says which library commit, file and function produced each
# candidate and how they were called.  The recordings answer the golden's
# inputs as they were when recorded: the first test compares the sha256 of
# the golden's inputs (tcId, reward hex values, group_size of every test)
# with DIR/inputs.sha256 and fails when they differ, since the candidates
# then answer other questions and must be recorded again.  Every *.json in
# DIR must have an expectation below.
#
# Each expectation runs "rlref check GOLDEN FILE --dtype T" and requires
# its exit status, every pattern (grep -E) in its output, and no line
# matching a pattern written with a leading "!".  The last line of every
# report must read "N passed, M failed".  Per file, "nearest" requires the
# library's convention to be the variant the report names (matched, or the
# closest), and "expect" the full verdict: matched (exit 0), or for a
# float64 run with a float32 step, the float32 diagnosis (exit 1).
#
# Prints "N passed, M failed" last and exits non-zero when a test fails or
# none ran.

HERE=$(cd "$(dirname "$0")" && pwd)
RLREF=${1:?usage: test_real.sh RLREF [GOLDEN [DIR]]}
GOLDEN=${2:-$HERE/../../golden/GRPO-ADV.json}
DIR=${3:-$HERE/real}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/check_real.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM

passed=0
failed=0
OUT=$TMP/out
ERR=$TMP/err
tag=
: >"$TMP/seen"

# Record the outcome of test $1: ok when $2 is "ok".
verdict () {
  if [ "$2" = ok ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $1" >&2
    grep -v '^PASS ' "$OUT" | sed 's/^/  stdout: /' >&2
    sed 's/^/  stderr: /' "$ERR" >&2
  fi
}

# expect FILE DTYPE STATUS [PATTERN | !PATTERN]...: judge DIR/FILE.json
# declared as DTYPE; require exit STATUS (any status when STATUS is "-"),
# each PATTERN present and each !PATTERN absent.
expect () {
  file=$1
  dtype=$2
  want=$3
  label="$file --dtype $dtype$tag"
  shift 3
  echo "$file.json" >>"$TMP/seen"
  : >"$ERR"
  if [ ! -f "$DIR/$file.json" ]; then
    echo "  (no file $DIR/$file.json)" >"$ERR"
    : >"$OUT"
    verdict "$label" no
    return
  fi
  "$RLREF" check "$GOLDEN" "$DIR/$file.json" --dtype "$dtype" >"$OUT" 2>>"$ERR"
  rc=$?
  ok=ok
  if [ "$want" != - ] && [ "$rc" != "$want" ]; then
    ok=no
    echo "  (exit status $rc, expected $want)" >>"$ERR"
  fi
  if ! tail -n 1 "$OUT" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
    ok=no
    echo "  (the last line is not \"N passed, M failed\")" >>"$ERR"
  fi
  for p in "$@"; do
    case $p in
      !*)
        if grep -Eq -- "${p#!}" "$OUT"; then
          ok=no
          echo "  (stdout has /${p#!}/)" >>"$ERR"
        fi
        ;;
      *)
        if ! grep -Eq -- "$p" "$OUT"; then
          ok=no
          echo "  (stdout lacks /$p/)" >>"$ERR"
        fi
        ;;
    esac
  done
  verdict "$label" "$ok"
}

# nearest FILE DTYPE VARIANT: the report names VARIANT, matched in full or
# as the closest, whatever the verdict.
nearest () {
  tag=": $3 nearest"
  expect "$1" "$2" - "^Candidate (follows: (.*, )?$3(,|\$)|follows the convention $3,|follows $3 at float32|matches no variant; closest: $3 \\()"
  tag=
}

# --- the recordings answer the golden's present inputs ----------------------
: >"$OUT"
if /usr/bin/python3 - "$GOLDEN" "$DIR/inputs.sha256" >"$ERR" 2>&1 <<'EOF'
import hashlib, json, sys
g = json.load(open(sys.argv[1], encoding="utf-8"))
rows = sorted([t["tcId"], [r["hex"] for r in t["inputs"]["rewards"]],
               t["inputs"].get("group_size")]
              for grp in g["testGroups"] for t in grp["tests"])
got = hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode()).hexdigest()
want = open(sys.argv[2]).read().split()[0]
if got != want:
    sys.exit("the inputs of %s changed since the candidates were recorded "
             "(sha256 %s, recorded %s): record them again (real/README.md)"
             % (sys.argv[1], got, want))
EOF
then
  verdict "golden inputs as recorded" ok
else
  verdict "golden inputs as recorded" no
fi

FOLLOWS='^Candidate follows: (.*, )?'   # the list of variants matched in full
# the convention, apart from failures on cases flagged NUMERICAL (overflow,
# cancellation, binary32 steps) that the library's own code does not survive
CONV='^Candidate follows the convention '
NUMFAIL='but fails [0-9]+ numerically demanding case' 
ANY_MATCH='!^Candidate follows: '
f32diag () {                              # the float32 diagnosis of variant $1
  echo "^Candidate follows $1 at float32 accuracy \([0-9.]+ digits\); declared float64: a float32 step is likely"
}

# --- TRL (1.10 development line), scale_rewards="group" ---------------------
# float32 rewards, TRL's default: every step in binary32.
nearest trl-1.10-group-float32 float32 trl-float32
expect trl-1.10-group-float32 float32 0 "${FOLLOWS}trl-float32(,|\$)"
# float64 rewards: nanstd's Bessel factor count/(count - 1) is float32, so
# the exact trl convention holds to about 8 digits only.
nearest trl-1.10-group-float64 float64 trl
expect trl-1.10-group-float64 float64 1 "$(f32diag trl)" "$ANY_MATCH"

# --- TRL, scale_rewards="batch" ---------------------------------------------
# float32: every step in binary32 (no binary32 form of batch-std: TRL's own
# float32 mean and std fail the cancelling, subnormal and overflowing cases)
nearest trl-1.10-batch-float32 float32 'batch-std'
expect trl-1.10-batch-float32 float32 1 "${CONV}batch-std, $NUMFAIL"
nearest trl-1.10-batch-float64 float64 batch-std
expect trl-1.10-batch-float64 float64 1 "$(f32diag batch-std)" "$ANY_MATCH"

# --- verl main, compute_grpo_outcome_advantage -------------------------------
# the squared deviations of [1e154, -1e154] overflow, and the sum of
# [-1.7e308, -1.94, 1.7e308] loses -1.94 (RangeScaling, ExactSum)
nearest verl-b178a3c-grpo-float64 float64 verl
expect verl-b178a3c-grpo-float64 float64 1 "${CONV}verl, $NUMFAIL"
nearest verl-b178a3c-grpo-float32 float32 verl
expect verl-b178a3c-grpo-float32 float32 1 "${CONV}verl, $NUMFAIL"

# --- verl's grpo_vectorized (September 2025) ---------------------------------
nearest verl-4ff3ce2-grpo_vectorized-float32 float32 verl-vectorized-old
expect verl-4ff3ce2-grpo_vectorized-float32 float32 0 \
  "${FOLLOWS}verl-vectorized-old(,|\$)"
# float64 scores: group_mean_std computes the group statistics in float32
# and r - mean in float64; equal rewards [0.1, 0.1, 0.1] give -1.49e-6.  No
# variant computes that mixture, at either accuracy.
expect verl-4ff3ce2-grpo_vectorized-float64 float64 1 \
  '^Candidate matches no variant' "$ANY_MATCH" '!at float32 accuracy'

# --- OpenRLHF 0.11, group_norm -----------------------------------------------
nearest openrlhf-0.11-group_norm-float64 float64 openrlhf
expect openrlhf-0.11-group_norm-float64 float64 1 "${CONV}openrlhf, $NUMFAIL"
nearest openrlhf-0.11-group_norm-float32 float32 openrlhf
expect openrlhf-0.11-group_norm-float32 float32 1 "${CONV}openrlhf, $NUMFAIL"

# --- every recorded file has an expectation ----------------------------------
: >"$OUT"
: >"$ERR"
for f in "$DIR"/*.json; do
  [ -e "$f" ] || continue
  b=$(basename "$f")
  if ! grep -qxF "$b" "$TMP/seen"; then
    echo "  ($b has no expectation in test_real.sh)" >>"$ERR"
  fi
done
if [ -s "$ERR" ]; then
  verdict "every recording tested" no
else
  verdict "every recording tested" ok
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
