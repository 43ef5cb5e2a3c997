// Fuzz entry: the Hugging Face config.json reader (suites/models:
// LoadCheckpointConfig -> ConfigFromHfJson -> ModelConfig::Check), then what
// the checkpoint loader does next with an accepted config: list the tensors
// it implies and count the parameters. Any bytes must give an error naming
// config.json, or a config whose sizes are usable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "scratch_dir.h"
#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = spyre_fuzz::ScratchDir();
  spyre_fuzz::WriteFile(dir + "/config.json", reinterpret_cast<const char*>(data), size);
  auto config = suites::LoadCheckpointConfig(dir);
  if (!config.ok()) {
    const std::string& m = config.status().message();
    FUZZ_CHECK(m.find("config.json") != std::string::npos, m);
    return 0;
  }
  FUZZ_CHECK(config->Check().ok(), config->Check().message());
  FUZZ_CHECK(config->head_dim() > 0, "head_dim");
  FUZZ_CHECK(config->Parameters() > 0, "parameter count");
  for (const auto& [name, shape] : suites::ExpectedTensors(*config)) {
    for (int64_t d : shape) FUZZ_CHECK(d > 0, name);
  }
  return 0;
}
