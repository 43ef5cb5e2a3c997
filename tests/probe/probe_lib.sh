# Shared by the probe scripts (sourced, not run): a work directory removed on
# exit with the children and mounts a probe registered, the `check` line
# printer and its failure count, and the store and partial-file checks.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/probe_lib.sh"
#   check "what is checked" [ "$code" -eq 2 ]     # prints ok/FAIL, counts failures
work=$(mktemp -d)
chmod 0755 "$work"
children=()
mounts=()
probe_cleanup() {
  local p m
  for p in "${children[@]}"; do kill -9 "$p" 2>/dev/null; done
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap probe_cleanup EXIT

failures=0
check() {  # check WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then
    echo "ok    $what"
  else
    echo "FAIL  $what"
    failures=$((failures + 1))
  fi
}
sql() { sqlite3 -bail "$1" "$2"; }
integrity_ok() { [[ $(sqlite3 -bail "$1" 'PRAGMA integrity_check' 2>/dev/null) == ok ]]; }
# Files a writer leaves beside its target while it writes (or after kill -9).
partials_in() { find "$@" \( -name '*.partial-*' -o -name '*.tmp' \) 2>/dev/null | wc -l; }
