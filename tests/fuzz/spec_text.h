// The text form of the sweep-spec fuzz target's inputs: one "key=value" per
// line, keys as core::SweepSpec's fields plus the rank count, e.g.
//
//   ops=all_reduce,alltoall
//   min_bytes=8
//   max_bytes=1048576
//   factor=2
//   nranks=4
//
// Keys: ops (comma-separated), min_bytes, max_bytes, step_bytes (unsigned
// integers), factor (a double: "nan" and "inf" too), dtype, redop,
// placement (strings, as given), root, warmup, iters, nranks (ints),
// timeout (an absl duration: "30s", "inf", "-1ns"), check, graph,
// fresh_comm (0 or 1), and the adaptive settings: adaptive (0 or 1),
// tolerance (a double), min_iters, max_iters (ints), step_time_cap (a
// duration). Fields not given keep SweepSpec's defaults and
// nranks is 2; lines that do not parse are ignored, so that every byte
// string is an input.
//
// Thread-safety: a pure function.
#pragma once

#include "absl/strings/string_view.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::fuzz {

struct SpecInput {
  core::SweepSpec spec;
  int nranks = 2;
};

SpecInput ParseSpecText(absl::string_view text);

}  // namespace fabricpulse::fuzz
