// The report as one self-contained HTML page: inline CSS and SVG only, no
// script, no font, image or style sheet from anywhere (so it renders the
// same offline, attached to a ticket).
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client::report {

struct ReportContent {
  // What was asked for, in words: "sweep X", "the newest 3 sweeps", "plan
  // nightly, sweeps since 2026-11-24 19:00:00 UTC".
  std::string selection;
  std::string tool_version;  // "fabricpulse 0.9.0 (abc123)"
  absl::Time generated;
  // Sweeps drawn in full (metadata, per-op charts, pair matrices), newest
  // first.
  std::vector<v1::GetSweepResponse> sweeps;
  // The plan's sweeps for the history trends; no trend section when empty.
  std::vector<v1::GetSweepResponse> history;
  // Bounds the loader reached, said at the top of the page.
  std::vector<std::string> notes;
};

// The page. Sweep i's elements have ids prefixed "s<i>".
std::string RenderReportPage(const ReportContent& content);

}  // namespace fabricpulse::client::report
