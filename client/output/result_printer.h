// Prints a sweep's events as they stream in: an nccl-tests style table, one
// JSON document, or CSV.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// What the CLI knows of a sweep beyond its events.
struct SweepContext {
  // The coordinator's history record (GetSweep): backend version, trigger,
  // topology, start and end times, rank map. Absent when it could not be
  // read; its empty fields are unknown.
  std::optional<v1::SweepSummary> summary;
  // Each rank's worker pid, for a sweep that runs now (ListAgents); empty
  // when unknown (history, or ListAgents failed). At most nranks entries.
  std::map<int, int> pids;
};

// Receives the events of one sweep, in stream order. Not thread-safe: call
// from one thread. `out` must outlive the printer. Printers never fail; a
// write error stays in `out`'s state for the caller to check.
class ResultPrinter {
 public:
  // A printer of `options.format` writing to `out`.
  static std::unique_ptr<ResultPrinter> Create(const OutputOptions& options,
                                               std::ostream& out);

  virtual ~ResultPrinter() = default;

  // What is known of the sweep besides its events; may come before Begin
  // (the table prints it there) and again before Finish (the JSON document
  // takes the last one). Never called: nothing is known beyond the events.
  virtual void Describe(const SweepContext& context) {}

  // Called once when the sweep starts. `spec` is the spec sent (placement
  // "out_of_place", "in_place" or "both").
  virtual void Begin(const v1::SweepSpec& spec,
                     const v1::SweepStarted& started) = 0;
  virtual void CommReady(const v1::SweepCommReady& ready) = 0;
  // Called for each merged step result as it arrives (in step order).
  virtual void Add(const v1::StepResult& result) = 0;
  // Called once at the end (also for failed/aborted sweeps).
  virtual void Finish(const v1::SweepFinished& finished) = 0;
};

}  // namespace fabricpulse::client
