#!/bin/sh
# test_strict.sh RLREF -- strict input everywhere: one option parser for
# every subcommand (whole numbers whole, reals in range, words from a list),
# numbers that overflow or underflow binary64 refused with the reason,
# model files that refuse what they do not read (unknown keys, a prefix
# spelt two ways, a key given twice; a byte-order mark read as in rlref
# check), messages that name the file and the reason, and golden files
# written whole (a failed write leaves the old file).
RLREF=${1:?usage: test_strict.sh path/to/rlref}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/testlib.sh"

# refused CODE PATTERN DESCRIPTION -- ARGS: exit CODE, PATTERN (grep -E) on
# stderr, nothing run (no "# step" line of train on stdout)
refused () {
  code=$1; pat=$2; what=$3; shift 4
  "$RLREF" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq "$code" ] && grep -Eq -- "$pat" "$tmp/err" && ! grep -q '^# step' "$tmp/out"; then
    ok
  else
    bad "$what: exit $got (expected $code), stderr: $(head -c 300 "$tmp/err")"
  fi
}

TAB3=$root/oracles/models/tab3.json
MDP=$root/plots/mdp/mdp_three.json

# --- options: whole numbers, reals, words -----------------------------------
for s in x 1e3 5abc -1 ''; do
  refused 2 "^rlref train: --steps '$s' is not a whole number from 0 to 10000000$" \
    "train --steps '$s'" -- train "$TAB3" --objective dpo --steps "$s"
done
refused 2 "^rlref train: --sampled 'x' is not a whole number from 2 to" "train --sampled x" \
  -- train "$TAB3" --objective rlhf --sampled x
refused 2 "^rlref train: --seed 'x' is not a whole number from 0 to 4294967295$" \
  "train --seed x" -- train "$TAB3" --objective rlhf --sampled 4 --seed x
refused 2 "^rlref train: --seed '-1' is not a whole number" "train --seed -1" \
  -- train "$TAB3" --objective rlhf --sampled 4 --seed -1
refused 2 "^rlref train: --seed '18446744073709551617' is not a whole number" \
  "train --seed 2^64 + 1" -- train "$TAB3" --objective rlhf --sampled 4 --seed 18446744073709551617
refused 2 "^rlref train: --lr '1e100' is not a number > 0 and <= " "train --lr 1e100" \
  -- train "$TAB3" --objective dpo --lr 1e100
refused 2 "^rlref train: --lr '1e999' overflows binary64" "train --lr 1e999" \
  -- train "$TAB3" --objective dpo --lr 1e999
refused 2 "^rlref train: --objective 'nope' is not one of: dpo, ipo, rlhf, reward, kl, kl-reverse$" \
  "train --objective nope" -- train "$TAB3" --objective nope
refused 2 "^rlref mdp: --vi '5abc' is not a whole number from 0 to 10000000$" "mdp --vi 5abc" \
  -- mdp "$MDP" --vi 5abc
refused 2 "^rlref mdp: --behaviour 'nope' is not one of: include, exclude, uniform$" \
  "mdp --behaviour nope" -- mdp "$MDP" --qlearn 5 --behaviour nope
refused 2 "^rlref table: --sweep N '5abc' is not a whole number from 2 to 10000$" \
  "table N 5abc" -- table PREF-BT --sweep rw=-6:6:5abc rl=0
refused 2 "^rlref lm: --beta '-1' is not a number > 0" "lm --beta -1" \
  -- lm "$root/oracles/models/w1.json" --beta -1
# the one parser's own refusals, the same words in every subcommand
for c in "eval PREF-BT rw=1 rl=0" "table PREF-BT rl=0 --sweep rw=0:1:2" "lm $TAB3" "mdp $MDP" \
         "train $TAB3 --objective dpo" "candidate $root/golden/PREF-BT.json --variant bt" \
         "check $root/golden/PREF-BT.json $root/golden/PREF-BT.json"; do
  set -- $c
  refused 2 "^rlref $1: unknown option '--frobnicate'$" "$1 --frobnicate" -- "$@" --frobnicate
  refused 2 "^rlref $1: unknown option '-x'$" "$1 -x" -- "$@" -x
