// Continuous batching: admission under a token budget and a KV block
// reservation, decode before prefill, retirement on max tokens or stop.
#include "serving_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace suites {
namespace {

[[noreturn]] void SchedulerInvariant(const char* what) {
  std::fprintf(stderr, "ServingScheduler: %s\n", what);
  std::abort();
}

}  // namespace

std::string TraceProblem(const std::vector<ServingRequest>& trace, const SchedulerLimits& limits) {
  if (limits.max_running < 1 || limits.token_budget < limits.max_running) {
    return "the token budget (" + std::to_string(limits.token_budget) +
           ") must be at least the running-batch limit (" + std::to_string(limits.max_running) +
           ", at least 1): every running request decodes one token a step";
  }
  for (size_t i = 0; i < trace.size(); ++i) {
    const ServingRequest& r = trace[i];
    const std::string who = "request '" + r.id + "' (trace index " + std::to_string(i) + ")";
    if (r.prompt_len > limits.token_budget) {
      return who + " has a prompt of " + std::to_string(r.prompt_len) +
             " tokens, over the token budget of " + std::to_string(limits.token_budget) +
             " per step; raise \"token_budget\" or shorten the prompt";
    }
    const int64_t need = BlocksForTokens(r.prompt_len + r.max_new_tokens - 1, limits.block_size);
    if (need > limits.kv_blocks) {
      return who + " needs " + std::to_string(need) + " KV blocks of " +
             std::to_string(limits.block_size) + " positions, the pool has " +
             std::to_string(limits.kv_blocks) + "; raise \"kv_blocks\"";
    }
  }
  return "";
}

ServingScheduler::ServingScheduler(std::vector<ServingRequest> trace, SchedulerLimits limits,
                                   SchedulerFaults faults)
    : trace_(std::move(trace)),
      limits_(limits),
      faults_(faults),
      pool_(limits.kv_blocks),
      records_(trace_.size()),
      early_freed_(trace_.size(), -1) {
  if (!TraceProblem(trace_, limits_).empty()) SchedulerInvariant("a trace TraceProblem rejects");
  for (size_t i = 0; i < trace_.size(); ++i) waiting_.push_back(static_cast<int64_t>(i));
  std::stable_sort(waiting_.begin(), waiting_.end(), [&](int64_t a, int64_t b) {
    return trace_[a].arrival_step < trace_[b].arrival_step;
  });
}

int64_t ServingScheduler::CachedPositions(int64_t request) const {
  const RequestRecord& rec = records_[request];
  if (rec.state != RequestState::kRunning) return 0;
  // The prompt and every generated token but the newest, which the next
  // decode feeds.
  return trace_[request].prompt_len + static_cast<int64_t>(rec.tokens.size()) - 1;
}

int64_t ServingScheduler::WorstCaseBlocks(int64_t request) const {
  const ServingRequest& r = trace_[request];
  return BlocksForTokens(r.prompt_len + r.max_new_tokens - 1, limits_.block_size);
}

int64_t ServingScheduler::ReservedBlocks() const {
  int64_t reserved = 0;
  for (const int64_t r : running_) {
    reserved += WorstCaseBlocks(r) - static_cast<int64_t>(records_[r].blocks.size());
  }
  return reserved;
}

void ServingScheduler::GrowTable(int64_t request, int64_t positions) {
  std::vector<int64_t>& table = records_[request].blocks;
  while (static_cast<int64_t>(table.size()) < BlocksForTokens(positions, limits_.block_size)) {
    const std::optional<int64_t> b = pool_.Allocate();
    if (!b) SchedulerInvariant("a running request found no KV block despite its reservation");
    table.push_back(*b);
  }
}

void ServingScheduler::Release(int64_t request) {
  for (const int64_t b : records_[request].blocks) {
    if (b == early_freed_[request]) continue;  // already back in the pool
    pool_.Free(b);
    freed_.push_back(b);
  }
  running_.erase(std::find(running_.begin(), running_.end(), request));
}

void ServingScheduler::ApplyFaults() {
  const int64_t drop = faults_.drop_request;
  if (drop >= 0 && step_ == faults_.drop_step && records_[drop].state != RequestState::kFinished) {
    if (records_[drop].state == RequestState::kRunning) Release(drop);
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), drop), waiting_.end());
    records_[drop].state = RequestState::kDropped;
    fired_.drop = true;
  }
  const int64_t early = faults_.free_early_request;
  if (early >= 0 && step_ == faults_.free_early_step &&
      records_[early].state == RequestState::kRunning && !records_[early].blocks.empty()) {
    const int64_t b = records_[early].blocks.front();
    pool_.Free(b);
    freed_.push_back(b);
    early_freed_[early] = b;
    fired_.free_early = true;
  }
}

void ServingScheduler::Admit(int64_t* budget) {
  while (!waiting_.empty()) {
    const int64_t r = waiting_.front();
    const ServingRequest& req = trace_[r];
    if (req.arrival_step > step_) return;
    if (static_cast<int64_t>(running_.size()) >= limits_.max_running) return;
    if (req.prompt_len > *budget) return;
    if (WorstCaseBlocks(r) > pool_.free_blocks() - ReservedBlocks()) return;
    waiting_.erase(waiting_.begin());
    RequestRecord& rec = records_[r];
    rec.state = RequestState::kRunning;
    rec.admitted_step = step_;
    running_.push_back(r);
    GrowTable(r, req.prompt_len);
    plan_.work.push_back({r, WorkKind::kPrefill, 0, req.prompt_len});
    *budget -= req.prompt_len;
  }
}

const StepPlan& ServingScheduler::Plan() {
  if (!committed_) SchedulerInvariant("Plan called twice without a Commit");
  plan_ = StepPlan();
  plan_.step = step_;
  ApplyFaults();
  int64_t budget = limits_.token_budget;
  for (const int64_t r : running_) {
    const int64_t position = CachedPositions(r);
    GrowTable(r, position + 1);
    plan_.work.push_back({r, WorkKind::kDecode, position, 1});
    --budget;
  }
  Admit(&budget);
  if (running_.empty() && !waiting_.empty() && trace_[waiting_.front()].arrival_step <= step_) {
    SchedulerInvariant("an arrived request cannot run on an idle engine");
  }
  plan_.freed_blocks = std::move(freed_);
  freed_.clear();
  plan_.blocks_in_use = pool_.in_use();
  committed_ = false;
  return plan_;
}

void ServingScheduler::Commit(const std::vector<int64_t>& next_tokens) {
  if (committed_) SchedulerInvariant("Commit without a Plan");
  if (next_tokens.size() != plan_.work.size()) {
    SchedulerInvariant("Commit needs one token per work item of the plan");
  }
  for (size_t i = 0; i < plan_.work.size(); ++i) {
    const int64_t r = plan_.work[i].request;
    RequestRecord& rec = records_[r];
    rec.tokens.push_back(next_tokens[i]);
    rec.token_steps.push_back(step_);
    const bool stop = trace_[r].stop_token >= 0 && next_tokens[i] == trace_[r].stop_token;
    const bool full = static_cast<int64_t>(rec.tokens.size()) >= trace_[r].max_new_tokens;
    if (!stop && !full) continue;
    rec.state = RequestState::kFinished;
    rec.reason = stop ? FinishReason::kStopToken : FinishReason::kMaxTokens;
    rec.finished_step = step_;
    Release(r);
  }
  committed_ = true;
  ++step_;
}

bool ServingScheduler::Done() const {
  for (const RequestRecord& rec : records_) {
    if (rec.state == RequestState::kWaiting || rec.state == RequestState::kRunning) return false;
  }
  return true;
}

}  // namespace suites
