#include "daemon/core/sweep_diagnosis.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {
namespace {

bool Known(absl::Time t) {
  return t != absl::InfinitePast() && t != absl::InfiniteFuture();
}

// Records come from the ranks' clocks: a little skew must not give a
// negative wait.
absl::Duration Since(absl::Time now, absl::Time t) {
  if (!Known(t) || !Known(now)) return absl::ZeroDuration();
  return std::max(now - t, absl::ZeroDuration());
}

absl::Time JoinTime(const FlightRecord& r) {
  return Known(r.enqueued) ? r.enqueued : r.started;
}

absl::Time StartTime(const FlightRecord& r) {
  return Known(r.started) ? r.started : r.enqueued;
}

std::string Seconds(absl::Duration d) {
  if (d == absl::InfiniteDuration()) return "never";
  return absl::StrFormat("%.1fs", absl::ToDoubleSeconds(d));
}

std::string Utc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", t, absl::UTCTimeZone());
}

// "all_reduce 1 MiB in-place".
std::string StepName(const Step& step) {
  return absl::StrCat(OpName(step.op), " ", HumanByteSize(step.bytes),
                      step.in_place ? " in-place" : "");
}

// "step 6 of 40 (all_reduce 1M)", "step 6" when the steps are unknown,
// "after its last step (40 of 40)", "before its first step".
std::string StepPhrase(const SweepFacts& facts, int step) {
  const int total = static_cast<int>(facts.steps.size());
  if (step <= 0) return "before its first step";
  if (total == 0) return absl::StrCat("step ", step);
  if (step > total) {
    return absl::StrCat("after its last step (", total, " of ", total, ")");
  }
  return absl::StrCat("step ", step, " of ", total, " (",
                      StepName(facts.steps[step - 1]), ")");
}

// StepPhrase with "in" before a step: "in step 6 of 40 (all_reduce 1M)".
std::string InStep(const SweepFacts& facts, int step) {
  const std::string phrase = StepPhrase(facts, step);
  return absl::StartsWith(phrase, "step ") ? absl::StrCat("in ", phrase)
                                           : phrase;
}

std::string Plural(int n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// One active rank's records by seq.
struct Active {
  const RankReport* report = nullptr;
  std::map<uint64_t, const FlightRecord*> by_seq;
  uint64_t max_seq() const {
    return by_seq.empty() ? 0 : by_seq.rbegin()->first;
  }
  const FlightRecord* Find(uint64_t seq) const {
    auto it = by_seq.find(seq);
    return it == by_seq.end() ? nullptr : it->second;
  }
};

// The step name for seq `n` from the records when the facts lack it.
std::string SeqName(const SweepFacts& facts, const FlightRecord& r) {
  if (r.seq >= 1 && r.seq <= facts.steps.size()) {
    return StepName(facts.steps[r.seq - 1]);
  }
  return absl::StrCat(r.op.empty() ? "op" : r.op, " ", HumanByteSize(r.bytes));
}

// The rule of DiagnoseSweep for a running sweep: fills step, waited, bound
// and progress; whether it is stalled.
bool AssessRunning(const SweepFacts& facts,
                   const std::vector<RankReport>& ranks, absl::Time now,
                   SweepDiagnosis* d) {
  std::vector<const RankReport*> sorted;
  for (const RankReport& r : ranks) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RankReport* a, const RankReport* b) {
                     return a->rank < b->rank;
                   });
  std::vector<Active> active;
  for (const RankReport* r : sorted) {
    if (!r->reachable) {
      d->progress = absl::StrCat("rank ", r->rank, " is unreachable");
      return true;
    }
    Active a;
    a.report = r;
    for (const FlightRecord& rec : r->records) {
      if (rec.state == OpState::kFailed) {
        d->progress = absl::StrCat("rank ", r->rank, " failed step ", rec.seq);
        return true;
      }
      a.by_seq[rec.seq] = &rec;
    }
    active.push_back(std::move(a));
  }
  uint64_t n = 0;
  for (const Active& a : active) n = std::max(n, a.max_seq());
  if (n == 0) {
    d->progress = "no step started yet (the communicator is being built)";
    return false;
  }
  d->step = static_cast<int>(n);
  // Who joined and who finished step n, and when the first of them did.
  absl::Time first_join = absl::InfiniteFuture();
  absl::Time first_start = absl::InfiniteFuture();
  absl::Time first_finish = absl::InfiniteFuture();
  const FlightRecord* any = nullptr;
  int finished = 0;
  for (const Active& a : active) {
    const FlightRecord* r = a.Find(n);
    if (r == nullptr) continue;
    if (any == nullptr) any = r;
    if (Known(JoinTime(*r))) first_join = std::min(first_join, JoinTime(*r));
    if (Known(StartTime(*r))) {
      first_start = std::min(first_start, StartTime(*r));
    }
    if (r->state == OpState::kCompleted) {
      ++finished;
      if (Known(r->completed)) {
        first_finish = std::min(first_finish, r->completed);
      }
    }
  }
  const std::string step_name = SeqName(facts, *any);
  // The rank that lags its peers the longest.
  int lagging = -1;
  std::string how;
  absl::Duration lag = absl::ZeroDuration();
  for (const Active& a : active) {
    const FlightRecord* r = a.Find(n);
    absl::Duration wait;
    std::string what;
    if (a.max_seq() < n) {
      wait = Since(now, first_join);
      what = absl::StrCat("has not joined ", step_name,
                          " that other ranks joined ", Seconds(wait), " ago");
    } else if (r != nullptr && r->state != OpState::kCompleted &&
               finished > 0) {
      wait = Since(now, first_finish);
      what = absl::StrCat("has not finished ", step_name,
                          " that other ranks finished ", Seconds(wait), " ago");
    } else {
      continue;
    }
    if (lagging < 0 || wait > lag) {
      lagging = a.report->rank;
      lag = wait;
      how = std::move(what);
    }
  }
  if (lagging >= 0) {
    d->waited = lag;
    d->bound = facts.peer_wait_bound;
    d->progress = absl::StrCat("rank ", lagging, " ", how);
  } else if (finished == static_cast<int>(active.size())) {
    d->waited = Since(now, first_finish);
    d->bound = facts.peer_wait_bound;
    d->progress =
        absl::StrCat("every rank finished ", step_name, " ", Seconds(d->waited),
                     " ago and none started the next");
  } else {
    d->waited = Since(now, first_start);
    d->bound = facts.step_bound;
    d->progress = absl::StrCat(
        "all ", Plural(static_cast<int>(active.size()), "rank", "ranks"),
        " in ", step_name, " for ", Seconds(d->waited));
  }
  const bool stalled = d->waited > d->bound;
  absl::StrAppend(&d->progress, stalled ? ", more than " : " (a stall after ",
                  Seconds(d->bound), stalled ? "" : ")");
  return stalled;
}

