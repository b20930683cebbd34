#include "tests/fuzz/spec_text.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace fabricpulse::fuzz {
namespace {

bool ParseFlag(absl::string_view value, bool* out) {
  if (value == "0" || value == "1") {
    *out = value == "1";
    return true;
  }
  return false;
}

}  // namespace

SpecInput ParseSpecText(absl::string_view text) {
  SpecInput input;
  core::SweepSpec& spec = input.spec;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) continue;
    const absl::string_view key = line.substr(0, eq);
    const absl::string_view value = line.substr(eq + 1);
    if (key == "ops") {
      spec.ops = absl::StrSplit(value, ',');
    } else if (key == "min_bytes") {
      (void)absl::SimpleAtoi(value, &spec.min_bytes);
    } else if (key == "max_bytes") {
      (void)absl::SimpleAtoi(value, &spec.max_bytes);
    } else if (key == "step_bytes") {
      (void)absl::SimpleAtoi(value, &spec.step_bytes);
    } else if (key == "factor") {
      (void)absl::SimpleAtod(value, &spec.factor);
    } else if (key == "dtype") {
      spec.dtype = std::string(value);
    } else if (key == "redop") {
      spec.redop = std::string(value);
    } else if (key == "placement") {
      spec.placement = std::string(value);
    } else if (key == "root") {
      (void)absl::SimpleAtoi(value, &spec.root);
    } else if (key == "warmup") {
      (void)absl::SimpleAtoi(value, &spec.warmup_iters);
    } else if (key == "iters") {
      (void)absl::SimpleAtoi(value, &spec.iters);
    } else if (key == "nranks") {
      (void)absl::SimpleAtoi(value, &input.nranks);
    } else if (key == "timeout") {
      (void)absl::ParseDuration(value, &spec.timeout);
    } else if (key == "check") {
      (void)ParseFlag(value, &spec.check);
    } else if (key == "graph") {
      (void)ParseFlag(value, &spec.graph);
    } else if (key == "fresh_comm") {
      (void)ParseFlag(value, &spec.fresh_comm);
    } else if (key == "adaptive") {
      (void)ParseFlag(value, &spec.adaptive.enabled);
    } else if (key == "tolerance") {
      (void)absl::SimpleAtod(value, &spec.adaptive.tolerance);
    } else if (key == "min_iters") {
      (void)absl::SimpleAtoi(value, &spec.adaptive.min_iters);
    } else if (key == "max_iters") {
      (void)absl::SimpleAtoi(value, &spec.adaptive.max_iters);
    } else if (key == "step_time_cap") {
      (void)absl::ParseDuration(value, &spec.adaptive.step_time_cap);
    }
  }
  return input;
}

}  // namespace fabricpulse::fuzz