done
for c in "lm $TAB3" "mdp $MDP" "train $TAB3 --objective dpo" \
         "candidate $root/golden/PREF-BT.json --variant bt"; do
  set -- $c
  refused 2 "^rlref $1: unexpected argument 'second.json'$" "$1 second.json" -- "$@" second.json
done
refused 2 "^rlref check: expected GOLDEN and CANDIDATE, got 1 file name" "check -- -x" \
  -- check -- -x
refused 2 "^rlref check: option --junit needs a value$" "check --junit" \
  -- check "$root/golden/PREF-BT.json" "$root/golden/PREF-BT.json" --junit
refused 2 "^rlref eval: option --prec needs a value$" "eval --prec" -- eval PREF-BT rw=1 rl=0 --prec
refused 2 "^rlref mdp: option --vi needs a value$" "mdp --vi" -- mdp "$MDP" --vi
refused 2 "^rlref lm: option --dp takes no value$" "lm --dp=1" -- lm "$TAB3" --dp=1
refused 2 "^rlref train: option --pair needs two values$" "train --pair Y" \
  -- train "$TAB3" --objective dpo --pair 0,1

# --- model files: a NaN or an infinity is refused as the file is read -------
printf '{"states": 1, "actions": 1, "P": [[[1]]], "R": [[["inf"]]], "gamma": 0.5}' \
  > "$tmp/mdp_inf.json"
refused 1 '"R" holds a NaN or an infinity$' "mdp R(s,a,s') = inf" -- mdp "$tmp/mdp_inf.json"
printf '{"states": 1, "actions": 1, "P": [[["nan"]]], "R": [[0]], "gamma": 0.5}' \
  > "$tmp/mdp_nan.json"
refused 1 '"P" holds a NaN or an infinity$' "mdp P = nan" -- mdp "$tmp/mdp_nan.json"

# --- the swept points: the double nearest each, in its shortest form -------
"$RLREF" table PREF-BT --sweep rw=-6:6:241 rl=0 > "$tmp/out" 2>"$tmp/err"
if [ "$(sed -n 3p "$tmp/out" | cut -d' ' -f1)" = "-5.95" ] \
   && [ "$(sed -n 242p "$tmp/out" | cut -d' ' -f1)" = "6" ]; then ok
else bad "table -6:6:241: the second point is '$(sed -n 3p "$tmp/out" | cut -d' ' -f1)', not -5.95"; fi

# --- numbers beyond binary64 ------------------------------------------------
refused 2 "input 'rw': '1e-400' underflows binary64" "eval rw=1e-400" -- eval PREF-BT rw=1e-400 rl=0
refused 2 "input 'rw': '0x1p-1080' underflows binary64" "eval rw=0x1p-1080" \
  -- eval PREF-BT rw=0x1p-1080 rl=0
refused 2 "input 'rw': '1e999' overflows binary64" "eval rw=1e999" -- eval PREF-BT rw=1e999 rl=0
refused 2 "parameter 'beta': '1e999' overflows binary64" "eval beta=1e999" \
  -- eval DPO-LOSS logp_w=-1 logp_l=-2 ref_w=-1 ref_l=-1 n_w=1 n_l=1 beta=1e999
for s in 4.9e-324 -0.0 0x0p+0 1e-310 0e-999; do
  if "$RLREF" eval PREF-BT rw="$s" rl=0 > /dev/null 2>"$tmp/err"; then ok
  else bad "eval rw=$s refused: $(cat "$tmp/err")"; fi
done

# --- model files: what they do not read is refused, naming it ----------------
printf '{"vocab": 3, "eos": 2, "max_len": 2, "truncted": "condition", "tabular": {"default": [0, 0, 0]}, "beta": 1}\n' \
  > "$tmp/typo.json"
refused 1 'unknown key: "truncted" in the model' "lm: a misspelt key" -- lm "$tmp/typo.json"
printf '{"vocab": 3, "eos": 2, "max_len": 2, "bigram": {"logits": [[0,0,0],[0,0,0],[0,0,0],[0,0,0]], "temperature": 1}, "beta": 1}\n' \
  > "$tmp/typo2.json"
