#!/bin/sh
# test_cli.sh RLREF -- the rlref command end to end: values, exit codes and
# messages for bad input (never a crash: a signal gives an exit status > 128).
# Expected numbers come from closed forms: sigma(1.5), log 4, and the
# CONVENTIONS.md detector values.
RLREF=${1:?usage: test_cli.sh path/to/rlref}
PY=/usr/bin/python3
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/testlib.sh"

# expect_exit CODE DESCRIPTION -- ARGS...: exit status and no crash
expect_exit () {
  code=$1; what=$2; shift 3
  "$RLREF" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq "$code" ]; then ok; else bad "$what: exit $got, expected $code ($(head -c 200 "$tmp/err"))"; fi
  if [ "$code" -ne 0 ] && [ ! -s "$tmp/err" ]; then bad "$what: no message on stderr"; fi
}

# json_field EXPR: evaluates a Python expression on the JSON in $tmp/out (as d)
json_field () { $PY -c "import json,sys; d=json.load(open('$tmp/out')); print($1)"; }

# --- values ---------------------------------------------------------------
expect_exit 0 "eval PREF-BT" -- eval PREF-BT rw=1.5 rl=0
v=$(json_field 'd["outputs"]["p"]["value"]')
case "$v" in 0.81757447619364365960721717865*) ok ;; *) bad "sigma(1.5) = $v";; esac
n=$(json_field 'd["outputs"]["p"]["digits"]')
[ "$n" -ge 30 ] && ok || bad "sigma(1.5) has $n digits"
dbl=$(json_field 'd["outputs"]["p"]["double"]')
[ "$dbl" = "0.8175744761936437" ] && ok || bad "double sigma(1.5) = $dbl"

expect_exit 0 "eval PREF-BT-EX mle" -- eval PREF-BT-EX --variant mle-pair wins_w=8 wins_l=2
v=$(json_field 'd["outputs"]["delta"]["value"]')
case "$v" in 1.38629436111989061883446424291635313615100026872051*) ok ;; *) bad "log 4 fit = $v";; esac

expect_exit 0 "eval hex input" -- eval PREF-BT rw=0x1.8p+0 rl=0x0p+0
v=$(json_field 'd["outputs"]["p"]["value"]')
case "$v" in 0.81757447619364365960721717865*) ok ;; *) bad "hex input: $v";; esac

expect_exit 0 "eval --prec 512" -- eval PREF-BT --prec 512 rw=1.5 rl=0
n=$(json_field 'd["outputs"]["p"]["digits"]')
[ "$n" -ge 150 ] && ok || bad "512 bits gave only $n digits"

for spec in "trl 0.29289321881345" "verl 0.69724623" "openrlhf 0.70709678" "seed-001 0.99980003"; do
  set -- $spec
  expect_exit 0 "GRPO-ADV $1" -- eval GRPO-ADV --variant "$1" rewards=0,1e-4 group_size=2
  v=$(json_field 'd["outputs"]["adv"][1]["value"]')
  case "$v" in "$2"*) ok ;; *) bad "GRPO-ADV $1 on [0,1e-4]: $v, expected $2...";; esac
done
expect_exit 0 "GRPO-ADV trl detector" -- eval GRPO-ADV --variant trl rewards=1,0,0,0 group_size=4
v=$(json_field 'd["outputs"]["adv"][0]["value"]')
case "$v" in 1.4997000*) ok ;; *) bad "trl [1,0,0,0]: $v";; esac

expect_exit 0 "list" -- list
grep -q "GRPO-ADV" "$tmp/out" && grep -q "PREF-BT-MLE" "$tmp/out" && ok || bad "list lacks ids"
expect_exit 0 "list --json" -- list --json
n=$(json_field 'len(d)')
[ "$n" -ge 11 ] && ok || bad "list --json has $n formulas"

expect_exit 0 "table" -- table PREF-BT --sweep rw=-2:2:5 rl=0
[ "$(grep -vc '^#' "$tmp/out")" -eq 5 ] && ok || bad "table rows"

for sub in list eval check golden table; do
  expect_exit 0 "$sub --help" -- "$sub" --help
  grep -q "usage" "$tmp/out" && ok || bad "$sub --help prints no usage"
done
expect_exit 0 "--help" -- --help

