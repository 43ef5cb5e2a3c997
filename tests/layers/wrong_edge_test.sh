#!/usr/bin/env bash
# ci/check-layers passes on the source tree and fails, naming the file and
# the rule, on a copy of it with one include that points the wrong way, for
# each kind of wrong edge.
set -euo pipefail
src=$1
check="$src/ci/check-layers"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$check" "$src" >/dev/null || fail "the source tree itself does not pass"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# file to edit | include to add | text the error must hold
cases=(
  'device/src/core/runtime.cpp|#include "base/status.h"|the device knows nothing of the harness'
  'device/src/core/memory.cpp|#include <ATen/ATen.h>|the device core is torch-free'
  'device/include/spyre_emu/dl16.h|#include <c10/util/Half.h>|torch-free'
  'detect/src/detect.cpp|#include "reports/report_model.h"|the engine does not know the report writers'
  'harness/src/runner/run_plan.cpp|#include "suites/ops/op_registry.h"|the engine does not know the report writers or the case kinds'
  'reports/src/escape.cpp|#include "runner/confirm.h"|reports read the store'
  'suites/ops/op_case.cpp|#include "store/sql.h"|not a public header of store/'
  'detect/src/changepoint.cpp|#include "store/sql.h"|not a public header of store/'
  'harness/src/env.cpp|#include "core/config.h"|private sources are reached through spyre_emu/'
  'detect/src/detect.cpp|static int n = sqlite3_step(nullptr);|SQL stays inside the store'
  'store/include/store/store.h|#include "reports/reporter.h"|the engine does not know the report writers'
  'suites/ops/op_case.cpp|#include "cli.h"|nothing but the CLI includes the CLI'
  'cli/verb_list.cpp|#include "store/sql.h"|not a public header of store/'
  'harness/src/runner/run_plan.cpp|#include "spyre_emu/config.h"|the engine and reports do not know the emulator'
  'cli/verb_env.cpp|#include <spyre_emu/runtime.h>|the engine and reports do not know the emulator'
  'suites/models/timing_case.cpp|#include <spyre_emu/runtime.h>|case kinds see only the cost-model library'
  'harness/src/env.cpp|#include "spyre_regress/device_abi.h"|only the device adapter'
  'store/src/sql.cpp|#include "spyre_regress/device_abi.h"|only the device adapter'
  'device/include/spyre_emu/config.h|#include "core/bits.h"|public device headers do not expose its private sources'
  'reports/src/escape.cpp|#include "suites/ops/op_registry.h"|reports read the store'
  'suites/ops/op_case.cpp|#include "suites/models/decoder.h"|the op kind does not know the model kinds'
  'suites/models/decoder.cpp|#include "suites/ops/op_registry.h"|the model kinds do not know the op kind'
  'suites/models/decode_case.cpp|#include "../ops/op_case.h"|the op kind'"'"'s private header'
  'cli/verb_run.cpp|#include "model_case.h"|the model kinds'"'"' private headers'
  'store/src/sql.cpp|#include <ATen/ATen.h>|the layers under harness/ are torch-free'
  'suite_file/src/suite_file.cpp|#include "harness/case_kinds/case_kinds.h"|suite files are read below'
  'run/include/run/run.h|#include "harness/device/device.h"|what a run is stays torch-free'
  'cli/verb_history.cpp|#include "harness/golden/golden.h"|the program users run links no libtorch'
  'cli/verb_list.cpp|#include "suites/ops/op_registry.h"|the program users run links no libtorch'
  'reports/src/escape.cpp|#include <torch/version.h>|the report writers are torch-free'
  'base/src/status.cpp|#include "store/store.h"|base is the bottom layer'
  'base/src/output_file.cpp|#include "suite_file/suite_file.h"|base is the bottom layer'
  'store/include/store/store_history.h|#include "detect/detect.h"|the store is below detection'
  'suite_file/src/suite_file.cpp|#include "store/store.h"|suite files are read below the store'
  'detect/src/history_shifts.cpp|#include "run/run.h"|detection is below the run'
  'store/src/store_runs.cpp|#include "suite_file/suite_file.h"|the store is below detection'
  'tests/detect/history_test.cpp|#include "store/sql.h"|not a public header of store/'
  'bench/reports/report_bench.cpp|#include "harness/runner/confirm.h"|not a public header of harness/'
  'tests/cli/cli_test.cpp|const char* q = "SELECT count(*) FROM results";|SQL names a store table'
  'bench/reports/CMakeLists.txt|target_include_directories(bench_reports PRIVATE ${CMAKE_SOURCE_DIR}/store/src)|adds store/src to an include path'
  'tests/detect/CMakeLists.txt|target_include_directories(detect_tests PRIVATE ${CMAKE_SOURCE_DIR}/harness/src)|adds harness/src to an include path'
)
mkdir "$work/tree"
for d in device base suite_file store detect run harness suites reports cli tests bench fuzz tools ci; do
  cp -r "$src/$d" "$work/tree/"
done
"$check" "$work/tree" >/dev/null || fail "the copy of the tree does not pass"
for c in "${cases[@]}"; do
  IFS='|' read -r file inc want <<<"$c"
  [[ -f "$work/tree/$file" ]] || fail "$file is not in the tree: update this test"
  cp "$src/$file" "$work/tree/$file"
  printf '%s\n' "$inc" >>"$work/tree/$file"
  status=0
  err=$("$check" "$work/tree" 2>&1 >/dev/null) || status=$?
  ((status == 1)) || fail "$file with '$inc': exit $status, expected 1"
  grep -qF "$file:" <<<"$err" || fail "$file with '$inc': the error does not name the file: $err"
  grep -qF "$want" <<<"$err" || fail "$file with '$inc': the error does not say '$want': $err"
  cp "$src/$file" "$work/tree/$file"
done
# A known edge that was removed must leave the list too: an include, and a
# file that no longer runs SQL itself. Checked with a copy of the check whose
# list names edges the tree does not have.
stale() {  # stale EDGE TEXT-THE-ERROR-MUST-HOLD
  sed "s|^KNOWN_EDGES=(\$|KNOWN_EDGES=(\n  '$1'|" "$check" >"$work/check-layers"
  grep -qF "'$1'" "$work/check-layers" || fail "could not add a known edge to the copy of the check"
  local status=0 err
  err=$(bash "$work/check-layers" "$work/tree" 2>&1 >/dev/null) || status=$?
  ((status == 1)) || fail "a stale known edge '$1': exit $status, expected 1"
  grep -qF "$2" <<<"$err" || fail "a stale known edge '$1' is not named: $err"
}
stale 'detect/src/detect.cpp #include "store/sql.h"' \
  "detect.cpp #include \"store/sql.h\"' is gone"
stale 'cli/verb_history.cpp sqlite3 calls' "verb_history.cpp sqlite3 calls' is gone"
# A listed edge that exists is let through.
printf '#include "store/sql.h"\n' >>"$work/tree/detect/src/detect.cpp"
sed "s|^KNOWN_EDGES=(\$|KNOWN_EDGES=(\n  'detect/src/detect.cpp #include \"store/sql.h\"'|" "$check" \
  >"$work/check-layers"
bash "$work/check-layers" "$work/tree" >/dev/null || fail "a listed edge that exists is not let through"
cp "$src/detect/src/detect.cpp" "$work/tree/detect/src/detect.cpp"
echo "check-layers caught ${#cases[@]} of ${#cases[@]} wrong edges"