refused 1 'unknown key: "temperature" in "bigram"' "lm: a key the bigram does not read" -- lm "$tmp/typo2.json"
for key in '0  1' ' 0 1' '+0 1' '01' '0 1 '; do
  printf '{"vocab": 3, "eos": 2, "max_len": 3, "tabular": {"default": [0, 0, 0], "prefixes": {"%s": [1, 0, 0]}}, "beta": 1}\n' \
    "$key" > "$tmp/pre.json"
  refused 1 "not a prefix of tokens .* with one space between them" "lm: the prefix '$key'" \
    -- lm "$tmp/pre.json"
done
printf '{"vocab": 3, "eos": 2, "max_len": 3, "tabular": {"default": [0, 0, 0], "prefixes": {"0 1": [1, 0, 0], "0 1": [2, 0, 0]}}, "beta": 1}\n' \
  > "$tmp/dup.json"
refused 1 "duplicate object key" "lm: a prefix given twice" -- lm "$tmp/dup.json"
printf '\357\273\277{"vocab": 3, "eos": 2, "max_len": 3, "tabular": {"default": [0, 0, 0], "prefixes": {"0 1": [1, 0, 0]}}, "beta": 1}\n' \
  > "$tmp/bom.json"
if "$RLREF" lm "$tmp/bom.json" > /dev/null 2>"$tmp/err"; then ok
else bad "lm: a byte-order mark refused: $(cat "$tmp/err")"; fi
sed 's/"gamma"/"gama"/' "$MDP" > "$tmp/mdp_typo.json"
refused 1 'unknown key "gama"' "mdp: a misspelt key" -- mdp "$tmp/mdp_typo.json"
{ printf '\357\273\277'; cat "$MDP"; } > "$tmp/mdp_bom.json"
if "$RLREF" mdp "$tmp/mdp_bom.json" > /dev/null 2>"$tmp/err"; then ok
else bad "mdp: a byte-order mark refused: $(cat "$tmp/err")"; fi

# --- the README's limits hold as stated ------------------------------------------
if "$RLREF" eval PREF-BT-GUMBEL --prec 1984 rw=1 rl=0 > /dev/null 2>"$tmp/err"; then ok
else bad "PREF-BT-GUMBEL at --prec 1984: $(cat "$tmp/err")"; fi
refused 1 "evaluated up to 2048 bits \(--prec at most 1984" "PREF-BT-GUMBEL at --prec 1985" \
  -- eval PREF-BT-GUMBEL --prec 1985 rw=1 rl=0
grep -q "PREF-BT-GUMBEL is evaluated up to 2048 bits (\`--prec\` at most" "$root/README.md" \
  && ok || bad "README: the PREF-BT-GUMBEL limit"

# --- rlref mdp within its stated limits -------------------------------------------
# 300 states: the value-iteration counts skipped, with why (policy iteration
# gives V*); gamma = 1 - 2^-53 likewise; --vi beyond 1e8 multiply-adds refused
/usr/bin/python3 - "$tmp/mdp300.json" <<'PY'
import json, random, sys
random.seed(2)
S, A = 300, 2
P = [[[w / t for w in ws] for ws, t in ((ws, sum(ws)) for ws in
      ([random.random() for _ in range(S)] for _ in range(A)))] for _ in range(S)]
json.dump({"states": S, "actions": A, "gamma": 0.9, "P": P,
           "R": [[random.uniform(-1, 1) for _ in range(A)] for _ in range(S)],
           "policy": [[0.5, 0.5]] * S, "start": 0}, open(sys.argv[1], "w"))
PY
sed 's/"gamma": 0.8/"gamma": "0x1.fffffffffffffp-1"/' "$MDP" > "$tmp/mdp_g1.json"
for m in "$tmp/mdp300.json" "$tmp/mdp_g1.json"; do
  if "$RLREF" mdp "$m" > "$tmp/out" 2>"$tmp/err" \
     && grep -q '"mpfr": null' "$tmp/out" && grep -q '"skipped": "value iteration to its fixed point would take' "$tmp/out"; then ok
  else bad "mdp $(basename "$m"): the value-iteration count not skipped: $(head -c 300 "$tmp/err")"; fi