# --- bad input: clear error, non-zero exit, no crash ------------------------
expect_exit 2 "no command" --
expect_exit 2 "unknown command" -- frobnicate
expect_exit 2 "unknown formula" -- eval NOPE-X a=1
expect_exit 2 "unknown variant" -- eval GRPO-ADV --variant nope rewards=1,0 group_size=2
grep -q "trl" "$tmp/err" && ok || bad "unknown variant message does not list variants"
expect_exit 2 "missing input" -- eval PREF-BT rw=1
grep -q "rl" "$tmp/err" && ok || bad "missing input not named"
expect_exit 2 "unknown input" -- eval PREF-BT rw=1 rl=0 zz=3
expect_exit 2 "not name=value" -- eval PREF-BT rw=1 rl
expect_exit 2 "malformed number" -- eval PREF-BT rw=1.5x rl=0
expect_exit 2 "array for scalar" -- eval PREF-BT rw=1,2 rl=0
expect_exit 2 "empty list item" -- eval GRPO-ADV rewards=1,,0 group_size=3
expect_exit 2 "bad integer" -- eval GRPO-ADV rewards=1,0 group_size=two
expect_exit 2 "duplicate input" -- eval PREF-BT rw=1 rw=2 rl=0
expect_exit 2 "bad --prec" -- eval PREF-BT --prec lots rw=1 rl=0
expect_exit 2 "bad option" -- eval PREF-BT --frob rw=1 rl=0
expect_exit 1 "NaN score" -- eval PREF-BT rw=nan rl=0
grep -q "ENAN" "$tmp/err" && ok || bad "NaN not reported as ENAN"
expect_exit 1 "inf score" -- eval PREF-BT rw=inf rl=0
expect_exit 1 "empty rewards" -- eval GRPO-ADV rewards= group_size=1
grep -q "EINVAL" "$tmp/err" && ok || bad "empty rewards not EINVAL"
expect_exit 1 "mismatched groups" -- eval GRPO-ADV rewards=1,2,3 group_size=2
expect_exit 1 "group size 0" -- eval GRPO-ADV rewards=1,2 group_size=0
expect_exit 1 "negative group size" -- eval GRPO-ADV rewards=1,2 group_size=-2
expect_exit 1 "openrlhf group of one" -- eval GRPO-ADV --variant openrlhf rewards=1 group_size=1
grep -q "EDOM" "$tmp/err" && ok || bad "group of one not EDOM"
expect_exit 1 "NaN reward verl" -- eval GRPO-ADV --variant verl rewards=1,nan group_size=2
expect_exit 0 "NaN reward trl" -- eval GRPO-ADV --variant trl rewards=1,nan,0 group_size=3
v=$(json_field 'd["outputs"]["adv"][1]["value"]')
[ "$v" = "0" ] && ok || bad "trl NaN reward advantage $v"
expect_exit 1 "mismatched rw/rl" -- eval PREF-RM-LOSS rw=1,2 rl=0
expect_exit 1 "negative count" -- eval PREF-BT-MLE n=2 wins=0,-1,2,0
expect_exit 1 "no finite MLE" -- eval PREF-BT-MLE n=3 wins=0,1,1,0,0,1,0,0,0
expect_exit 1 "n too small" -- eval PREF-BT-MLE n=1 wins=0
expect_exit 1 "bad ranking" -- eval PREF-PL scores=1,2 ranking=0,0
expect_exit 2 "wrong variant inputs" -- eval PREF-PL scores=1,2 ranking=0,1 K=2
expect_exit 1 "eps out of range" -- eval PREF-SMOOTH rw=1 rl=0 eps=2
expect_exit 1 "ddof 1 with one model" -- eval PREF-ENSEMBLE --variant ddof1 scores=0.7
expect_exit 2 "golden to a missing dir" -- golden "$tmp/no/such/dir" PREF-BT
expect_exit 2 "golden unknown id" -- golden "$tmp" NOPE
expect_exit 2 "table without sweep" -- table PREF-BT rl=0
expect_exit 2 "golden to a file" -- golden "$0" PREF-BT

# certification keeps every input bit: 1 - (1 + 2 + 1e-200)/3 is not 0
expect_exit 0 "wide input spread" -- eval GRPO-ADV --variant no-std rewards=1,2,1e-200
v=$(json_field 'd["outputs"]["adv"][0]["value"]')
case "$v" in -3.33333333333333327366754133027586532*e-201) ok ;; *) bad "1 - (3 + 1e-200)/3 = $v";; esac

# --- the command line as a user meets it ----------------------------------
expect_exit 0 "GRPO-ADV without group_size: one group" -- eval GRPO-ADV --variant trl rewards=1,0,0,0
v=$(json_field 'd["outputs"]["adv"][0]["value"]')
case "$v" in 1.4997000599880*) ok ;; *) bad "one group by default: $v";; esac
expect_exit 0 "--prec=BITS" -- eval PREF-BT --prec=64 rw=1.5 rl=0
expect_exit 0 "--variant=V" -- eval GRPO-ADV --variant=verl rewards=1,0 group_size=2
expect_exit 2 "--prec too large" -- eval PREF-BT --prec 99999999999999999999 rw=1 rl=0
grep -q "too large" "$tmp/err" && ok || bad "--prec huge: $(cat "$tmp/err")"
expect_exit 2 "--prec not a number" -- eval PREF-BT --prec 12x rw=1 rl=0
grep -q "not a whole number" "$tmp/err" && ok || bad "--prec 12x: $(cat "$tmp/err")"
expect_exit 2 "integer input too large" -- eval GRPO-ADV rewards=1,2 group_size=99999999999999999999
grep -q "too large" "$tmp/err" && ok || bad "huge group_size: $(cat "$tmp/err")"
"$RLREF" list > "$tmp/list.txt"
grep -q "seed-000 .*(default)" "$tmp/list.txt" && ok || bad "list does not name the default variant"
"$RLREF" eval --help | grep -q "first variant" && ok || bad "eval --help does not say which variant is the default"

