#pragma once
// Files a verb writes for the user (an export, a report, a backup, a golden
// file): checked before anything is written, then written whole or not at all.
//
//   SPYRE_RETURN_IF_ERROR(CheckOutputFile(path, protect, "export --out"));
//   SPYRE_ASSIGN_OR_RETURN(auto out, OutputFile::Create(path, "export"));
//   out->stream() << text;
//   SPYRE_RETURN_IF_ERROR(out->Commit());   // every write checked, fsync, rename
//
// The bytes go to a temporary file beside the target, `NAME.partial-PID`,
// which is removed on any failure, when the OutputFile is destroyed without
// Commit, and when SIGINT, SIGTERM or SIGHUP end the program (exit_signals.h).
// One left by a process that was killed outright (kill -9) is removed by the
// next OutputFile for the same target, once its process is gone.
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "base/exit_signals.h"
#include "base/status.h"

namespace harness {

// The files a verb must never write over or into: the store and its SQLite
// companions (-wal, -shm, -journal), and the suites and golden directories.
struct ProtectedPaths {
  std::string store;
  std::string suites_dir;
  std::string golden_dir;
};

// Refuses a target file that is the store or one of its companions (by name,
// through symlinks, or the same inode), that lies inside the suites or golden
// directory, or that exists and is not a regular file (a directory, a device
// such as /dev/null, a FIFO). `flag` names the option in the message.
Status CheckOutputFile(const std::string& path, const ProtectedPaths& protect,
                       const std::string& flag);
// The same for a directory a verb writes files into: it must not be, or lie
// inside, the suites or golden directory, and must be a directory if it exists.
Status CheckOutputDir(const std::string& dir, const ProtectedPaths& protect,
                      const std::string& flag);

// Removes `TARGET.partial-PID` files (and their -wal/-shm/-journal) whose
// process is gone: what a writer killed outright left behind.
void RemoveStalePartials(const std::string& target);

class OutputFile {
 public:
  // Creates the temporary file beside `path`. `verb` starts messages.
  static StatusOr<std::unique_ptr<OutputFile>> Create(const std::string& path,
                                                      const std::string& verb);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  // Flushes and checks every write, syncs and closes the temporary file,
  // without moving it into place yet: a verb writing several files finishes
  // them all before it commits any. On failure it is removed.
  Status Finish();
  // Finishes (when not yet done) and renames it over the target. On failure
  // the temporary file is removed and the target is as it was; the message
  // names the target and the reason.
  Status Commit();
  const std::string& path() const;

  struct Impl;

 private:
  explicit OutputFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Creates a directory a verb writes into, and its missing parents. Unless
// Keep() is called, the ones it created are removed again when it is
// destroyed, if they are still empty: a verb that fails (a full disk, a
// signal caught by the caller) leaves no empty directory behind.
class OutputDirectory {
 public:
  OutputDirectory() = default;
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  // On failure the message is the system's reason ("Permission denied",
  // "Not a directory"); the caller says what it was creating.
  Status Create(const std::string& dir);
  void Keep() {
    created_.clear();
    guards_.clear();
  }

 private:
  std::vector<std::string> created_;  // deepest first
  std::vector<std::unique_ptr<TempFileGuard>> guards_;  // removed on a signal too
};

// The name of a temporary file for `target` that this process owns:
// `TARGET.partial-PID`. Also used for SQLite files written aside (backup).
std::string PartialPath(const std::string& target);

}  // namespace harness
