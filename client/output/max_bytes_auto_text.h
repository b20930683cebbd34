// How the printers show what --max-bytes auto resolved to
// (v1::MaxBytesAuto in the sweep's spec): the size picked for each op and
// the free memory it was picked from.
#pragma once

#include <string>

#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::client {

// The table's header line, newline included, e.g.
//   # maxBytes auto:0.05: all_reduce 2G, all_gather 2G (budget 6.7 GiB =
//   0.05 x 133.9 GiB free on rank 0 (node n, GPU 0))
// "" when the spec has no --max-bytes auto.
std::string MaxBytesAutoLine(const v1::SweepSpec& spec);

// The JSON document's object (no key, no trailing comma), e.g.
//   {"fraction": 0.05, "free_bytes": N, "least_free": "rank 0 (...)",
//    "budget_bytes": N, "ops": [{"op": "all_reduce", "max_bytes": N,
//    "buffer_bytes": N}, ...]}
// "" when the spec has no --max-bytes auto.
std::string MaxBytesAutoJson(const v1::SweepSpec& spec);

}  // namespace fabricpulse::client
