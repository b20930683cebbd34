// Reads a daemon's /metrics over HTTP (loopback) and picks series out of the
// exposition text, for integration tests of the Prometheus contract.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace fabricpulse::testing {

// GET http://`address`/metrics (HOST:PORT); the body. Bounded by 10 s.
absl::StatusOr<std::string> ScrapeMetrics(const std::string& address);

// Sample lines (series) in the text, optionally only those whose name
// starts with `prefix`.
int CountSeries(const std::string& text, const std::string& prefix = "");

// Sample lines whose name starts with `prefix` and whose value is not 0
// (counters that exist at 0 from the start count only once they moved).
int CountNonZeroSeries(const std::string& text, const std::string& prefix);

// The value of `series` (name{labels} exactly as exported), or -1 when it
// is absent.
double SeriesValue(const std::string& text, const std::string& series);

}  // namespace fabricpulse::testing
