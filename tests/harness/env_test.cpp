#include "harness/env.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <gtest/gtest.h>

namespace {

// True when the system's linker cache lists an OpenBLAS library, i.e. it is
// installed (ci/setup installs libopenblas0-pthread).
bool OpenBlasInstalled() {
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen("/sbin/ldconfig -p 2>/dev/null", "r"), ::pclose);
  if (!p) return false;
  char line[1024];
  while (std::fgets(line, sizeof(line), p.get())) {
    if (std::string(line).find("libopenblas") != std::string::npos) return true;
  }
  return false;
}

TEST(EnvTest, FingerprintHasEveryContractField) {
  auto fp = harness::CollectFingerprint({{"vllm", "0.9.1"}});
  ASSERT_TRUE(fp.ok()) << fp.status().message();
  for (const char* key : {"libtorch", "blas", "compiler", "spyre_emu", "profile", "rounding", "cores",
                          "faults", "os", "cpu", "threads", "harness", "tags"}) {
    EXPECT_TRUE(fp->contains(key)) << key;
  }
  EXPECT_EQ((*fp)["libtorch"], harness::DetectLibtorch().version);
  EXPECT_EQ((*fp)["libc"].get<std::string>().rfind("glibc 2.", 0), 0u) << (*fp)["libc"];
  EXPECT_EQ((*fp)["tags"]["vllm"], "0.9.1");
  EXPECT_FALSE((*fp)["harness"]["git"].get<std::string>().empty());
  EXPECT_FALSE((*fp)["cpu"].get<std::string>().empty());
}

TEST(EnvTest, BlasNamesOpenBlasWhenInstalled) {
  if (!OpenBlasInstalled()) {
    GTEST_SKIP() << "OpenBLAS is not installed here; ci/setup installs it";
  }
  harness::BlasInfo blas = harness::DetectBlas();
  EXPECT_EQ(blas.name, "OpenBLAS") << blas.path;
  EXPECT_EQ(blas.version.rfind("0.", 0), 0u) << blas.version;
  EXPECT_NE(blas.config.find("OpenBLAS"), std::string::npos);
}

// The version dpkg has for the package that installed libtorch, or "" when
// libtorch came from elsewhere.
std::string DpkgLibtorchVersion() {
  std::unique_ptr<FILE, int (*)(FILE*)> p(
      ::popen("dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null", "r"), ::pclose);
  char buf[128] = {};
  if (!p || std::fgets(buf, sizeof(buf), p.get()) == nullptr) return "";
  return buf;
}

TEST(EnvTest, LibtorchVersionIsThePackagesNotTheHeadersGuess) {
  const harness::LibtorchInfo info = harness::DetectLibtorch();
  EXPECT_NE(info.path.find("libtorch_cpu"), std::string::npos) << info.path;
  const std::string dpkg = DpkgLibtorchVersion();
  if (dpkg.empty()) {
    EXPECT_EQ(info.version, info.headers);  // a libtorch no package installed
    return;
  }
  // Debian's 1.13.1 headers say 1.13.0; the loaded library is 1.13.1.
  EXPECT_EQ(info.version, harness::UpstreamVersion(dpkg)) << info.package;
  EXPECT_NE(info.package.find(dpkg), std::string::npos) << info.package;
}

TEST(EnvTest, UpstreamVersionDropsEpochRepackAndRevision) {
  EXPECT_EQ(harness::UpstreamVersion("1.13.1+dfsg-4"), "1.13.1");
  EXPECT_EQ(harness::UpstreamVersion("1:2.6.0+dfsg-7"), "2.6.0");
  EXPECT_EQ(harness::UpstreamVersion("2.14.1~rc2-1"), "2.14.1");
  EXPECT_EQ(harness::UpstreamVersion("0.3.29"), "0.3.29");
}

TEST(EnvTest, BlasVersionIsNeverEmpty) {
  harness::BlasInfo blas = harness::DetectBlas();
  ASSERT_NE(blas.name, "none");
  EXPECT_FALSE(blas.version.empty()) << blas.path;
  EXPECT_EQ(blas.path.front(), '/');
}

TEST(EnvTest, ThreadsAreSetExplicitly) {
  auto n = harness::ConfigureThreads(2);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  auto fp = harness::CollectFingerprint({});
  ASSERT_TRUE(fp.ok());
  EXPECT_EQ((*fp)["threads"], 2);
}

TEST(EnvTest, EmulatorSettingsAreRecordedAndChangeTheHash) {
  auto a = harness::CollectFingerprint({});
  ::setenv("SPYRE_EMU_PROFILE", "sendnn", 1);
  auto b = harness::CollectFingerprint({});
  ::setenv("SPYRE_EMU_PROFILE", "bogus", 1);
  auto c = harness::CollectFingerprint({});
  ::unsetenv("SPYRE_EMU_PROFILE");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)["profile"], "inductor");
  EXPECT_EQ((*b)["profile"], "sendnn");
  EXPECT_NE(harness::FingerprintHash(*a), harness::FingerprintHash(*b));
  EXPECT_EQ(harness::FingerprintHash(*a), harness::FingerprintHash(*a));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("SPYRE_EMU_PROFILE"), std::string::npos);
}

}  // namespace
