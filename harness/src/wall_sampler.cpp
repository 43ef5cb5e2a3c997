// The paired sampling in force (harness/wall_sampler.h): one per thread, set
// by the worker around a paired case and read by TakeWallSamples.
#include "harness/wall_sampler.h"

namespace harness {
namespace {

thread_local PairedSides* active_sides = nullptr;

}  // namespace

PairedSides* ActivePairedSides() { return active_sides; }

ScopedPairedSides::ScopedPairedSides(PairedSides* sides) : previous_(active_sides) {
  active_sides = sides;
}

ScopedPairedSides::~ScopedPairedSides() { active_sides = previous_; }

}  // namespace harness
