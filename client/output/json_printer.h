// JSON: the versioned sweeps document (sweep_json.h, docs/json.md) of one
// sweep, pretty-printed, written at Finish.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "client/output/json_writer.h"
#include "client/output/output_options.h"
#include "client/output/result_printer.h"

namespace fabricpulse::client {

// The document's one sweep takes its metadata from the last Describe's
// history record (trigger, times, backend version, topology, rank map), the
// worker pids from its context, and the rest from the events: status,
// error, straggler and duration from Finish, the communicator from
// CommReady (null when it never came), the steps as they arrived. What no
// source gave is null. Nothing is written before Finish, and nothing at all
// if Finish is never called.
class JsonPrinter : public ResultPrinter {
 public:
  JsonPrinter(const OutputOptions& options, std::ostream& out);

  void Describe(const SweepContext& context) override;
  void Begin(const v1::SweepSpec& spec,
             const v1::SweepStarted& started) override;
  void CommReady(const v1::SweepCommReady& ready) override;
  void Add(const v1::StepResult& result) override;
  void Finish(const v1::SweepFinished& finished) override;

 private:
  const OutputOptions options_;
  std::ostream& out_;
  SweepContext context_;
  v1::SweepSpec spec_;
  v1::SweepStarted started_;
  std::optional<v1::SweepCommReady> ready_;
  std::vector<v1::StepResult> results_;  // at most the sweep's steps
};

}  // namespace fabricpulse::client
