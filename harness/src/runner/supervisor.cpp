// The supervisor loop: one poll() over every worker's pipes and the interrupt
// pipe, with the nearest case deadline as its timeout. Single-threaded, so
// results are recorded in the order they arrive and the store has one writer.
#include <poll.h>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>

#include "harness/runner/supervisor.h"
#include "runner/interrupt.h"
#include "runner/worker_process.h"

namespace harness {
namespace {
using runner_internal::InterruptWatch;
using runner_internal::WorkerProcess;
using Clock = std::chrono::steady_clock;

struct Slot {
  std::unique_ptr<WorkerProcess> worker;
  FrameDecoder decoder;
  bool ready = false;                 // hello received
  std::optional<size_t> item;         // the case in flight
  Clock::time_point deadline;         // of the case in flight, or of the hello
  Clock::time_point case_started;
  Clock::time_point spawned;
};

Clock::time_point After(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

class Supervisor {
 public:
  Supervisor(const std::vector<WorkItem>& items, const SupervisorOptions& options,
             const RecordFn& record, RunListener* listener)
      : items_(items), options_(options), record_(record), listener_(listener),
        slots_(static_cast<size_t>(std::max(1, std::min<int>(options.jobs, static_cast<int>(items.size()))))) {
    for (size_t i = 0; i < items.size(); ++i) pending_.push_back(i);
  }

  StatusOr<SupervisorOutcome> Run() {
    while (!pending_.empty() || InFlight() > 0) {
      if (watch_.interrupted()) return Interrupted();
      SPYRE_RETURN_IF_ERROR(StartAndDispatch());
      SPYRE_RETURN_IF_ERROR(WaitAndHandle());
    }
    for (Slot& slot : slots_) {
      if (!slot.worker) continue;
      bool clean = false;
      slot.worker->Reap(2000, &clean);
      slot.worker.reset();
    }
    if (watch_.interrupted()) return Interrupted();
    return outcome_;
  }

 private:
  size_t InFlight() const {
    size_t n = 0;
    for (const Slot& s : slots_) n += s.item.has_value() ? 1 : 0;
    return n;
  }

  SupervisorOutcome Interrupted() {
    for (Slot& slot : slots_) slot.worker.reset();  // kills and reaps
    outcome_.interrupted = true;
    outcome_.signal_number = watch_.signal_number();
    watch_.Handled();
    return outcome_;
  }

  Status StartAndDispatch() {
    size_t idle_or_starting = 0;
    for (const Slot& s : slots_) idle_or_starting += (s.worker && !s.item) ? 1 : 0;
    for (Slot& slot : slots_) {
      if (slot.worker || idle_or_starting >= pending_.size()) continue;
      const Clock::time_point spawned = Clock::now();
      SPYRE_ASSIGN_OR_RETURN(auto w,
                             WorkerProcess::Spawn(options_.worker_argv, options_.worker_env,
                                                 options_.exec_workers));
      slot.worker = std::move(w);
      slot.decoder = FrameDecoder();
      slot.ready = false;
      slot.deadline = After(options_.start_timeout_s);
      slot.spawned = spawned;
      ++outcome_.workers_started;
      ++idle_or_starting;
    }
    for (Slot& slot : slots_) {
      if (!slot.worker || !slot.ready || slot.item || pending_.empty()) continue;
      const size_t index = pending_.front();
      pending_.pop_front();
      const WorkItem& item = items_[index];
      slot.item = index;
      slot.case_started = Clock::now();
      slot.deadline = After(item.timeout_s);
      if (listener_ != nullptr) listener_->OnCaseStarted(item);
      // A failed send means the worker is already gone; its end-of-file is
      // handled by the poll below and blames this case, which it was given.
      nlohmann::json request = {
          {"suite", item.suite}, {"case", item.case_id}, {"timed", item.timed}};
      if (!item.judged) request["judged"] = false;
      if (item.paired) {
        request["paired"] = {{"baseline_faults", item.paired->baseline_faults},
                             {"candidate_faults", item.paired->candidate_faults},
                             {"baseline_first", item.paired->baseline_first}};
      }
      (void)slot.worker->Send(request);
    }
    return Status::Ok();
  }

  Status WaitAndHandle() {
    std::vector<pollfd> fds = {{watch_.fd(), POLLIN, 0}};
    std::optional<Clock::time_point> nearest;
    for (const Slot& s : slots_) {
      if (!s.worker) continue;
      fds.push_back({s.worker->result_fd(), POLLIN, 0});
      if (s.worker->output_fd() >= 0) fds.push_back({s.worker->output_fd(), POLLIN, 0});
      if (!nearest || s.deadline < *nearest) nearest = s.deadline;
    }
    int timeout_ms = -1;
    if (nearest) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*nearest - Clock::now()).count();
      timeout_ms = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(left + 1, 60000)));
    }
    ::poll(fds.data(), fds.size(), timeout_ms);  // EINTR: just look again
    for (Slot& slot : slots_) {
      if (!slot.worker) continue;
      slot.worker->PumpOutput();
      const bool alive = slot.worker->PumpResults(&slot.decoder);
      SPYRE_RETURN_IF_ERROR(HandleFrames(slot));
      if (!slot.worker) continue;
      if (!alive) {
        SPYRE_RETURN_IF_ERROR(HandleDeath(slot));
      } else if (Clock::now() >= slot.deadline) {
        SPYRE_RETURN_IF_ERROR(HandleDeadline(slot));
      }
    }
    return Status::Ok();
  }

  Status HandleFrames(Slot& slot) {
    for (;;) {
      StatusOr<std::optional<nlohmann::json>> frame = slot.decoder.Next();
      if (!frame.ok()) return Protocol(slot, frame.status().message());
      if (!frame->has_value()) return Status::Ok();
      const nlohmann::json& msg = **frame;
      const std::string type = msg.value("type", "");
      if (type == "hello" && !slot.ready) {
        const int threads = msg.value("threads", 0);
        if (options_.expected_threads > 0 && threads != options_.expected_threads) {
          return InternalError("a worker runs " + std::to_string(threads) + " libtorch threads, " +
                               std::to_string(options_.expected_threads) + " were asked for");
        }
        slot.ready = true;
        start_failures_ = 0;
        if (msg.value("device_preloaded", false)) ++outcome_.workers_preloaded;
        outcome_.startup_s.push_back(
            std::chrono::duration<double>(Clock::now() - slot.spawned).count());
      } else if (type == "result" && slot.item) {
        const WorkItem& item = items_[*slot.item];
        StatusOr<CaseResult> r = CaseResultFromJson(msg.value("result", nlohmann::json()));
        CaseResult result;
        if (!r.ok()) {
          result = Synthesized(item, CaseStatus::kError, "malformed result record: " + r.status().message());
        } else if (r->suite != item.suite || r->case_id != item.case_id) {
          result = Synthesized(item, CaseStatus::kError, "the worker answered for another case (" +
                                                             r->suite + "/" + r->case_id + ")");
        } else {
          result = std::move(*r);
        }
        nlohmann::json& harness = result.extra["harness"];
        harness["elapsed_us"] =
            std::chrono::duration<double, std::micro>(Clock::now() - slot.case_started).count();
        harness["worker_pid"] = slot.worker->pid();
        slot.item.reset();
        SPYRE_RETURN_IF_ERROR(Finish(std::move(result)));
      } else {
        return Protocol(slot, "unexpected '" + type + "' record");
      }
    }
  }

  // A worker broke the protocol: it is replaced; its case (if any) is an error.
  Status Protocol(Slot& slot, const std::string& why) {
    slot.worker->Kill();
    bool clean = false;
    slot.worker->Reap(1000, &clean);
    std::optional<size_t> item = slot.item;
    slot.worker.reset();
    slot.item.reset();
    if (!item) return InternalError("worker protocol error: " + why);
    return Finish(Synthesized(items_[*item], CaseStatus::kError, "worker protocol error: " + why));
  }

  Status HandleDeath(Slot& slot) {
    bool clean = false;
    const std::string how = slot.worker->Reap(1000, &clean);
    const std::string tail = slot.worker->OutputTail();
    std::optional<size_t> item = slot.item;
    const bool was_ready = slot.ready;
    slot.worker.reset();
    slot.item.reset();
    if (item) {
      std::string message = "worker " + how + " while running the case";
      if (!tail.empty()) message += "; its last output: " + tail;
      return Finish(Synthesized(items_[*item], CaseStatus::kCrashed, message));
    }
    if (was_ready) return Status::Ok();  // died between cases: just replace it
    if (++start_failures_ >= options_.max_start_failures) {
      return InternalError("workers die before they are ready (" + how + ")" +
                           (tail.empty() ? std::string() : ": " + tail));
    }
    return Status::Ok();
  }

  Status HandleDeadline(Slot& slot) {
    slot.worker->Kill();
    bool clean = false;
    slot.worker->Reap(1000, &clean);
    std::optional<size_t> item = slot.item;
    slot.worker.reset();
    slot.item.reset();
    if (!item) {  // never said hello
      if (++start_failures_ >= options_.max_start_failures) {
        return InternalError("workers do not start within " +
                             std::to_string(static_cast<int>(options_.start_timeout_s)) + " s");
      }
      return Status::Ok();
    }
    const WorkItem& w = items_[*item];
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%g", w.timeout_s);
    return Finish(Synthesized(w, CaseStatus::kTimeout,
                              std::string("no result within the ") + secs +
                                  " s case timeout; the worker was killed"));
  }

  static CaseResult Synthesized(const WorkItem& item, CaseStatus status, const std::string& message) {
    CaseResult r;
    r.suite = item.suite;
    r.case_id = item.case_id;
    r.status = status;
    r.message = message;
    return r;
  }

  Status Finish(CaseResult result) {
    SPYRE_RETURN_IF_ERROR(record_(result));
    ++outcome_.finished;
    if (listener_ != nullptr) listener_->OnCaseFinished(result, outcome_.finished, items_.size());
    return Status::Ok();
  }

  const std::vector<WorkItem>& items_;
  const SupervisorOptions& options_;
  const RecordFn& record_;
  RunListener* listener_;
  std::deque<size_t> pending_;
  std::vector<Slot> slots_;
  SupervisorOutcome outcome_;
  int start_failures_ = 0;
  InterruptWatch watch_;
};

}  // namespace

StatusOr<SupervisorOutcome> RunCases(const std::vector<WorkItem>& items,
                                     const SupervisorOptions& options, const RecordFn& record,
                                     RunListener* listener) {
  if (options.worker_argv.empty()) return InternalError("RunCases: no worker command");
  if (items.empty()) return SupervisorOutcome();
  Supervisor supervisor(items, options, record, listener);
  return supervisor.Run();
}

}  // namespace harness
