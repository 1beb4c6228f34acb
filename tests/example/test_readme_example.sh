#!/bin/sh
# test_readme_example.sh -- runs the validation example of README.md as
# printed, and checks that rlref check names the convention it follows.
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/<!-- example: validate -->/ { on = 1; next }
     on && /^```python/ { code = 1; next }
     code && /^```/ { exit }
     code { print }' "$top/README.md" > "$tmp/example.py"
ln -s "$top/golden" "$tmp/golden"
ln -s "$top/build" "$tmp/build"
cd "$tmp" && /usr/bin/python3 example.py > out.txt 2>&1
status=$?
cat out.txt
pass=0
fail=0
[ -s example.py ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no example in README"; }
[ "$status" -eq 0 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: example exited $status"; }
grep -i "follows.*openrlhf" out.txt >/dev/null && pass=$((pass + 1)) \
  || { fail=$((fail + 1)); echo "FAIL: the example was not recognised as openrlhf"; }
echo "readme example: $pass of 3 checks"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
