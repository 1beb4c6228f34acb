#!/bin/sh
# test_check_diag.sh RLREF -- what rlref check says about real library
# output: a float32 step inside a float64 candidate, output names the golden
# does not have, a byte-order mark, and a golden whose sens is not a finite
# number >= 0.
RLREF=${1:?usage: test_check_diag.sh path/to/rlref}
PY=/usr/bin/python3
root=$(cd "$(dirname "$0")/../.." && pwd)
G=$root/golden/GRPO-ADV.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok () { pass=$((pass + 1)); }
bad () { fail=$((fail + 1)); echo "FAIL: $*"; }

"$RLREF" candidate "$G" --variant trl > "$tmp/trl.json" || bad "candidate trl"

# trl's binary64 outputs with a relative error of 3e-8 (a float32 step):
# fails at float64, follows trl at float32; exit 1 stays
$PY - "$tmp/trl.json" "$tmp/trl_f32step.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for k, v in r.get("outputs", {}).items():
        vals = v if isinstance(v, list) else [v]
        vals = [float.fromhex(x) * (1 + 3e-8) for x in vals]
        r["outputs"][k] = vals if isinstance(v, list) else vals[0]
json.dump(d, open(sys.argv[2], "w"))
PY
"$RLREF" check "$G" "$tmp/trl_f32step.json" > "$tmp/out" 2>&1
[ $? -eq 1 ] && ok || bad "a float32 step declared float64 must fail"
grep -q "Candidate follows trl at float32 accuracy (7\.[0-9] digits); declared float64: a float32 step is likely" "$tmp/out" \
  && ok || bad "no float32 diagnosis: $(tail -4 "$tmp/out")"
"$RLREF" check "$G" "$tmp/trl_f32step.json" --dtype float32 > "$tmp/out" 2>&1
[ $? -eq 0 ] && ok || bad "declared float32, the same candidate passes"
"$RLREF" check "$G" "$tmp/trl.json" > "$tmp/out" 2>&1
grep -q "^Candidate follows [^:]* accuracy" "$tmp/out" && bad "a matching candidate got a diagnosis" || ok

# an output the golden does not have: a warning, once
$PY - "$tmp/trl.json" "$tmp/extra.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if "outputs" in r:
        r["outputs"]["advantage"] = r["outputs"]["adv"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$RLREF" check "$G" "$tmp/extra.json" --variant trl > "$tmp/out" 2> "$tmp/err"
[ "$(grep -c 'output "advantage"' "$tmp/err")" = "1" ] && ok || bad "unknown output warning: $(cat "$tmp/err")"

# a UTF-8 byte-order mark is accepted
printf '\357\273\277' > "$tmp/bom.json"
cat "$tmp/trl.json" >> "$tmp/bom.json"
"$RLREF" check "$G" "$tmp/bom.json" --variant trl > "$tmp/out" 2>&1 && ok || bad "BOM: $(tail -2 "$tmp/out")"

# a golden whose sens is inf, negative or not a number is malformed (exit 2)
for s in '"inf"' '"-1"' '"nan"' '"x"'; do
  $PY - "$G" "$tmp/badsens.json" "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["testGroups"]:
    for t in g["tests"]:
        if "outputs" in t:
            t["outputs"]["adv"][0]["sens"] = json.loads(sys.argv[3])
            break
    break
json.dump(d, open(sys.argv[2], "w"))
PY
  "$RLREF" check "$tmp/badsens.json" "$tmp/trl.json" > "$tmp/out" 2> "$tmp/err"
  [ $? -eq 2 ] && grep -q '"sens" must be a finite decimal >= 0' "$tmp/err" && ok \
    || bad "sens $s accepted: $(cat "$tmp/err")"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
