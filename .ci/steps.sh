# Sourced by .ci/run: steps that run in the background, each logging to $LOGS/NAME.log
# (beside the venvs; git ignores both), and stopped with the script.
rm -rf "$LOGS"
mkdir -p "$LOGS"
# Each step gets a process group of its own (job control), so that when the script exits
# early (a failed step) the others stop with everything they started: killing only a
# step's shell left, say, the 3.11 pytest and its workers running on.
set -m
background=()
trap 'for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || true; done' EXIT
# With job control a background step would share the script's input: it reads none.
start() {  # $1 = name; the rest runs in the background, its output to $LOGS/NAME.log
  local name=$1
  shift
  "$@" </dev/null >"$LOGS/$name.log" 2>&1 &
  background+=($!)
}
finish() {  # $1 = name, $2 = its pid: wait, print its log; its exit code
  local rc=0
  wait "$2" || rc=$?
  cat "$LOGS/$1.log"
  if [ "$rc" != 0 ]; then echo "$1 failed (exit $rc)" >&2; fi
  return "$rc"
}