// The step a finished sweep was in when it ended.
int EndStep(const SweepFacts& facts) { return facts.steps_done + 1; }

}  // namespace

absl::string_view SweepStateName(SweepState state) {
  switch (state) {
    case SweepState::kRunning:
      return "running";
    case SweepState::kStalled:
      return "stalled";
    case SweepState::kSucceeded:
      return "succeeded";
    case SweepState::kFailed:
      return "failed";
    case SweepState::kAborted:
      return "aborted";
    case SweepState::kInterrupted:
      return "interrupted";
    case SweepState::kPreempted:
      return "preempted";
  }
  return "unknown";
}

bool ParseSweepState(absl::string_view name, SweepState* state) {
  for (SweepState s : {SweepState::kRunning, SweepState::kSucceeded,
                       SweepState::kFailed, SweepState::kAborted,
                       SweepState::kInterrupted, SweepState::kPreempted}) {
    if (name == SweepStateName(s)) {
      *state = s;
      return true;
    }
  }
  return false;
}

bool NeedsRankRecords(SweepState state) {
  return state == SweepState::kRunning || state == SweepState::kStalled ||
         state == SweepState::kFailed || state == SweepState::kInterrupted;
}

std::string SweepDiagnosis::StepName() const {
  if (step < 1 || step > static_cast<int>(facts.steps.size())) return "";
  return core::StepName(facts.steps[step - 1]);
}

std::string SweepDiagnosis::Summary() const {
  const std::string step_phrase = StepPhrase(facts, step);
  switch (state) {
    case SweepState::kRunning:
      return absl::StrCat("running: ", step_phrase, ", no stall: ", progress);
    case SweepState::kStalled:
      return absl::StrCat("stalled ", InStep(facts, step), ": ", progress, "; ",
                          ranks.Summary());
    case SweepState::kSucceeded:
      return absl::StrCat("succeeded at ", Utc(facts.ended), ": ",
                          Plural(facts.steps_done, "step", "steps"),
                          " done; nothing to diagnose");
    case SweepState::kAborted:
      return absl::StrCat("aborted by request at ", Utc(facts.ended), ", ",
                          Seconds(Since(facts.ended, facts.started)),
                          " after it started, ", InStep(facts, step), ", ",
                          Plural(facts.steps_done, "step", "steps"), " done");
    case SweepState::kPreempted:
      return absl::StrCat("preempted at ", Utc(facts.ended), ", ",
                          Seconds(Since(facts.ended, facts.started)),
                          " after it started, ", InStep(facts, step), ", ",
                          Plural(facts.steps_done, "step", "steps"), " done",
                          facts.error.empty() ? "" : ": ", facts.error,
                          "; not a fault");
    case SweepState::kFailed:
    case SweepState::kInterrupted:
      break;
  }
  std::string out =
      absl::StrCat(SweepStateName(state), " at ", Utc(facts.ended), " ",
                   InStep(facts, step), ": ");
  if (!ranks.culprits.empty() || facts.error.empty()) {
    absl::StrAppend(&out, ranks.Summary());
  } else {
    absl::StrAppend(&out, facts.error);
  }
  return out;
}

SweepDiagnosis DiagnoseSweep(const SweepFacts& facts,
                             const std::vector<RankReport>& ranks,
                             absl::Time now) {
  SweepDiagnosis d;
  d.facts = facts;
  d.state = facts.state;
  switch (facts.state) {
    case SweepState::kRunning:
    case SweepState::kStalled: {
      d.state = SweepState::kRunning;
      d.step = facts.steps_done + 1;
      const bool stalled = AssessRunning(facts, ranks, now, &d);
      d.ranks = Diagnose(ranks, now);
      if (stalled) {
        d.state = SweepState::kStalled;
      } else {
        d.ranks.culprits.clear();
      }
      return d;
    }
    case SweepState::kSucceeded:
    case SweepState::kAborted:
    case SweepState::kPreempted:
      d.step = EndStep(facts);
      return d;
    case SweepState::kFailed:
    case SweepState::kInterrupted:
      break;
  }
  d.step = EndStep(facts);
  // Durations stop when the sweep ended.
  const absl::Time at = Known(facts.ended) ? std::min(now, facts.ended) : now;
  d.ranks = Diagnose(ranks, at);
  return d;
}

SweepDiagnosis DiagnoseStored(const SweepFacts& facts, Diagnosis stored) {
  SweepDiagnosis d;
  d.facts = facts;
  d.state = facts.state;
  d.step = EndStep(facts);
  d.ranks = std::move(stored);
  return d;
}

}  // namespace fabricpulse::core
