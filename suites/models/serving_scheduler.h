#pragma once
// Continuous batching over a scripted arrival trace, torch-free.
//
//   ServingScheduler s(trace, limits);
//   while (!s.Done()) {
//     const StepPlan& plan = s.Plan();        // what this step computes
//     ... run plan.work on the model, one next token per work item ...
//     s.Commit(next_tokens);                  // retire finished requests
//   }
//
// Each step, every running request decodes one token (in admission order),
// then waiting requests that have arrived are admitted in arrival order
// (ties by trace order) while the step's token budget, the running-batch
// limit and the KV pool allow; an admitted request's whole prompt is
// prefilled in that step and yields its first token. A request that
// cannot be admitted holds back the ones behind it (first come, first
// served). Admission reserves the KV blocks the request can ever need
// (prompt + max_new_tokens - 1 positions: the last token is never fed
// back), so a running request never waits for a block; blocks are taken
// as its cache grows and all given back when it retires, on its
// max_new_tokens-th token or on its stop token, whichever comes first.
// A step with nothing to run (no request arrived yet) is an empty plan.
//
// Faults (SchedulerFaults) make the scheduler misbehave on purpose, so
// that the serving case can show it catches each: a request dropped from
// the running batch without finishing, a block given back while its
// request still reads it.
#include <cstdint>
#include <string>
#include <vector>

#include "kv_blocks.h"

namespace suites {

struct ServingRequest {
  std::string id;
  int64_t arrival_step = 0;
  int64_t prompt_len = 1;
  int64_t max_new_tokens = 1;
  int64_t stop_token = -1;  // -1: none
};

struct SchedulerLimits {
  int64_t token_budget = 64;  // tokens one step computes, prefill and decode together
  int64_t max_running = 8;    // requests in the running batch
  int64_t block_size = 16;    // token positions per KV block
  int64_t kv_blocks = 64;     // blocks in the pool
};

// Why a trace cannot be served under `limits`, naming the first request
// that cannot ("" when every request can): a prompt longer than the token
// budget, or more KV blocks than the pool holds.
std::string TraceProblem(const std::vector<ServingRequest>& trace, const SchedulerLimits& limits);

enum class WorkKind { kPrefill, kDecode };

struct ScheduledWork {
  int64_t request = 0;  // index in the trace
  WorkKind kind = WorkKind::kDecode;
  int64_t position = 0;  // first cache position it writes
  int64_t tokens = 1;    // positions it computes: the prompt length, or 1
};

struct StepPlan {
  int64_t step = 0;
  std::vector<ScheduledWork> work;    // decodes first, then prefills
  std::vector<int64_t> freed_blocks;  // given back since the previous plan
  int64_t blocks_in_use = 0;          // after this plan's allocations
};

struct SchedulerFaults {
  // The request (trace index) leaves the running batch unfinished at the
  // start of `drop_step`; -1: none.
  int64_t drop_request = -1;
  int64_t drop_step = -1;
  // At the start of `free_early_step`, the request's first block goes back
  // to the pool while its block table still names it; -1: none.
  int64_t free_early_request = -1;
  int64_t free_early_step = -1;
};

// Which faults took effect: one aimed at a step where its request was not
// there to be hit (finished, or not yet holding blocks) does nothing.
struct FaultsFired {
  bool drop = false;
  bool free_early = false;
};

enum class RequestState { kWaiting, kRunning, kFinished, kDropped };
enum class FinishReason { kNone, kMaxTokens, kStopToken };

// What happened to one request, in steps.
struct RequestRecord {
  RequestState state = RequestState::kWaiting;
  FinishReason reason = FinishReason::kNone;
  int64_t admitted_step = -1;        // its prefill step, which yields its first token
  int64_t finished_step = -1;        // the step that yielded its last token
  std::vector<int64_t> tokens;       // generated so far
  std::vector<int64_t> token_steps;  // the step that yielded each
  std::vector<int64_t> blocks;       // its block table
};

class ServingScheduler {
 public:
  ServingScheduler(std::vector<ServingRequest> trace, SchedulerLimits limits,
                   SchedulerFaults faults = {});

  // Plans the next step. Call Commit before the next Plan.
  const StepPlan& Plan();
  // The next token of each work item of the last plan, in its order.
  void Commit(const std::vector<int64_t>& next_tokens);
  // Every request finished or dropped.
  bool Done() const;

  const std::vector<ServingRequest>& trace() const { return trace_; }
  const RequestRecord& record(int64_t request) const { return records_[request]; }
  int64_t steps() const { return step_; }  // steps planned so far
  int64_t peak_blocks() const { return pool_.peak_in_use(); }
  int64_t blocks_in_use() const { return pool_.in_use(); }
  const BlockAllocator& pool() const { return pool_; }
  const FaultsFired& faults_fired() const { return fired_; }

 private:
  int64_t CachedPositions(int64_t request) const;
  int64_t WorstCaseBlocks(int64_t request) const;
  int64_t ReservedBlocks() const;  // still to be taken by running requests
  void GrowTable(int64_t request, int64_t positions);
  void Release(int64_t request);
  void ApplyFaults();
  void Admit(int64_t* budget);

  std::vector<ServingRequest> trace_;
  SchedulerLimits limits_;
  SchedulerFaults faults_;
  FaultsFired fired_;
  BlockAllocator pool_;
  std::vector<RequestRecord> records_;
  std::vector<int64_t> running_;      // admission order
  std::vector<int64_t> waiting_;      // arrival order
  std::vector<int64_t> freed_;        // since the last plan
  std::vector<int64_t> early_freed_;  // per request: a block freed early, or -1
  StepPlan plan_;
  bool committed_ = true;
  int64_t step_ = 0;
};

}  // namespace suites
