# testlib.sh -- sourced by the command-line tests: the pass and fail
# counters, a scratch directory removed at exit, and the closing line.
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok () { pass=$((pass + 1)); }
bad () { fail=$((fail + 1)); echo "FAIL: $*"; }

# finish NAME: prints "NAME: P passed, F failed"; fails when a check failed
# or none ran.
finish () {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}
