#pragma once
// A compacted result's timing-round values as one blob (results.rounds_packed)
// instead of one wall_samples row per round: per round, the wall value and,
// when the result kept run-queue waits, the wait, each read back bit for bit.
//
// The runs kept whole store their samples the same way, losslessly: every
// sample as recorded (flag `raw`: the round sizes stay in the result's
// extra JSON) and the per-round per-op wall times that JSON held.
//
// Layout: a format byte (1), a flags byte (bit 0: waits follow; bit 1: raw
// samples; bit 2: per-op times follow), the value count as a varint, then
// every wall value, then every wait; then, with bit 2, the op count, and per
// op its name (length varint, bytes), its value count and values. A value that is
// a whole number of nanoseconds as the timers give it (k / 1000.0 for an
// integer k >= 0, bit-exact) is the varint 2k; any other value is the varint
// 1 followed by its 8 IEEE-754 bytes, little-endian.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::store_internal {

struct PackedRounds {
  std::vector<double> wall_us;
  std::vector<double> queue_us;  // empty, or one per wall value
  bool raw = false;              // every sample as recorded, not one per round
  std::map<std::string, std::vector<double>> op_wall_us;  // extra["rounds"]["op_wall_us"]
};

std::string PackRounds(const PackedRounds& rounds);
// nullopt for a blob this build cannot read (a format byte it does not know,
// or cut short).
std::optional<PackedRounds> UnpackRounds(const std::string& blob);

}  // namespace harness::store_internal
