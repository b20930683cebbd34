// Prints a sweep's events as they stream in: an nccl-tests style table, one
// JSON document, or CSV.
#pragma once

#include <memory>
#include <ostream>

#include "client/output/output_options.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// Receives the events of one sweep, in stream order. Not thread-safe: call
// from one thread. `out` must outlive the printer. Printers never fail; a
// write error stays in `out`'s state for the caller to check.
class ResultPrinter {
 public:
  // A printer of `options.format` writing to `out`.
  static std::unique_ptr<ResultPrinter> Create(const OutputOptions& options,
                                               std::ostream& out);

  virtual ~ResultPrinter() = default;

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
