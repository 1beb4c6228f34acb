#!/bin/sh
# run.sh RLREF GOLDEN_DIR -- holds rlref's own binary64 implementations to
# the certified values: for every golden file and every variant in it,
# `rlref candidate` runs the binary64 code on the golden's inputs and
# `rlref check --variant` must pass it within the golden's tolerance.
RLREF=${1:?usage: run.sh path/to/rlref golden-dir}
DIR=${2:-golden}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for f in "$DIR"/[A-Z]*.json; do
  for v in $(/usr/bin/python3 -c "import json,sys; print(' '.join(g['variant'] for g in json.load(open(sys.argv[1]))['testGroups']))" "$f"); do
    if "$RLREF" candidate "$f" --variant "$v" > "$tmp/c.json" \
       && "$RLREF" check "$f" "$tmp/c.json" --variant "$v" > "$tmp/out" 2>&1; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL: binary64 $(basename "$f" .json) [$v]:"
      grep -E "FAIL|failed" "$tmp/out"
    fi
  done
done
echo "binary64 implementations vs goldens:"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