done
refused 2 "--vi 1000 on 300 states and 2 actions is over the limit of 1e8 multiply-adds" \
  "mdp --vi over the limit" -- mdp "$tmp/mdp300.json" --vi 1000
"$RLREF" mdp "$MDP" > "$tmp/out" && grep -q '"mpfr": [0-9]' "$tmp/out" && ok \
  || bad "mdp_three.json: its value-iteration sweeps are counted"

r4097=$(/usr/bin/python3 -c "print(','.join(['0.5'] * 4097))")
refused 1 "the sum form of the return takes T\^2 terms: at most 4096 rewards" \
  "MDP-RETURN sum, 4097 rewards" -- eval MDP-RETURN --variant sum rewards="$r4097" gamma=0.99
"$RLREF" eval MDP-RETURN --variant recursion rewards="$r4097" gamma=0.99 > /dev/null && ok \
  || bad "MDP-RETURN recursion, 4097 rewards"

# --- the README's MDP model runs as printed ------------------------------------
/usr/bin/python3 - "$root/README.md" "$tmp/readme_mdp.json" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<!-- example: mdp -->\n```json\n(.*?)```", text, re.S)
open(sys.argv[2], "w").write(m.group(1) if m else "")
PY
if "$RLREF" mdp "$tmp/readme_mdp.json" > /dev/null 2>"$tmp/err"; then ok
else bad "the README's MDP model: $(cat "$tmp/err")"; fi

# --- messages: the file and the reason --------------------------------------
printf '{"vocab": 2, "eos": 1, "max_len": 2, "bigram": {"logits": [[0, 0], [0, 0], [0, 0]]}, "reward": {"table": [{"y": [0, 1], "r": 1e308}, {"y": [1], "r": 1e308}], "default": 1e308}, "beta": 0.5}\n' \
  > "$tmp/huge.json"
refused 1 "^rlref lm: .*huge\.json: ERANGE: .+" "lm: ERANGE with its reason" -- lm "$tmp/huge.json"
refused 2 "^rlref lm: cannot write $tmp/no/such\.tsv: No such file or directory$" \
  "lm --table: the reason" -- lm "$root/oracles/models/w1.json" --table="$tmp/no/such.tsv"
printf '{"states": 2, "actions": 1, "gamma": 0.9, "P": [[[1, 0]], [[0, 1]]], "R": [[1], [2]], "policy": [[1], [1]]}\n' \
  > "$tmp/one_action.json"
refused 1 "^rlref mdp: .*one_action\.json: EDOM: " "mdp --qlearn: the file named" \
  -- mdp "$tmp/one_action.json" --qlearn 10 --behaviour exclude

# --- a zero as the goldens write it ---------------------------------------------
# the gradient's third element cancels exactly: "0" with 0 digits, not the
# noise left at 4096 bits
"$RLREF" eval KL-GRAD --variant k3 logits=4,-4,0 ref_logits=-4,4,0 > "$tmp/out" 2>"$tmp/err"
z=$(/usr/bin/python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['outputs']['grad'][2]; print(e['value'], e['digits'])" "$tmp/out")
[ "$z" = "0 0" ] && ok || bad "eval KL-GRAD k3 grad[2] is '$z', not '0 0'"

# --- golden files written whole ----------------------------------------------
mkdir "$tmp/g"
"$RLREF" golden "$tmp/g" PREF-BT GRPO-ADV && cp "$tmp/g/GRPO-ADV.json" "$tmp/old.json"
( ulimit -f 100; trap '' XFSZ; exec "$RLREF" golden "$tmp/g" PREF-BT GRPO-ADV ) \
  > /dev/null 2>"$tmp/err"
st=$?
if [ "$st" -eq 2 ] && grep -q "cannot write .*GRPO-ADV.json.tmp: File too large" "$tmp/err" \
   && cmp -s "$tmp/old.json" "$tmp/g/GRPO-ADV.json" && [ ! -e "$tmp/g/GRPO-ADV.json.tmp" ]; then ok
else bad "golden on a full file system: exit $st, $(cat "$tmp/err"); the old file $(cmp -s "$tmp/old.json" "$tmp/g/GRPO-ADV.json" && echo kept || echo changed)"; fi

finish strict
