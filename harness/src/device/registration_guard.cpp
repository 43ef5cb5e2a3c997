#include "harness/device/registration_guard.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <utility>

#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

namespace harness {
namespace {

// The library named by the guard alive now; the terminate handler reads it.
std::string& GuardedLibrary() {
  static std::string library;
  return library;
}
bool& GuardReports() {
  static bool report = true;
  return report;
}

std::string Trim(std::string s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The text after "key:" on the first line of text that starts with key.
std::string Field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.compare(0, key.size(), key) == 0) return Trim(line.substr(key.size()));
  }
  return "";
}

[[noreturn]] void OnTerminate() {
  if (!GuardReports()) ::_exit(2);
  std::string what = "an unknown exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const c10::Error& err) {
      what = err.what_without_backtrace();
    } catch (const std::exception& err) {
      what = err.what();
    } catch (...) {
    }
  }
  const std::string line =
      "spyre-regress: error: " +
      DescribeRegistrationFailure(GuardedLibrary(), TORCH_VERSION, what) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  ::_exit(2);
}

}  // namespace

RegistrationGuard::RegistrationGuard(std::string library, bool report) {
  GuardedLibrary() = std::move(library);
  GuardReports() = report;
  previous_ = std::set_terminate(&OnTerminate);
}

RegistrationGuard::~RegistrationGuard() {
  std::set_terminate(previous_);
  GuardedLibrary().clear();
  GuardReports() = true;
}

std::string DescribeRegistrationFailure(const std::string& library,
                                        const std::string& libtorch_version,
                                        const std::string& error_text) {
  const std::string head = "device library " + library + " does not fit libtorch " +
                           libtorch_version + ": ";
  const std::string fix = "; rebuild the library against this libtorch";
  if (error_text.find("Mismatch in kernel C++ signatures") != std::string::npos) {
    std::string op = Field(error_text, "operator:");
    op = op.substr(0, op.find('('));
    // libtorch names the first registration (its own, from the schema) kernel 1
    // and the library's kernel 2.
    return head + (op.empty() ? "an operator" : op) + ": its kernel is `" +
           Field(error_text, "kernel 2:") + "`, libtorch's schema wants `" +
           Field(error_text, "kernel 1:") + "`" + fix;
  }
  std::string first = error_text.substr(0, error_text.find('\n'));
  return head + "registering its kernels failed: " + Trim(first) + fix;
}

}  // namespace harness
