#!/bin/sh
# Plants faults in a temporary copy of the source tree and shows that the
# build, the registry, the golden writer and the generic test catch them.
# Each planted family is added as files only (oracles/families/NAME/NAME.c and
# NAME_eval.c): adding a family edits no shared list.
# Usage: test_faults.sh SRCDIR
set -u
src=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok () { echo "ok   $1"; passed=$((passed + 1)); }
bad () { echo "FAIL $1"; failed=$((failed + 1)); }

# expect NAME PATTERN CMD...: CMD must fail and print PATTERN.
expect () {
  name=$1 pattern=$2
  shift 2
  if "$@" > "$tmp/out" 2>&1; then
    bad "$name: the command succeeded"
  elif grep -q -- "$pattern" "$tmp/out"; then
    ok "$name"
  else
    bad "$name: no '$pattern' in its output"; sed 's/^/     /' "$tmp/out" | tail -5
  fi
}

mkdir "$tmp/tree"
(cd "$src" && tar --exclude=./build -cf - .) | (cd "$tmp/tree" && tar -xf -)
tree=$tmp/tree
mk () { make -s -C "$tree" OPT=-O0 "$@" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }; }

# 1. a registry past its limits, and a formula id defined twice
mkdir "$tree/oracles/families/plant_limits"
cp "$src/tests/faults/plant_limits.c" "$src/tests/faults/plant_limits_eval.c" "$tree/oracles/families/plant_limits/"
mk build/bin/rlref
expect "registry: more inputs than RL_MAX_IN" "PLANT-MANY \[many\]: more inputs than RL_MAX_IN" \
  "$tree/build/bin/rlref" list
expect "registry: a formula id defined twice" "PREF-BT: formula id defined twice" \
  "$tree/build/bin/rlref" list
expect "registry: the command refuses to run" "registry is defective" \
  "$tree/build/bin/rlref" eval PREF-BT rw=1 rl=0
rm -r "$tree/oracles/families/plant_limits"

# 2. a valid case turned invalid, and an aliasing bug
mkdir "$tree/oracles/families/plant_cases"
cp "$src/tests/faults/plant_cases.c" "$src/tests/faults/plant_cases_eval.c" "$tree/oracles/families/plant_cases/"
mk build/bin/rlref build/bin/tgeneric
mkdir "$tmp/golden"
expect "golden: a case declared valid that is rejected" "PLANT-DIV \[plain\] 'p=1 q=0': declared valid, but EDOM" \
  "$tree/build/bin/rlref" golden "$tmp/golden" PLANT-DIV
expect "generic test: an output that breaks when aliased to its input" \
  "PLANT-ALIAS \[plain\] 'x=1,2,3': output twice over input slot 0 changes" \
  "$tree/build/bin/tgeneric" PLANT-
if "$tree/build/bin/rlref" list | grep -q "PLANT-ALIAS"; then
  ok "a family added as files only is listed"
else
  bad "a family added as files only is listed"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
