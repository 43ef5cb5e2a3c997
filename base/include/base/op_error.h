#pragma once
// Per-op local error of one device execution: the torch-free half of the
// shadow check (harness/device/op_check.h runs it). Each op call on the
// device's tensors is re-run on the CPU from the very inputs the device was
// given; the difference of the two outputs is that call's own (local)
// error, whatever the calls before it did. A case keeps a compact summary
// per op name under extra["op_error"]:
//
//   {"ops": [{"op": "mm", "calls": 12, "rel_l2": 0.0098, "max_abs": 0.03,
//             "first_call": 3, "depth": 1, "level": 0.0039, "departed_calls": 12,
//             "composite": false}, ...],
//    "departed": {"op": "mm", "call": 3, "of": 40, "rel_l2": 0.0098,
//                 "max_abs": 0.03, "level": 0.0039, "depth": 1} or null,
//    "calls": 40, "checked_calls": 30, "skipped_calls": 10,
//    "skipped": {"view or in-place": 8, ...}}
//
// Calls are numbered from 1 in the order they started; an outer op (linear)
// starts before the ops it is made of (addmm), which run one level deeper
// (`depth`, 0 for a call made by the case itself). A call departs when its
// local rel_l2 exceeds the departure level of its output's format
// (DepartureLevel) and no checked call ran inside it: a composite's own
// error includes the rounding of every intermediate it hands from one inner
// op to the next, which the CPU's single fp32 run does not have, so a
// composite is recorded (composite: true) and its inner ops are judged. The
// departed call is the first departing call in call order.
//
//   std::optional<OpError> d = DepartedOp(result);
//   if (d) message += "; first departing op: " + DepartureText(*d, total);
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/case_result.h"

namespace harness {

// One op call as the check saw it.
struct OpCall {
  std::string op;     // "mm"; a namespace other than aten:: is kept ("spyre::rms_norm")
  int64_t seq = 0;    // start order (any increasing numbering; gaps allowed)
  int depth = 0;      // device op calls it runs inside
  bool checked = false;
  std::string skipped;  // why it was not checked (when !checked)
  double rel_l2 = 0;    // worst over its floating outputs: |dev - ref|_2 / |ref|_2
  double max_abs = 0;   // worst |dev - ref| over its floating outputs
  double level = 0;     // the departure level of the output that came nearest to its own
  bool composite = false;  // checked calls ran inside it
  bool Departs() const { return checked && !composite && !(rel_l2 <= level); }
};

// One op name's summary (extra["op_error"]["ops"][i], or "departed").
struct OpError {
  std::string op;
  int64_t calls = 0;       // checked calls (1 for "departed")
  double rel_l2 = 0;       // worst local rel_l2
  double max_abs = 0;      // worst local max abs error
  int64_t first_call = 0;  // call number of its first checked call ("departed": that call)
  int depth = 0;           // depth of its worst call ("departed": that call's)
  double level = 0;        // departure level of its worst call
  int64_t departed_calls = 0;
  bool composite = false;  // some of its calls ran checked calls inside
};

// The departure level of an output held by the device in a format of unit
// roundoff `unit_roundoff` (2^-10 for DL16: 9 fraction bits; 2^-24 for
// fp32): kDepartureUlps units, and never below kDepartureFloor (an fp32
// reference summed in another order differs by more than fp32's unit).
// Rounding the exact result once gives a rel_l2 of at most one unit; the
// ops of the committed suites stay below a quarter of the level
// (docs/detection.md has the figures), a 1% error in an output is 2.6
// times the DL16 level.
inline constexpr double kDepartureUlps = 4;
inline constexpr double kDepartureFloor = 1.0 / 16384;  // 2^-14
double DepartureLevel(double unit_roundoff);

// The summary of one execution's calls, in the order they ended (the order
// the check records them). `checked_calls` + `skipped_calls` = calls.size().
nlohmann::json SummarizeOpCalls(const std::vector<OpCall>& calls);

// Read back from a case result; empty / nullopt when the case has no
// extra["op_error"] (not checked, or recorded before the check existed) or
// when it is malformed.
std::vector<OpError> ReadOpErrors(const CaseResult& r);
std::optional<OpError> DepartedOp(const CaseResult& r);
// The number of calls the departed op's call number counts in (its "of").
int64_t OpErrorCallCount(const CaseResult& r);

// "mm (call 3 of 40, local rel_l2 0.0098)".
std::string DepartureText(const OpError& departed, int64_t of_calls);

// A failed case's message gets "; first departing op: ..." when its
// op_error names one; any other case is left as it is.
void NameDepartedOp(CaseResult* r);

}  // namespace harness
