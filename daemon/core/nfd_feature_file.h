// The node-feature-discovery (NFD) feature file an agent keeps with
// --nfd-features-dir (issue 30). NFD's `local` source turns each
// `<key>=<value>` line of the files in its features.d folder into a node
// label (key: `<namespace>/<name>`, a Kubernetes qualified name outside
// kubernetes.io; value: a Kubernetes label value), skips hidden files
// (a leading '.'), files over 64 KiB, and lines after a
// `# +expiry-time=<RFC 3339>` directive that has passed (evaluated at each
// of its re-discoveries, every 60 s by default). The file:
//
//   # FabricPulse: this node's NCCL verdict; written by fabricpulse-agent.
//   # +expiry-time=2026-12-05T02:16:28Z
//   fabricpulse.io/nccl-health=fail
//   fabricpulse.io/nccl-tested=20261204T021628Z
//   fabricpulse.io/nccl-plan=nightly-full
//
// nccl-tested is absent when the node was never tested, nccl-plan when the
// plan's name is not a valid label value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace fabricpulse::core {

// The file's name in features.d, and the temporary it is written through
// (hidden, so NFD never reads half a file).
inline constexpr char kNfdFeatureFileName[] = "fabricpulse";
inline constexpr char kNfdFeatureTempName[] = ".fabricpulse.tmp";
inline constexpr char kNfdHealthLabel[] = "fabricpulse.io/nccl-health";
inline constexpr char kNfdTestedLabel[] = "fabricpulse.io/nccl-tested";
inline constexpr char kNfdPlanLabel[] = "fabricpulse.io/nccl-plan";
// NFD ignores a feature file over 64 KiB (MaxFeatureFileSize).
inline constexpr size_t kNfdMaxFileBytes = 65536;

struct NfdVerdictLabels {
  std::string health;  // pass, degraded, fail, suspect, untested
  std::string plan;
  absl::Time tested = absl::InfinitePast();  // InfinitePast: never
  absl::Time expires;                        // when NFD drops the labels
};

// The file's text (see the top of this file); times in UTC, whole seconds.
std::string NfdFeatureFileText(const NfdVerdictLabels& labels);

// Whether `value` is a Kubernetes label value: at most 63 characters, empty
// or [A-Za-z0-9] at both ends with [-_.A-Za-z0-9] between.
bool IsLabelValue(absl::string_view value);

// `t` as 20261204T021628Z (UTC): ISO 8601 basic format, a valid label value.
std::string CompactUtc(absl::Time t);

// The time of the last `# +expiry-time=` directive of a feature file's
// text, or nullopt when it has none that parses.
std::optional<absl::Time> NfdFileExpiry(absl::string_view text);

}  // namespace fabricpulse::core
