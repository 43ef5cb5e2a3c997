#!/usr/bin/env bash
# Output targets: every verb that writes a file, pointed at a target it must
# not or cannot write (the store, its write-ahead log, a golden file, a suite
# file, /dev/null, a path of the wrong kind, a full disk, a read-only
# directory). Each attempt must exit 2 with exactly one line on stderr
# starting `spyre-regress: error: `, leave the store and a target that was
# already there byte for byte as they were, and leave no `*.partial-*` file
# behind. Ends with a verb x target matrix.
#
#   tests/probe/output_targets.sh build/spyre-regress
#
# Needs sqlite3 and sha256sum. As root the whole probe runs in a private
# mount namespace (unshare -m): the full disk is a 64 KiB tmpfs filled with
# dd, the read-only directory a tmpfs remounted read-only (root ignores
# permissions). Otherwise the full disk is skipped and the read-only
# directory is a chmod 0555 one.
set -u
bin=${1:?usage: output_targets.sh SPYRE_REGRESS_BINARY}
bin=$(readlink -f "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suites_src=$here/../../suites

if [[ $(id -u) -eq 0 && -z ${OUTPUT_TARGETS_IN_NS:-} ]] && unshare -m true 2>/dev/null; then
  OUTPUT_TARGETS_IN_NS=1 exec unshare -m bash "${BASH_SOURCE[0]}" "$@"
fi
in_ns=${OUTPUT_TARGETS_IN_NS:-}

source "$here/probe_lib.sh"
# A fingerprint of a path: the hash of a file, of every file under a
# directory (names and contents), or "absent".
fingerprint() {
  if [[ -d $1 ]]; then
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) | sha256sum
  elif [[ -f $1 ]]; then
    sha256sum <"$1"
  elif [[ -e $1 ]]; then
    echo "special"
  else
    echo "absent"
  fi
}
one_error_line() {
  [[ $(wc -l <"$1") -eq 1 ]] && grep -q '^spyre-regress: error: ' "$1"
}
# A write-ahead-log path holds no output: absent, empty or a SQLite WAL.
wal_clean() {
  [[ ! -e $1 ]] && return 0
  [[ -f $1 ]] || return 1
  [[ ! -s $1 ]] && return 0
  [[ $(head -c 4 "$1" | od -An -tx1 | tr -d ' \n') == 377f068[23] ]]
}

