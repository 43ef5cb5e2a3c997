#pragma once
// Version strings baked in at build time (cmake/WriteBuildInfo.cmake).
namespace harness {
// The harness version, e.g. "0.1.0".
const char* HarnessVersion();
// Short git revision of the source tree, "-dirty" appended for uncommitted
// changes; "unknown" when built outside a git checkout.
const char* HarnessGitRevision();
// The spyre-emu version the harness was built against.
const char* SpyreEmuVersionAtBuild();
}  // namespace harness
