#!/bin/sh
# run_suites.sh JOBS LOGDIR SUITE... -- runs the unit suites JOBS at a time,
# each into LOGDIR/NAME.log, then prints every log in the order given and
# ends with "unit suites: N passed, M failed"; fails when one failed or
# none ran.
set -u
jobs=$1
logs=$2
shift 2
rm -rf "$logs" && mkdir -p "$logs" || exit 1
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
  'n=$(basename "$1"); "$1" > "$2/$n.log" 2>&1; echo $? > "$2/$n.rc"' sh {} "$logs"
p=0
f=0
for t in "$@"; do
  n=$(basename "$t")
  echo "== $t"
  cat "$logs/$n.log"
  if [ "$(cat "$logs/$n.rc" 2>/dev/null)" = 0 ]; then p=$((p + 1)); else f=$((f + 1)); fi
done
echo "unit suites: $p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
