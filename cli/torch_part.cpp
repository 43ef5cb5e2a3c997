// Finding and loading the torch part (torch_part.h): a library beside the
// executable, found from /proc/self/exe, never from a path of the machine
// that built it.
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <filesystem>

#include "base/build_info.h"
#include "base/exit_signals.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

namespace fs = std::filesystem;

// The places the torch part may be, relative to the executable's directory:
// lib/ under it (the build tree: build/spyre-regress, build/lib/), or lib/
// beside it (an installed bin/ and lib/).
std::vector<std::string> TorchPartCandidates(const fs::path& exe_dir) {
  return {(exe_dir / "lib" / SPYRE_TORCH_PART_FILE).string(),
          (exe_dir.parent_path() / "lib" / SPYRE_TORCH_PART_FILE).lexically_normal().string()};
}

StatusOr<const TorchVerbs*> LoadTorchPart() {
  const std::string exe = ExecutablePath();
  if (exe.empty()) {
    return InternalError("cannot find this executable (/proc/self/exe), which the torch part (" +
                         std::string(SPYRE_TORCH_PART_FILE) + ") is found beside");
  }
  const std::vector<std::string> candidates = TorchPartCandidates(fs::path(exe).parent_path());
  std::string path;
  std::error_code ec;
  for (const std::string& c : candidates) {
    if (fs::exists(c, ec)) {
      path = c;
      break;
    }
  }
  if (path.empty()) {
    return NotFound("the torch part of spyre-regress is missing: no " + candidates[0] + " (nor " +
                    candidates[1] + "): build the target spyre-regress again (it builds lib/" +
                    SPYRE_TORCH_PART_FILE + "), or copy lib/ with the binary");
  }
  // Lazy binding, as for a program that links libtorch: its functions are
  // bound when first called.
  void* handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return IoError("cannot load the torch part of spyre-regress, " + path + ": " +
                   (why != nullptr ? why : "unknown error") +
                   ": it needs libtorch and the libraries it links (`ldd " + path +
                   "` names any that is missing)");
  }
  using EntryFn = const TorchVerbs* (*)();
  auto entry = reinterpret_cast<EntryFn>(::dlsym(handle, kTorchPartEntry));
  const TorchVerbs* verbs = entry != nullptr ? entry() : nullptr;
  if (verbs == nullptr || verbs->interface != kTorchPartInterface ||
      std::strcmp(verbs->version, HarnessVersion()) != 0 ||
      std::strcmp(verbs->revision, HarnessGitRevision()) != 0) {
    const std::string theirs =
        verbs == nullptr ? std::string("no entry point ") + kTorchPartEntry
                         : std::string("version ") + verbs->version + ", revision " + verbs->revision;
    return InvalidInput("the torch part of spyre-regress at " + path +
                        " is from another build (" + theirs + "; this program: version " +
                        HarnessVersion() + ", revision " + HarnessGitRevision() +
                        "): build the target spyre-regress again, or copy lib/ with the binary");
  }
  // libtorch 2.x hooks SIGINT and SIGHUP when it loads (to set a flag of its
  // own): ours go back in, so that a signal still ends the verb or stops the run.
  if (ExitSignalsInstalled()) InstallExitSignals();
  return verbs;
}

}  // namespace

std::string ExecutablePath() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  return buf;
}

StatusOr<const TorchVerbs*> TorchPart(const std::string& verb) {
  static const StatusOr<const TorchVerbs*> loaded = LoadTorchPart();
  if (!loaded.ok()) return loaded.status().WithContext("`" + verb + "` needs libtorch");
  return *loaded;
}

}  // namespace harness::cli
