#!/usr/bin/env bash
# Reliability probe: the built spyre-regress under the failures a CI host
# meets (kill -9 and SIGTERM of a running supervisor, a full disk, a store on
# a read-only directory, a store with corrupt pages). After each one it
# checks the exit code, the verdict `report` gives (never "passed" for a run
# that did not complete, and a non-zero exit), and that the store is intact
# (PRAGMA integrity_check) with what was recorded kept.
#
#   tests/probe/reliability_probe.sh build/spyre-regress
#
# Needs sqlite3 (ci/setup installs it). As root, the full disk is a small
# tmpfs in a private mount namespace and the read-only store is read as
# nobody (setpriv); otherwise a file-size limit and plain permissions.
set -u
bin=${1:?usage: reliability_probe.sh SPYRE_REGRESS_BINARY}
bin=$(readlink -f "$bin")
source "$(dirname "${BASH_SOURCE[0]}")/probe_lib.sh"
verdict_of() { sed -n 's/^  "verdict": "\([a-z]*\)".*/\1/p' "$1/report.json"; }
lacks() { ! grep -q "$1" "$2"; }
one_line() { [[ $(wc -l <"$1") -eq 1 ]]; }

# Starts a run whose `mm` cases hang, waits until it has recorded a result,
# and sets $sup to the supervisor's pid; its workers' pids go to $work/workers.
start_hanging_run() {
  local db=$1
  "$bin" --db "$db" --quiet run --suite smoke --inject mm:hang --timeout 120 --baseline none \
    >"$work/run.out" 2>"$work/run.err" &
  sup=$!
  children+=("$sup")
  for _ in $(seq 1 600); do
    if [[ -f $db ]] && [[ $(sql "$db" "SELECT count(*) FROM v_results r JOIN v_runs u ON u.run_id = r.run_id WHERE u.status = 'running'" 2>/dev/null) -ge 1 ]]; then
      break
    fi
    sleep 0.1
  done
  pgrep -P "$sup" >"$work/workers" || true
}
kill_workers() {
  local w
  while read -r w; do kill -9 "$w" 2>/dev/null; done <"$work/workers"
}

report() {  # report DB OUT [RUN]: prints the exit code
  local args=(--db "$1" report --out "$2")
  [[ -n ${3:-} ]] && args+=(--run "$3")
  "$bin" "${args[@]}" >"$2.out" 2>"$2.err"
  echo $?
}

# 0. A clean run to compare with and to read back.
clean=$work/clean.db
"$bin" --db "$clean" --quiet run --suite smoke --filter '^smoke/add\.' --baseline none >/dev/null 2>"$work/clean.err"
check "a clean run exits 0" [ $? -eq 0 ]
check "its report is passed, exit 0" [ "$(report "$clean" "$work/r0")" -eq 0 ]
check "its verdict is passed" [ "$(verdict_of "$work/r0")" = passed ]

# 1. kill -9 of the supervisor: the run stays `running` with its results.
db=$work/kill9.db
start_hanging_run "$db"
kill -9 "$sup"
wait "$sup" 2>/dev/null
kill_workers
recorded=$(sql "$db" 'SELECT count(*) FROM v_results')
check "kill -9: results recorded before the kill are kept ($recorded)" [ "$recorded" -ge 1 ]
check "kill -9: the store is intact" integrity_ok "$db"
code=$(report "$db" "$work/r1")
check "kill -9: report exits 2 (got $code)" [ "$code" -eq 2 ]
# Read-only, the report cannot record the run aborted, but it reports it so.
check "kill -9: report's verdict is aborted" [ "$(verdict_of "$work/r1")" = aborted ]
check "kill -9: report says the supervisor is gone" grep -q "supervisor is gone" "$work/r1.err"
check "kill -9: report's error is one line" one_line "$work/r1.err"
check "kill -9: junit.xml has an error" grep -q 'type="aborted"' "$work/r1/junit.xml"
# The next writer marks it aborted; it is then never a baseline.
"$bin" --db "$db" --quiet run --suite smoke --filter '^smoke/add\.' >"$work/r1b.out" 2>&1
check "kill -9: the next run marks the dead run aborted" [ "$(sql "$db" 'SELECT status FROM v_runs WHERE run_id = 1')" = aborted ]
check "kill -9: the next run takes no baseline from it" grep -q "regressions: none (no baseline)" "$work/r1b.out"
code=$(report "$db" "$work/r1c" 1)
check "kill -9: the aborted run's report exits 2, verdict aborted" [ "$code" -eq 2 -a "$(verdict_of "$work/r1c")" = aborted ]
"$bin" --db "$db" compare --baseline 2 --candidate 1 >"$work/c1.out" 2>"$work/c1.err"
check "kill -9: compare with the aborted run as candidate exits 2" [ $? -eq 2 ]

# 2. SIGTERM: the run is aborted, exit 2, results kept.
db=$work/term.db
start_hanging_run "$db"
kill -TERM "$sup"
wait "$sup"
code=$?
kill_workers
check "SIGTERM: run exits 2 (got $code)" [ "$code" -eq 2 ]
check "SIGTERM: the run is aborted" [ "$(sql "$db" 'SELECT status FROM v_runs')" = aborted ]
check "SIGTERM: results kept" [ "$(sql "$db" 'SELECT count(*) FROM v_results')" -ge 1 ]
check "SIGTERM: the store is intact" integrity_ok "$db"
code=$(report "$db" "$work/r2")
check "SIGTERM: report exits 2, verdict aborted" [ "$code" -eq 2 -a "$(verdict_of "$work/r2")" = aborted ]

