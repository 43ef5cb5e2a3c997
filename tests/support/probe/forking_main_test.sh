#!/usr/bin/env bash
# The forking test main (tests/support/forking_main.cpp) on its probe binary:
# one process per test, failures, crashes and hangs reported by name, gtest
# filters and ctest shards honoured, and plain gtest on request.
set -uo pipefail
probe=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { out=$("$@" 2>&1); rc=$?; }

run "$probe"
((rc == 0)) || fail "the probe failed: $out"
grep -qF "6 tests in" <<<"$out" || fail "not 6 tests: $out"
grep -qF "[     OK     ] Isolation.TheNextTestSeesNoneOfIt" <<<"$out" || fail "no isolation: $out"

run env SPYRE_TEST_IN_PROCESS=1 "$probe" --gtest_filter='Isolation.*'
((rc == 1)) || fail "in process, the isolation test should fail (exit $rc): $out"

run env FORKING_MAIN_PROBE_FAIL=1 "$probe"
((rc == 1)) || fail "a failing test: exit $rc, expected 1"
grep -qF "FAILED Probe.FailsOnRequest" <<<"$out" || fail "the failing test is not named: $out"
grep -qF "asked to fail" <<<"$out" || fail "the failure's message is not shown: $out"
grep -qF "1 failed" <<<"$out" || fail "the count of failures: $out"

run env FORKING_MAIN_PROBE_CRASH=1 "$probe" --gtest_filter='Probe.Crash*'
((rc == 1)) || fail "a crashing test: exit $rc, expected 1"
grep -qE "Probe.CrashesOnRequest.*killed by signal 6" <<<"$out" || fail "the crash is not reported: $out"

run env FORKING_MAIN_PROBE_HANG=1 SPYRE_TEST_TIMEOUT=1 "$probe" --gtest_filter='Probe.Hangs*:Isolation.*'
((rc == 1)) || fail "a hanging test: exit $rc, expected 1"
grep -qE "Probe.HangsOnRequest.*timed out after 1 s" <<<"$out" || fail "the hang is not reported: $out"
grep -qF "3 tests in" <<<"$out" || fail "the tests after the hang did not run: $out"

run "$probe" --gtest_filter='*-Probe.*'
grep -qF "2 tests in" <<<"$out" || fail "a negative filter: $out"

all=""
for i in 0 1 2; do
  run env SPYRE_TEST_SHARDS=3 SPYRE_TEST_SHARD=$i "$probe"
  ((rc == 0)) || fail "shard $i: $out"
  all+=$(grep -E '^\[     OK     \] ' <<<"$out" | awk '{print $4}')$'\n'
done
[[ $(grep -c . <<<"$all") == 6 && $(sort <<<"$all" | uniq -d | grep -c .) == 0 ]] ||
  fail "three shards do not run each test once: $all"

run env SPYRE_TEST_SHARDS=2 SPYRE_TEST_SHARD=2 "$probe"
((rc == 2)) || fail "a shard index out of range: exit $rc, expected 2"
echo "forking main: isolation, failures, crashes, hangs, filters and shards as documented"