# The workspace every attempt copies: a store with one quick run, a private
# suites directory and a golden directory generated for the quick cases.
prep=$work/prep
mkdir -p "$prep/suites"
cp "$suites_src"/*.json "$prep/suites/"
"$bin" --db "$prep/store.db" --suites "$prep/suites" --golden "$prep/golden" --quiet \
  golden generate --suite smoke --filter '^smoke/add\.' >"$work/prep-golden.out" 2>&1
check "workspace: golden generate exits 0" [ $? -eq 0 ]
"$bin" --db "$prep/store.db" --suites "$prep/suites" --golden "$prep/golden" --quiet \
  run --suite smoke --filter '^smoke/add\.' --baseline none >"$work/prep-run.out" 2>&1
check "workspace: a quick run exits 0" [ $? -eq 0 ]
check "workspace: the store is intact" integrity_ok "$prep/store.db"
golden_rel=$(cd "$prep/golden" && find . -type f | sort | head -n 1)
check "workspace: a golden file exists ($golden_rel)" [ -n "$golden_rel" ]
if [[ $failures -gt 0 ]]; then
  cat "$work/prep-golden.out" "$work/prep-run.out"
  exit 1
fi

rows=(export-file export-dir report run-report backup merge golden)
cols=(store wal golden suite devnull kind full ro)
declare -A cell
cells_checked=0
cells_failed=0

dir_verb() { [[ $1 == export-dir || $1 == report || $1 == run-report || $1 == golden ]]; }

attempt() {  # attempt ROW COL
  local row=$1 col=$2 c=$work/c/$1-$2
  mkdir -p "$work/c"
  cp -a "$prep" "$c"
  cp "$c/store.db" "$c/src.db"
  echo "a plain file" >"$c/plain.txt"
  mkdir -p "$c/adir" "$c/full" "$c/ro"
  echo "kept" >"$c/adir/keep.txt"
  local db=$c/store.db store_of=$c/store.db
  [[ $row == merge ]] && store_of=$c/src.db

  local t
  case $col in
    store) t=$store_of ;;
    wal) t=$store_of-wal ;;
    golden) t=$c/golden/${golden_rel#./} ;;
    suite) t=$c/suites/smoke.json ;;
    devnull) t=/dev/null ;;
    # The wrong kind of path: a file where a directory is written, a
    # directory where a file is; export's --out takes a directory too (a file
    # per table), so its file row gets a FIFO.
    kind)
      if dir_verb "$row"; then
        t=$c/plain.txt
      elif [[ $row == export-file ]]; then
        mkfifo "$c/fifo.csv"
        t=$c/fifo.csv
      else
        t=$c/adir
      fi
      ;;
    full)
      if [[ -z $in_ns ]]; then
        echo "skip  $row x $col: a full disk needs root (a tmpfs in a private mount namespace)"
        cell[$row,$col]=skip
        rm -rf "$c"
        return
      fi
      mount -t tmpfs -o size=64k tmpfs "$c/full" || { cell[$row,$col]=FAIL; failures=$((failures + 1)); return; }
      mounts+=("$c/full")
      dd if=/dev/zero of="$c/full/filler" bs=4k status=none 2>/dev/null
      if dir_verb "$row"; then t=$c/full; else t=$c/full/out.$([[ $row == export-file ]] && echo csv || echo db); fi
      ;;
    ro)
      if [[ -n $in_ns ]]; then
        mount -t tmpfs -o size=64k tmpfs "$c/ro" || { cell[$row,$col]=FAIL; failures=$((failures + 1)); return; }
        mounts+=("$c/ro")
        mount -o remount,ro "$c/ro"
      elif [[ $(id -u) -eq 0 ]]; then
        # Root writes through any permission: without a mount namespace
        # there is no read-only place to point at.
        echo "skip  $row x $col: as root a read-only directory needs a private mount namespace"
        cell[$row,$col]=skip
        rm -rf "$c"
        return
      else
        chmod 0555 "$c/ro"
      fi
      if dir_verb "$row"; then t=$c/ro; else t=$c/ro/out.$([[ $row == export-file ]] && echo csv || echo db); fi
      ;;
  esac

  local g=(--db "$db" --suites "$c/suites" --golden "$c/golden")
  local cmd
  case $row in
    # --table: without it --out names a directory (every table, docs/store.md).
    export-file) cmd=("$bin" "${g[@]}" export --format csv --table results --out "$t") ;;
    export-dir) cmd=("$bin" "${g[@]}" export --format csv --out "$t/") ;;
    report) cmd=("$bin" "${g[@]}" report --out "$t") ;;
    run-report) cmd=("$bin" "${g[@]}" --quiet run --suite smoke --filter '^smoke/add\.' --baseline none --report "$t") ;;
    backup) cmd=("$bin" "${g[@]}" backup --to "$t") ;;
    merge) cmd=("$bin" "${g[@]}" merge --into "$t" "$c/src.db") ;;
    golden) cmd=("$bin" --db "$db" --suites "$c/suites" golden generate --suite smoke --filter '^smoke/add\.' --golden "$t") ;;
  esac

  local store_before src_before target_before suites_before
  store_before=$(fingerprint "$db")
  src_before=$(fingerprint "$c/src.db")
  target_before=$(fingerprint "$t")
  suites_before=$(fingerprint "$c/suites")
  local dirs_before
  dirs_before=$(find "$t" -mindepth 1 -type d 2>/dev/null | wc -l)
  "${cmd[@]}" >"$c/out" 2>"$c/err"
  local code=$?
  local before=$failures what="$row x $col"
  check "$what: exit 2 (got $code)" [ "$code" -eq 2 ]
  check "$what: one line on stderr, 'spyre-regress: error: ...'" one_error_line "$c/err"
  if [[ $row == run-report && ( $col == full || $col == ro ) ]]; then
    # run records its run before it writes the report, so the store has
    # changed by design; it must still be intact.
    check "$what: the store is intact" integrity_ok "$db"
  else
    check "$what: the store is unchanged" [ "$(fingerprint "$db")" = "$store_before" ]
  fi
  [[ $row == merge ]] && check "$what: the merge source is unchanged" [ "$(fingerprint "$c/src.db")" = "$src_before" ]
  if [[ $target_before != absent && $target_before != special ]]; then
    check "$what: the target that was there is unchanged" [ "$(fingerprint "$t")" = "$target_before" ]
  fi
  if [[ -d $t && $target_before != absent ]]; then
    local dirs_after
    dirs_after=$(find "$t" -mindepth 1 -type d 2>/dev/null | wc -l)
    [[ $dirs_after -gt $dirs_before ]] && echo "note  $what: $((dirs_after - dirs_before)) new director(ies) left in the target"
  fi
  [[ $col == wal ]] && check "$what: nothing but a log at the -wal path" wal_clean "$t"
  check "$what: the suites directory is unchanged" [ "$(fingerprint "$c/suites")" = "$suites_before" ]
  local left
  left=$(($(partials_in "$work") + $(partials_in /dev -maxdepth 1)))
  check "$what: no partial file left ($left)" [ "$left" -eq 0 ]
  if [[ $failures -gt $before ]]; then
    echo "      command: ${cmd[*]}"
    echo "      exit $code; stderr: $(head -c 600 "$c/err" | tr '\n' '|')"
    cell[$row,$col]=FAIL
    cells_failed=$((cells_failed + 1))
  else
    cell[$row,$col]=ok
  fi
  cells_checked=$((cells_checked + 1))
  local m
  for m in "$c/full" "$c/ro"; do mountpoint -q "$m" && umount "$m"; done
  chmod -R u+w "$c" 2>/dev/null
  rm -rf "$c"
}

for row in "${rows[@]}"; do
  for col in "${cols[@]}"; do attempt "$row" "$col"; done
done

echo
printf '%-12s' "verb"
for col in "${cols[@]}"; do printf '%-9s' "$col"; done
echo
for row in "${rows[@]}"; do
  printf '%-12s' "$row"
  for col in "${cols[@]}"; do printf '%-9s' "${cell[$row,$col]:-?}"; done
  echo
done
echo "output targets: $cells_checked checked, $cells_failed failed ($failures failing check(s))"
[[ $failures -eq 0 ]]
