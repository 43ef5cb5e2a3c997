#!/usr/bin/env bash
# Fault drill: each verb that writes (run, merge, prune, backup, export,
# golden generate) is sent SIGKILL, SIGTERM, SIGHUP and SIGINT at random
# moments of its run, on a fresh copy of a prepared workspace each time.
# After each: the stores involved pass PRAGMA integrity_check; a caught
# signal ends in exit 0 (it had finished), 1 (`run`: regressions) or 2 with
# one `spyre-regress: error:` line, never in death by the signal; no
# `*.partial-*` or `*.tmp` file is left (after kill -9 they may be, and the
# same command run again must remove them); a `run` stopped by a signal
# reads as `aborted` in `runs` and in `export --table runs`.
#
#   tests/probe/fault_drill.sh build/spyre-regress [MOMENTS]
#
# MOMENTS (default 3) is the number of signals of each kind per verb; the
# moment is uniform in [0, D], D the verb's duration measured once without a
# signal. The seed of $RANDOM is printed; DRILL_SEED replays a drill.
# Needs sqlite3.
set -u
bin=${1:?usage: fault_drill.sh SPYRE_REGRESS_BINARY [MOMENTS]}
bin=$(readlink -f "$bin")
moments=${2:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
suites_src=$here/../../suites
seed=${DRILL_SEED:-20261206}
RANDOM=$seed
echo "fault drill: seed $seed (DRILL_SEED), $moments moment(s) per verb and signal"

source "$here/probe_lib.sh"
now() { date +%s.%N; }
# A background job of a script ignores SIGINT; the drill starts the verb
# with SIGINT at its default, as a terminal's Ctrl-C would find it.
launch=()
env --default-signal=INT true 2>/dev/null && launch=(env --default-signal=INT)

# The workspace: a store with three quick runs, a second store recorded on
# its own (so that merging both is valid), a private suites directory, the
# golden directory of the smoke suite and a copy of it for golden generate.
prep=$work/prep
mkdir -p "$prep/suites"
cp "$suites_src"/*.json "$prep/suites/"
g=(--suites "$prep/suites" --golden "$prep/golden")
"$bin" --db "$prep/store.db" "${g[@]}" --quiet golden generate --suite smoke >"$work/prep.out" 2>&1
check "workspace: golden generate exits 0" [ $? -eq 0 ]
for i in 1 2 3; do
  "$bin" --db "$prep/store.db" "${g[@]}" --quiet run --suite smoke --filter '^smoke/add\.' --baseline none \
    >>"$work/prep.out" 2>&1
  check "workspace: quick run $i exits 0" [ $? -eq 0 ]
done
"$bin" --db "$prep/src2.db" "${g[@]}" --quiet run --suite smoke --filter '^smoke/add\.' --baseline none \
  >>"$work/prep.out" 2>&1
check "workspace: the second store's run exits 0" [ $? -eq 0 ]
# Ten simulated nightlies (14 MB) merged in, when the build has the
# simulator: without them merge, prune, backup and export finish in a few
# milliseconds and almost every signal lands before or after their work.
sim=$(dirname "$bin")/simulate_year
if [[ -x $sim ]]; then
  "$sim" "$work/year.db" 10 >>"$work/prep.out" 2>&1 &&
    "$bin" --quiet merge --into "$prep/store.db" "$work/year.db" >>"$work/prep.out" 2>&1
  check "workspace: ten simulated nightlies merged in" [ $? -eq 0 ]
else
  echo "note  no simulate_year beside $bin: the stores hold the quick runs only"
fi
cp "$prep/store.db" "$prep/src1.db"
cp -a "$prep/golden" "$prep/G"
if [[ $failures -gt 0 ]]; then
  cat "$work/prep.out"
  exit 1
fi
last_run=$(sqlite3 "$prep/store.db" 'SELECT max(run_id) FROM v_runs')

verbs=(run merge prune backup export golden)
signals=(KILL TERM HUP INT)

command_of() {  # command_of VERB DIR: sets cmd
  local d=$2
  local gl=(--db "$d/store.db" --suites "$d/suites" --golden "$d/golden")
  case $1 in
    # The whole smoke suite: long enough to be stopped while it records.
    run) cmd=("$bin" "${gl[@]}" run --suite smoke) ;;
    merge) cmd=("$bin" "${gl[@]}" merge --into "$d/M.db" "$d/src1.db" "$d/src2.db") ;;
    prune) cmd=("$bin" "${gl[@]}" prune --keep-runs 1) ;;
    backup) cmd=("$bin" "${gl[@]}" backup --to "$d/B.db") ;;
    export) cmd=("$bin" "${gl[@]}" export --format csv --out "$d/OUT/") ;;
    golden) cmd=("$bin" --db "$d/store.db" --suites "$d/suites" golden generate --suite smoke --golden "$d/G") ;;
  esac
}
stores_of() {  # stores_of VERB DIR: the stores that must be intact
  case $1 in
    merge) [[ -f $2/M.db ]] && echo "$2/M.db" ;;
    backup)
      echo "$2/store.db"
      [[ -f $2/B.db ]] && echo "$2/B.db"
      ;;
    *) echo "$2/store.db" ;;
  esac
}
all_intact() {  # all_intact VERB DIR
  local s
  for s in $(stores_of "$1" "$2"); do integrity_ok "$s" || return 1; done
}
finished_code() { [[ $2 -eq 0 || ( $1 == run && $2 -eq 1 ) ]]; }
# stderr of a caught signal: one `spyre-regress: error: ` line when the
# exit is 2 (and nothing else but `run`'s progress), none otherwise.
stderr_ok() {  # stderr_ok VERB CODE FILE
  local prefixed errors lines
  prefixed=$(grep -c '^spyre-regress:' "$3")
  errors=$(grep -c '^spyre-regress: error: ' "$3")
  lines=$(wc -l <"$3")
  if [[ $2 -eq 2 ]]; then
    [[ $prefixed -eq 1 && $errors -eq 1 ]] && { [[ $1 == run ]] || [[ $lines -eq 1 ]]; }
  else
    [[ $errors -eq 0 ]]
  fi
}
# The status of each run recorded after the workspace's, as `runs --json`
# and `export --table runs` give them: "ID:STATUS ..." per source.
new_runs_json() {
  "$bin" --db "$1/store.db" runs --all --json 2>/dev/null | tr -d ' \n' |
    grep -o '"run_id":[0-9]*,[^}]*"status":"[a-z]*"' |
    sed 's/"run_id":\([0-9]*\),.*"status":"\([a-z]*\)"/\1:\2/' |
    awk -F: -v last="$last_run" '$1 > last' | sort -n | tr '\n' ' '
}
new_runs_csv() {
  "$bin" --db "$1/store.db" export --format csv --table runs 2>/dev/null |
    awk -F, -v last="$last_run" 'NR > 1 && $1 + 0 > last { print $1 ":" $5 }' | sort -n | tr '\n' ' '
}
# Waits up to $2 seconds for pid $1 to end, then kills it; 0 if it ended.
reap() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$1" 2>/dev/null
  return 1
}

# Each verb's duration without a signal.
declare -A dur
for verb in "${verbs[@]}"; do
  d=$work/measure-$verb
  cp -a "$prep" "$d"
  command_of "$verb" "$d"
  t0=$(now)
  "${cmd[@]}" >"$d/out" 2>"$d/err"
  code=$?
  dur[$verb]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
  check "$verb without a signal exits $code in ${dur[$verb]} s" finished_code "$verb" "$code"
  [[ $code -le 1 ]] || echo "      command: ${cmd[*]}; stderr: $(head -c 600 "$d/err" | tr '\n' '|')"
  rm -rf "$d"
done

declare -A n
row=()
attempts=0
failed_attempts=0
for verb in "${verbs[@]}"; do
  for sig in "${signals[@]}"; do
    signum=$(kill -l "$sig")
    for k in moments exit2 exit0 killed intact oneline left rerun_left; do n[$k]=0; done
    for ((i = 1; i <= moments; i++)); do
      d=$work/a-$verb-$sig-$i
      cp -a "$prep" "$d"
      command_of "$verb" "$d"
      delay=$(awk -v D="${dur[$verb]}" -v r=$RANDOM 'BEGIN { printf "%.3f", D * r / 32767 }')
      what="$verb $sig #$i at ${delay}s"
      before=$failures
      # (stderr of this block is the shell's "Killed" notices, not the verb's)
      {
        "${launch[@]}" "${cmd[@]}" >"$d/out" 2>"$d/err" &
        pid=$!
        children+=("$pid")
        sleep "$delay"
        workers=$(pgrep -P "$pid")
        kill -s "$sig" "$pid"
        reap "$pid" $((30 + ${dur[$verb]%.*} * 5))
        check "$what: ends after the signal" [ $? -eq 0 ]
        wait "$pid"
        code=$?
        # Workers of a supervisor that died: give them a moment, then stop them.
        for w in $workers; do reap "$w" 5 || echo "note  $what: worker $w outlived the supervisor by 5 s"; done
      } 2>/dev/null
      n[moments]=$((n[moments] + 1))
      if finished_code "$verb" "$code"; then
        n[exit0]=$((n[exit0] + 1))
      elif [[ $code -eq 2 ]]; then
        n[exit2]=$((n[exit2] + 1))
      elif [[ $code -eq $((128 + signum)) ]]; then
        n[killed]=$((n[killed] + 1))
      fi
      if [[ $sig == KILL ]]; then
        check "$what: exit 0, 2 or killed (got $code)" \
          [ "$code" -eq 0 -o "$code" -eq 2 -o "$code" -eq 137 -o \( "$verb" = run -a "$code" -eq 1 \) ]
      else
        check "$what: exit 0 or 2, not dead of the signal (got $code)" \
          [ "$code" -eq 0 -o "$code" -eq 2 -o \( "$verb" = run -a "$code" -eq 1 \) ]
      fi
      if [[ $code -ne 137 || $sig != KILL ]]; then
        check "$what: stderr is one error line at most" stderr_ok "$verb" "$code" "$d/err"
        [[ $code -eq 2 ]] && stderr_ok "$verb" "$code" "$d/err" && n[oneline]=$((n[oneline] + 1))
      fi
      if [[ $verb == run ]]; then
        # Before any other command opens the store for writing.
        j=$(new_runs_json "$d")
        c=$(new_runs_csv "$d")
        # A run stopped before it was recorded completed is aborted. One
        # the signal reached after that (while it printed its summary) is
        # completed, whatever the exit: allowed, with a note.
        id=$((last_run + 1))
        if finished_code run "$code"; then
          want="$id:completed "
        else
          want="$id:aborted "
          [[ $j == "$id:completed " ]] && want=$j &&
            echo "note  $what: exit $code, but the run was recorded completed before the signal"
        fi
        if [[ -n $j || -n $c ]]; then
          check "$what: runs shows the run ${want% } ($j)" [ "$j" = "$want" ]
          check "$what: export --table runs shows it ${want% } ($c)" [ "$c" = "$want" ]
        else
          echo "note  $what: no run recorded yet when the signal came"
        fi
      fi
      all_intact "$verb" "$d"
      ok=$?
      check "$what: the store(s) pass integrity_check" [ $ok -eq 0 ]
      [[ $ok -eq 0 ]] && n[intact]=$((n[intact] + 1))
      left=$(partials_in "$d")
      n[left]=$((n[left] + left))
      if [[ $sig == KILL ]]; then
        # kill -9 may leave partial files; the same command must clear them.
        "${cmd[@]}" >"$d/out2" 2>"$d/err2"
        rcode=$?
        rleft=$(partials_in "$d")
        n[rerun_left]=$((n[rerun_left] + rleft))
        check "$what: the rerun (exit $rcode) leaves no partial file ($left after the kill, $rleft after)" [ "$rleft" -eq 0 ]
        check "$what: after the rerun the store(s) pass integrity_check" all_intact "$verb" "$d"
      else
        check "$what: no partial file left ($left)" [ "$left" -eq 0 ]
      fi
      attempts=$((attempts + 1))
      if [[ $failures -gt $before ]]; then
        failed_attempts=$((failed_attempts + 1))
        echo "      command: ${cmd[*]}"
        echo "      exit $code; stderr: $(head -c 600 "$d/err" | tr '\n' '|')"
        [[ $sig == KILL ]] && echo "      rerun exit $rcode; stderr: $(head -c 600 "$d/err2" | tr '\n' '|')"
        find "$d" \( -name '*.partial-*' -o -name '*.tmp' \) -printf '      left: %P\n' 2>/dev/null
      fi
      rm -rf "$d"
    done
    row[${#row[@]}]=$(printf '%-7s %-5s %7d %6d %6d %6d %9d %9d %8d %13d' "$verb" "$sig" \
      "${n[moments]}" "${n[exit2]}" "${n[exit0]}" "${n[killed]}" "${n[intact]}" "${n[oneline]}" \
      "${n[left]}" "${n[rerun_left]}")
  done
done

echo
printf '%-7s %-5s %7s %6s %6s %6s %9s %9s %8s %13s\n' verb signal moments "exit 2" "exit 0" killed \
  "integrity" "one-line" partials "after rerun"
for r in "${row[@]}"; do echo "$r"; done
echo "(exit 0 counts exit 1 of run; killed: died of the signal)"
echo "fault drill: $attempts attempts, $failed_attempts failed ($failures failing check(s))"
[[ $failures -eq 0 ]]