# inputs from a JSON file and from standard input; 100000 rewards
$PY -c "import json; print(json.dumps({'rewards': [i % 2 for i in range(100000)]}))" > "$tmp/big.json"
expect_exit 0 "eval --inputs FILE, 1e5 rewards" -- eval GRPO-ADV --variant no-std --inputs "$tmp/big.json"
v=$(json_field 'len(d["outputs"]["adv"])')
[ "$v" = "100000" ] && ok || bad "1e5 rewards gave $v advantages"
echo '{"rw": "0x1.8p+0", "rl": {"dec": "0", "hex": "0x0p+0"}}' > "$tmp/in.json"
"$RLREF" eval PREF-BT --inputs - < "$tmp/in.json" > "$tmp/out" 2>"$tmp/err" && ok || bad "eval --inputs -"
v=$(json_field 'd["outputs"]["p"]["value"]')
case "$v" in 0.81757447619364365960721717865*) ok ;; *) bad "inputs from stdin: $v";; esac
expect_exit 2 "--inputs not an object" -- eval PREF-BT --inputs "$tmp/big.json.missing"

# table: one message per error, no NaN abscissa, exit codes as eval
expect_exit 0 "table over the whole binary64 range" -- table PREF-BT --sweep rw=-1e308:1e308:5 rl=0
grep -qi "nan" "$tmp/out" && bad "table printed a NaN: $(cat "$tmp/out")" || ok
[ "$(grep -vc '^#' "$tmp/out")" = "5" ] && ok || bad "table rows: $(cat "$tmp/out")"
expect_exit 2 "table missing input" -- table PREF-BT --sweep rw=-1:1:3
grep -q "missing input 'rl'" "$tmp/err" && ok || bad "table missing input message: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] && ok || bad "table printed a header before a usage error"
expect_exit 2 "table unknown formula" -- table NOPE --sweep rw=0:1:2
grep -q "unknown formula" "$tmp/err" && ok || bad "table unknown formula: $(cat "$tmp/err")"
expect_exit 2 "table N too large" -- table PREF-BT --sweep rw=0:1:100001 rl=0
grep -q "from 2 to 10000" "$tmp/err" && ok || bad "table N message: $(cat "$tmp/err")"
expect_exit 2 "table sweeps an integer" -- table GRPO-ADV --sweep group_size=1:2:3 rewards=1
grep -q "no real input" "$tmp/err" && ok || bad "table integer sweep: $(cat "$tmp/err")"
expect_exit 0 "table sweeps a one-element array" -- table PREF-RM-LOSS --sweep rw=-1:1:3 rl=0

# golden checks every id before it writes anything
mkdir "$tmp/g2"
expect_exit 2 "golden DIR A NOPE" -- golden "$tmp/g2" PREF-BT NOPE
[ -z "$(ls "$tmp/g2")" ] && ok || bad "golden wrote $(ls "$tmp/g2") before rejecting NOPE"

# the files are the same bytes on one writer process and on three
mkdir "$tmp/j1" "$tmp/j3"
RLREF_JOBS=1 "$RLREF" golden "$tmp/j1" PREF-BT GRPO-ADV KL-K3 DPO-LOSS 2>"$tmp/err" \
  && RLREF_JOBS=3 "$RLREF" golden "$tmp/j3" PREF-BT GRPO-ADV KL-K3 DPO-LOSS 2>>"$tmp/err" \
  && [ "$(ls "$tmp/j3" | wc -l)" -eq 4 ] && diff -r "$tmp/j1" "$tmp/j3" >/dev/null && ok \
  || bad "golden on 1 and 3 processes differ: $(cat "$tmp/err")"
# a directory that cannot be written to: exit 2 from the writer processes too
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
  RLREF_JOBS=2 "$RLREF" golden "$tmp/ro" PREF-BT GRPO-ADV >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] && grep -q "cannot write" "$tmp/err" && ok || bad "golden to a read-only dir"
fi

# candidate - reads standard input
"$RLREF" candidate - --variant stable < "$root/golden/PREF-BT.json" > "$tmp/out" 2>"$tmp/err" \
  && grep -q '"tcId"' "$tmp/out" && ok || bad "candidate - : $(cat "$tmp/err")"

# every write is checked: a full disk is an error, not success
if [ -w /dev/full ]; then
  for args in "list" "list --json" "eval PREF-BT rw=1 rl=0" "table PREF-BT --sweep rw=0:1:3 rl=0" \
              "candidate $root/golden/PREF-BT.json --variant stable" "--help" "eval --help"; do
    # shellcheck disable=SC2086
    "$RLREF" $args > /dev/full 2>"$tmp/err"
    code=$?
    [ "$code" -ne 0 ] && [ "$code" -lt 128 ] && grep -q "writing the output failed" "$tmp/err" && ok \
      || bad "rlref $args > /dev/full: exit $code, $(cat "$tmp/err")"
  done
fi

finish cli
