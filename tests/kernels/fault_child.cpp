// A child process for the fault tests: runs one op on the device under the
// SPYRE_EMU_FAULTS it inherits, prints "survived" and exits 0. The tests
// check that abort, segv and hang end it the way they say.
#include <ATen/ATen.h>

#include <cstdio>
#include <string>

#include "spyre_emu/spyre_emu.h"

int main(int argc, char** argv) {
  const std::string op = argc > 1 ? argv[1] : "mm";
  const at::Tensor x = at::ones({8, 8}, at::kHalf).to(spyre_emu::device());
  at::Tensor y;
  if (op == "mm")
    y = at::mm(x, x);
  else if (op == "gelu")
    y = at::gelu(x);
  else if (op == "_softmax")
    y = at::softmax(x, -1);
  else
    y = x + x;
  std::printf("survived %f\n", y.to(at::kFloat).cpu().sum().item<float>());
  return 0;
}
