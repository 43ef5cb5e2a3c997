#pragma once
// The shadow check: each op call on the device under test's tensors, re-run
// on the CPU from the same inputs, so that the op whose own output departs
// from the reference can be named (base/op_error.h reads the result).
//
// libtorch's RecordFunction callbacks (thread-local: only this thread's
// calls, only while fn runs) see every dispatched op, composites and the ops
// they are made of alike. At a call's start its tensor inputs are copied to
// the CPU, fp16 and bf16 widened to fp32 on the device first (the values it
// holds, exactly: DL16 has two more fraction bits than bf16; and libtorch's
// CPU lacks fp16 kernels for mm, softmax, layer norm...); fp32 and fp64 are
// kept. At its end the same operator (same overload) runs on those copies,
// and each floating output of the device, read the same way, is compared
// with the CPU's: local rel_l2 and max abs error. Works for any backend: it
// needs nothing from the device but a dtype conversion and copies to the
// CPU.
//
// Not checked, each counted under its reason: views and ops that write their
// arguments (schema alias annotations), calls without floating outputs,
// factories and random ops, copies that only move data, calls whose tensors
// are larger than the limit, calls past the cap, and calls the CPU cannot
// run. The check's own copies and CPU runs are not seen (a thread-local
// guard).
//
//   nlohmann::json summary = CheckOpsOnDevice([&] { out = model.Prefill(p); });
//   result.extra["op_error"] = summary;   // base/op_error.h's layout
#include <cstdint>
#include <functional>

#include <nlohmann/json.hpp>

namespace harness {

struct OpCheckLimits {
  // A call whose tensor inputs and outputs hold more elements than this is
  // not checked ("too large"): the copies and the CPU run would cost more
  // than the device call itself many times over.
  int64_t max_elements = int64_t{1} << 22;
  // Calls checked per execution; later calls are counted, not checked.
  int64_t max_checked_calls = 20000;
};

// Runs fn once with every op call on the device under test's tensors
// checked; returns SummarizeOpCalls of the calls (base/op_error.h). An
// exception from fn propagates after the check is removed.
nlohmann::json CheckOpsOnDevice(const std::function<void()>& fn, const OpCheckLimits& limits = {});

}  // namespace harness