# 3. A full disk mid-run: exit 2, one line, what was recorded kept. As root,
# a small tmpfs in a private mount namespace; otherwise a file-size limit
# (the write then fails with EFBIG, an I/O error rather than ENOSPC).
mkdir -p "$work/full"
cp "$clean" "$work/full.db"
if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
  unshare -m bash -c '
    mount -t tmpfs -o size=2m tmpfs "$1" || exit 99
    cp "$2" "$1/store.db"
    # Room for the store to open and record a few results, then no more.
    avail=$(df --output=avail -k "$1" | tail -n 1)
    dd if=/dev/zero of="$1/filler" bs=1k count=$((avail - 160)) status=none
    "$3" --db "$1/store.db" --quiet run --suite smoke --baseline none >"$4/full.out" 2>"$4/full.err"
    echo $? >"$4/full.code"
    cp "$1/store.db" "$4/full-after.db"
    [[ -f "$1/store.db-wal" ]] && cp "$1/store.db-wal" "$4/full-after.db-wal"
    exit 0' probe "$work/full" "$work/full.db" "$bin" "$work"
  full_words="disk full"
else
  cp "$work/full.db" "$work/full/store.db"
  size_kb=$(($(stat -c %s "$work/full.db") / 1024 + 160))
  (
    trap '' XFSZ
    ulimit -f "$size_kb"
    "$bin" --db "$work/full/store.db" --quiet run --suite smoke --baseline none >"$work/full.out" 2>"$work/full.err"
    echo $? >"$work/full.code"
  )
  cp "$work/full/store.db" "$work/full-after.db"
  [[ -f "$work/full/store.db-wal" ]] && cp "$work/full/store.db-wal" "$work/full-after.db-wal"
  full_words="I/O error"
fi
check "disk full: run exits 2 (got $(cat "$work/full.code" 2>/dev/null))" [ "$(cat "$work/full.code" 2>/dev/null)" = 2 ]
check "disk full: one line on stderr" one_line "$work/full.err"
check "disk full: it says so ($full_words)" grep -q "$full_words" "$work/full.err"
check "disk full: the store is intact" integrity_ok "$work/full-after.db"
check "disk full: the earlier run is kept" [ "$(sql "$work/full-after.db" "SELECT status FROM v_runs WHERE run_id = 1")" = completed ]
code=$(report "$work/full-after.db" "$work/r3" 2)
check "disk full: the cut run is not reported as passed (exit $code, $(verdict_of "$work/r3"))" [ "$code" -eq 2 ]

# 4. A store on a read-only directory (WAL mode, no -shm can be created).
mkdir -p "$work/ro" "$work/roout"
cp "$clean" "$work/ro/store.db"
chmod 0444 "$work/ro/store.db"
chmod 0555 "$work/ro"
chmod 0777 "$work/roout"
as_reader=()
[[ $(id -u) -eq 0 ]] && as_reader=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${as_reader[@]}" "$bin" --db "$work/ro/store.db" report --out "$work/roout/r" >"$work/ro.out" 2>"$work/ro.err"
check "read-only: report reads the store (exit $?)" [ -f "$work/roout/r/report.json" ]
check "read-only: its verdict is passed" [ "$(verdict_of "$work/roout/r")" = passed ]
"${as_reader[@]}" "$bin" --db "$work/ro/store.db" history --suite smoke >/dev/null 2>"$work/ro2.err"
check "read-only: history reads the store" [ $? -eq 0 ]
"${as_reader[@]}" "$bin" --db "$work/ro/store.db" --quiet run --suite smoke --filter '^smoke/add\.' >/dev/null 2>"$work/ro3.err"
check "read-only: run exits 2" [ $? -eq 2 ]
check "read-only: one line, saying it is not writable" grep -q "not writable" "$work/ro3.err"
check "read-only: no 'not an error' in the message" lacks "not an error" "$work/ro3.err"
chmod 0755 "$work/ro"

# 5. Corrupt pages behind an intact header: refused before any write.
cp "$clean" "$work/corrupt.db"
pages=$(($(stat -c %s "$work/corrupt.db") / 4096))
dd if=/dev/urandom of="$work/corrupt.db" bs=4096 seek=1 count=$((pages - 2)) conv=notrunc status=none
cp "$work/corrupt.db" "$work/corrupt.orig"
"$bin" --db "$work/corrupt.db" --quiet run --suite smoke --filter '^smoke/add\.' >/dev/null 2>"$work/c.err"
check "corrupt: run exits 2" [ $? -eq 2 ]
check "corrupt: one line, naming the corruption" grep -q "corrupt" "$work/c.err"
check "corrupt: the file is left untouched" cmp -s "$work/corrupt.db" "$work/corrupt.orig"
"$bin" merge --into "$work/merged.db" "$work/corrupt.db" >/dev/null 2>"$work/m.err"
check "corrupt: merge of a corrupt source exits 2" [ $? -eq 2 ]
check "corrupt: merge blames the source" grep -q "merge source: store '$work/corrupt.db' is" "$work/m.err"
check "corrupt: merge leaves no target behind" [ ! -e "$work/merged.db" ]

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
