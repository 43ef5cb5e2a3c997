#pragma once
// Loading a backend library runs its kernel registrations (static
// initialisers) inside dlopen. When one of them does not fit this libtorch
// (a kernel written against another version's operator schema), libtorch
// throws from inside the loader, where nothing can catch it, and the process
// would end in std::terminate with a raw stack.
//
// A RegistrationGuard, alive around such a dlopen, turns that end into one
// line on stderr and exit code 2:
//
//   spyre-regress: error: device library /x/libspyre_emu.so does not fit
//   libtorch 2.6.0: aten::var.correction: its kernel is
//   `at::Tensor (at::Tensor const&, ...)`, libtorch's schema wants
//   `at::Tensor (at::Tensor const&, ...)`; rebuild the library against this libtorch
//
// (on one line). Only one guard may be alive at a time; it restores the
// previous terminate handler when it goes.
#include <exception>
#include <string>

namespace harness {

class RegistrationGuard {
 public:
  // library: the path or flag named in the message. report = false ends the
  // process with exit code 2 and no message: for a process that loads the
  // library ahead of time (a worker zygote) while another reports.
  explicit RegistrationGuard(std::string library, bool report = true);
  ~RegistrationGuard();
  RegistrationGuard(const RegistrationGuard&) = delete;
  RegistrationGuard& operator=(const RegistrationGuard&) = delete;

 private:
  std::terminate_handler previous_;
};

// The one-line message for a registration failure, from the library label,
// the libtorch version and libtorch's error text (exposed for tests). For a
// signature mismatch it names the operator and both C++ signatures; any other
// error keeps its first line.
std::string DescribeRegistrationFailure(const std::string& library,
                                        const std::string& libtorch_version,
                                        const std::string& error_text);

}  // namespace harness
