// train_tiny_lm: trains the small byte-level Llama of suites/models/fortunes
// on the text of Debian's fortune packages (ci/setup train) and writes its
// checkpoint directory. Deterministic from --seed for a given thread count
// and BLAS kernel. Not part of ci/test: the committed checkpoint is the
// product; tests/models trains a few steps to check that the loss falls.
//
//   build/train_tiny_lm --out suites/models/fortunes [--seed 1] [--steps 8000]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "suites/models/tiny_lm.h"

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The installed version of a Debian package, from dpkg's status file; ""
// when it is not installed or the file is not there.
std::string PackageVersion(const std::string& package) {
  std::ifstream in("/var/lib/dpkg/status");
  std::string line;
  bool ours = false;
  while (std::getline(in, line)) {
    if (line.empty()) {
      ours = false;
    } else if (line.rfind("Package: ", 0) == 0) {
      ours = line.substr(9) == package;
    } else if (ours && line.rfind("Version: ", 0) == 0) {
      return line.substr(9);
    }
  }
  return "";
}

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "train_tiny_lm: %s\nusage: train_tiny_lm --out DIR [--seed N] [--steps N] "
               "[--threads N] [--fortunes DIR]\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, fortunes = "/usr/share/games/fortunes";
  suites::TrainOptions o;
  o.steps = 8000;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return Usage("'" + a + "' needs a value");
    const std::string v = argv[++i];
    if (a == "--out") {
      out = v;
    } else if (a == "--seed") {
      o.seed = std::stoull(v);
    } else if (a == "--steps") {
      o.steps = std::stoll(v);
    } else if (a == "--threads") {
      threads = std::stoi(v);
    } else if (a == "--fortunes") {
      fortunes = v;
    } else {
      return Usage("unknown option '" + a + "'");
    }
  }
  if (out.empty()) return Usage("--out is required");
  // The command as given, less where it wrote: the weights do not depend
  // on it, and a path of one machine says nothing on another.
  std::string command = "build/train_tiny_lm";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--out") {
      ++i;
      continue;
    }
    command += std::string(" ") + argv[i];
  }
  at::set_num_threads(threads);

  // Every strfile text file of the installed fortune packages, sorted.
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(fortunes, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().has_extension()) continue;
    files.push_back(e.path().string());
    (void)name;
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return Usage(fortunes + ": no fortune files (install them with 'ci/setup train')");
  }
  auto corpus = suites::ReadFortunes(files, /*heldout_every=*/20);
  if (!corpus.ok()) return Usage(corpus.status().message());
  const suites::ByteTokenizer tok;
  const std::vector<int64_t> train = suites::TokenStream(tok, corpus->train);
  const std::vector<int64_t> heldout = suites::TokenStream(tok, corpus->heldout);

  suites::ModelConfig config;
  config.name = "fortunes";
  config.model_type = "llama";
  config.hidden = 128;
  config.layers = 4;
  config.heads = 4;
  config.kv_heads = 2;
  config.intermediate = 352;
  config.vocab = suites::ByteTokenizer::kVocab;
  config.max_positions = 512;
  config.norm_eps = 1e-5;
  config.tie_embeddings = true;
  std::printf("corpus: %zu files, %zu training fortunes (%lld bytes), %zu held out (%lld bytes)\n",
              files.size(), corpus->train.size(), static_cast<long long>(corpus->train_bytes),
              corpus->heldout.size(), static_cast<long long>(corpus->heldout_bytes));
  std::printf("model: %lld parameters; %lld steps of %lld x %lld tokens, %d threads\n",
              static_cast<long long>(config.Parameters()), static_cast<long long>(o.steps),
              static_cast<long long>(o.batch), static_cast<long long>(o.seq), threads);
  std::fflush(stdout);

  const std::string load_before = LoadAverage();
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  suites::TinyLmTrainer trainer(config, o);
  nlohmann::json losses = nlohmann::json::array();
  double recent = 0;
  for (int64_t step = 0; step < o.steps; ++step) {
    const double loss = trainer.Step(trainer.Batch(train, step));
    recent += loss;
    const bool first = step < 3, report = (step + 1) % 50 == 0;
    if (!first && !report) continue;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (first) {
      std::printf("step %lld: loss %.4f nats, %.1f s\n", static_cast<long long>(step + 1), loss,
                  wall);
    }
    if (report) {
      std::printf("step %lld: loss %.4f nats (mean of 50), %.0f s\n",
                  static_cast<long long>(step + 1), recent / 50, wall);
      losses.push_back({{"step", step + 1}, {"loss", recent / 50}});
      recent = 0;
    }
    std::fflush(stdout);
  }
  const double train_wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double train_cpu = CpuSeconds() - cpu0;
  const std::string load_after = LoadAverage();
  const double bpb = trainer.BitsPerByte(heldout);
  const double unigram = suites::UnigramBitsPerByte(*corpus);
  std::printf("held-out: %.3f bits per byte (unigram byte model: %.3f)\n", bpb, unigram);
  std::printf("training: %.0f s wall, %.0f s CPU; load average %s before, %s after\n", train_wall,
              train_cpu, load_before.c_str(), load_after.c_str());
  // Greedy continuations of the decode suite's text prompts.
  nlohmann::json samples = nlohmann::json::array();
  for (const char* prompt : {"The best way to ", "A man walks into", "Never trust a ma",
                             "You will meet a "}) {
    const std::string sample = tok.Decode(trainer.Greedy(tok.Encode(prompt), 60));
    std::printf("sample: \"%s\" -> \"%s\"\n", prompt, sample.c_str());
    samples.push_back({{"prompt", prompt}, {"greedy", sample}});
  }

  nlohmann::json training = {
      {"command", command},
      {"data", "Debian fortunes and fortunes-min text files, every 20th fortune held out"},
      {"data_packages",
       {{"fortunes", PackageVersion("fortunes")}, {"fortunes-min", PackageVersion("fortunes-min")}}},
      {"seconds", train_wall},
      {"cpu_seconds", train_cpu},
      {"load_average", {{"before", load_before}, {"after", load_after}}},
      {"files", files.size()},
      {"train_bytes", corpus->train_bytes},
      {"heldout_bytes", corpus->heldout_bytes},
      {"seed", o.seed},
      {"steps", o.steps},
      {"batch", o.batch},
      {"seq", o.seq},
      {"lr", o.lr},
      {"threads", threads},
      {"heldout_bits_per_byte", bpb},
      {"unigram_bits_per_byte", unigram},
      {"loss", losses},
      {"samples", samples}};
  harness::Status s = suites::WriteTinyLmCheckpoint(out, config, trainer.weights(), tok, training);
  if (!s.ok()) return Usage(s.message());
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
