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
  'device/src/core/runtime.cpp|#include "harness/status.h"|the device knows nothing of the harness'
  'device/src/core/memory.cpp|#include <ATen/ATen.h>|the device core is torch-free'
  'device/include/spyre_emu/dl16.h|#include <c10/util/Half.h>|torch-free'
  'harness/src/detect/detect.cpp|#include "reports/report_model.h"|the engine does not know the report writers'
  'harness/src/runner/run_plan.cpp|#include "suites/ops/op_registry.h"|the engine does not know the report writers or the case kinds'
  'reports/src/escape.cpp|#include "runner/confirm.h"|reports read the store'
  'suites/ops/op_case.cpp|#include "store/sql.h"|case kinds use the engine'
  'harness/src/detect/changepoint.cpp|#include "store/sql.h"|SQL stays inside the store'
  'harness/src/env.cpp|#include "core/config.h"|private sources are reached through spyre_emu/'
  'harness/src/detect/detect.cpp|static int n = sqlite3_step(nullptr);|SQL stays inside the store'
  'harness/include/harness/store/store.h|#include "reports/reporter.h"|the engine does not know the report writers'
  'suites/ops/op_case.cpp|#include "cli.h"|nothing but the CLI includes the CLI'
  'cli/verb_list.cpp|#include "store/sql.h"|SQL stays inside the store'
  'harness/src/runner/run_plan.cpp|#include "spyre_emu/config.h"|the engine and reports do not know the emulator'
  'cli/verb_env.cpp|#include <spyre_emu/runtime.h>|the engine and reports do not know the emulator'
  'suites/models/timing_case.cpp|#include <spyre_emu/runtime.h>|case kinds see only the cost-model library'
  'harness/src/env.cpp|#include "spyre_regress/device_abi.h"|only the device adapter'
  'device/include/spyre_emu/config.h|#include "core/bits.h"|public device headers do not expose its private sources'
  'reports/src/escape.cpp|#include "suites/ops/op_registry.h"|reports read the store'
  'suites/ops/op_case.cpp|#include "suites/models/decoder.h"|the op kind does not know the model kinds'
  'suites/models/decoder.cpp|#include "suites/ops/op_registry.h"|the model kinds do not know the op kind'
  'suites/models/decode_case.cpp|#include "../ops/op_case.h"|the op kind'"'"'s private header'
  'cli/verb_run.cpp|#include "model_case.h"|the model kinds'"'"' private headers'
  'harness/src/store/sql.cpp|#include <ATen/ATen.h>|the engine core (harness/torch_free.txt) is torch-free'
  'harness/src/suite_file/suite_file.cpp|#include "harness/case_kinds/case_kinds.h"|the engine core (harness/torch_free.txt) is torch-free'
  'harness/include/harness/runner/run.h|#include "harness/device/device.h"|are torch-free'
  'cli/verb_history.cpp|#include "harness/golden/golden.h"|the program users run links no libtorch'
  'cli/verb_list.cpp|#include "suites/ops/op_registry.h"|the program users run links no libtorch'
  'reports/src/escape.cpp|#include <torch/version.h>|the report writers are torch-free'
  'harness/src/status.cpp|#include "harness/store/store.h"|the basics are the bottom layer'
  'harness/src/process/output_file.cpp|#include "harness/suite_file/suite_file.h"|the basics are the bottom layer'
  'harness/include/harness/store/store_history.h|#include "harness/detect/detect.h"|the store is below detection'
  'harness/src/suite_file/suite_file.cpp|#include "harness/store/store.h"|suite files are read below the store'
  'harness/src/detect/history_shifts.cpp|#include "harness/runner/run.h"|detection is below the runner'
)
mkdir "$work/tree"
cp -r "$src/device" "$src/harness" "$src/suites" "$src/reports" "$src/cli" "$work/tree/"
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
# The torch-free list names sources that exist.
printf 'harness/src/store/gone.cpp\n' >>"$work/tree/harness/torch_free.txt"
status=0
err=$("$check" "$work/tree" 2>&1 >/dev/null) || status=$?
((status == 1)) && grep -qF "harness/src/store/gone.cpp: no such source" <<<"$err" ||
  fail "a torch-free list entry with no file: exit $status: $err"
cp "$src/harness/torch_free.txt" "$work/tree/harness/torch_free.txt"
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
stale 'harness/src/detect/detect.cpp #include "store/sql.h"' \
  "detect.cpp #include \"store/sql.h\"' is gone"
stale 'cli/verb_history.cpp sqlite3 calls' "verb_history.cpp sqlite3 calls' is gone"
# A listed edge that exists is let through.
printf '#include "store/sql.h"\n' >>"$work/tree/harness/src/detect/detect.cpp"
sed "s|^KNOWN_EDGES=(\$|KNOWN_EDGES=(\n  'harness/src/detect/detect.cpp #include \"store/sql.h\"'|" "$check" \
  >"$work/check-layers"
bash "$work/check-layers" "$work/tree" >/dev/null || fail "a listed edge that exists is not let through"
cp "$src/harness/src/detect/detect.cpp" "$work/tree/harness/src/detect/detect.cpp"
echo "check-layers caught ${#cases[@]} of ${#cases[@]} wrong edges"
