// OutputFile and the checks before it: a file written whole or not at all,
// never over the store or into the suites or golden directory.
#include "base/output_file.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

size_t Partials(const std::string& dir) {
  size_t n = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    n += f.path().filename().string().find(".partial-") != std::string::npos;
  }
  return n;
}

TEST(OutputFileTest, CommitReplacesTheTargetWhole) {
  spyre_test::TempDir dir;
  const std::string target = dir.File("out.csv");
  std::ofstream(target) << "old";
  auto out = OutputFile::Create(target, "export");
  ASSERT_TRUE(out.ok()) << out.status().message();
  (*out)->stream() << "new contents\n";
  EXPECT_EQ(spyre_test::ReadFile(target), "old") << "the target changes only at the rename";
  EXPECT_EQ(Partials(dir.path()), 1u);
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ(spyre_test::ReadFile(target), "new contents\n");
  EXPECT_EQ(Partials(dir.path()), 0u);
}

TEST(OutputFileTest, DestroyedWithoutCommitLeavesTheTargetAndNoPartialFile) {
  spyre_test::TempDir dir;
  const std::string target = dir.File("out.csv");
  std::ofstream(target) << "old";
  {
    auto out = OutputFile::Create(target, "export");
    ASSERT_TRUE(out.ok());
    (*out)->stream() << "half";
    ASSERT_TRUE((*out)->Finish().ok());
  }
  EXPECT_EQ(spyre_test::ReadFile(target), "old");
  EXPECT_EQ(Partials(dir.path()), 0u);
}

// A write that fails (here a file-size limit; a full disk is the same
// errno path) is an error naming the target, and nothing is left.
TEST(OutputFileTest, AFailedWriteIsAnErrorAndRemovesThePartialFile) {
  spyre_test::TempDir dir;
  const std::string target = dir.File("big.csv");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    auto out = OutputFile::Create(target, "export");
    if (!out.ok()) ::_exit(10);
    (*out)->stream() << std::string(1 << 20, 'x');
    const Status s = (*out)->Commit();
    const bool named = s.message().find("big.csv") != std::string::npos &&
                       s.message().find("nothing was written") != std::string::npos;
    ::_exit(s.ok() ? 11 : named ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: not created, 11: no error, 12: unnamed";
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(Partials(dir.path()), 0u);
}

TEST(OutputFileTest, APartialFileOfAProcessThatIsGoneIsRemovedByTheNextWriter) {
  spyre_test::TempDir dir;
  const std::string target = dir.File("out.csv");
  const std::string stale = target + ".partial-2147483646";  // no such process
  const std::string alive = target + ".partial-1";           // init: never ours to remove
  std::ofstream(stale) << "left by kill -9";
  std::ofstream(alive) << "a live writer's";
  std::ofstream(stale + "-wal") << "its WAL";
  auto out = OutputFile::Create(target, "export");
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale + "-wal"));
  EXPECT_TRUE(fs::exists(alive));
}

TEST(OutputFileTest, DirectoriesMadeForAFailedWriteAreRemovedIfEmpty) {
  spyre_test::TempDir dir;
  {
    OutputDirectory made;
    ASSERT_TRUE(made.Create(dir.File("a/b/c/")).ok());
    EXPECT_TRUE(fs::is_directory(dir.File("a/b/c")));
  }
  EXPECT_FALSE(fs::exists(dir.File("a"))) << "nothing written: nothing left";
  {
    OutputDirectory made;
    ASSERT_TRUE(made.Create(dir.File("x/y")).ok());
    std::ofstream(dir.File("x/y/someone-elses.txt")) << "kept";
  }
  EXPECT_TRUE(fs::exists(dir.File("x/y/someone-elses.txt"))) << "a directory in use stays";
  {
    OutputDirectory made;
    ASSERT_TRUE(made.Create(dir.File("kept/z")).ok());
    made.Keep();
  }
  EXPECT_TRUE(fs::is_directory(dir.File("kept/z")));
  std::ofstream(dir.File("plain")) << "a file";
  OutputDirectory under_a_file;
  EXPECT_FALSE(under_a_file.Create(dir.File("plain/sub")).ok());
}

TEST(OutputFileTest, TheStoreItsCompanionsAndProtectedDirectoriesAreRefused) {
  spyre_test::TempDir dir;
  fs::create_directories(dir.File("suites"));
  fs::create_directories(dir.File("golden/s"));
  const std::string store = dir.File("s.db");
  std::ofstream(store) << "a store";
  fs::create_symlink(store, dir.File("link.db"));
  fs::create_hard_link(store, dir.File("hard.db"));
  const ProtectedPaths p{store, dir.File("suites"), dir.File("golden")};
  for (const std::string& bad :
       {store, store + "-wal", store + "-shm", store + "-journal", dir.File("link.db"),
        dir.File("hard.db"), dir.File("./s.db"), dir.File("suites/x.json"),
        dir.File("golden/s/c.safetensors"), std::string("/dev/null"), dir.File("golden")}) {
    const Status s = CheckOutputFile(bad, p, "export --out");
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("nothing was written"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(CheckOutputFile(dir.File("out.csv"), p, "export --out").ok());
  EXPECT_FALSE(CheckOutputDir(dir.File("golden/s"), p, "report --out").ok());
  EXPECT_FALSE(CheckOutputDir(store, p, "report --out").ok());
  EXPECT_TRUE(CheckOutputDir(dir.File("reports"), p, "report --out").ok());
}

}  // namespace
}  // namespace harness
