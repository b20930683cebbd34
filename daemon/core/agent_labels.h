// Agent labels (issue 28): key=value pairs an agent carries (`--labels`,
// FABRICPULSE_LABELS, the chart's agent.labels) that a campaign plan
// selects on and groups by (rack, pool, machine type).
//
// Rules, Kubernetes' label rules without the prefix part: at most
// kMaxAgentLabels labels; a key is 1 to 63 characters of [A-Za-z0-9._-],
// starting and ending with a letter or a digit; a value is 0 to 63 of the
// same characters, starting and ending with a letter or a digit when not
// empty. Such strings need no quoting in a log line, a Prometheus label or
// a shell.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

inline constexpr size_t kMaxAgentLabels = 16;
inline constexpr size_t kMaxLabelLength = 63;

using AgentLabels = std::map<std::string, std::string>;

// Errors: INVALID_ARGUMENT "<field>: ..." naming the bad key or value, the
// rule and, for too many, the bound.
absl::Status ValidateLabelKey(absl::string_view field, absl::string_view key);
absl::Status ValidateLabelValue(absl::string_view field,
                                absl::string_view value);
absl::Status ValidateLabels(absl::string_view field, const AgentLabels& labels);

// "k=v,k2=v2" (spaces around entries ignored; empty text: no labels).
// Errors: ValidateLabels's, or INVALID_ARGUMENT for an entry without '=' or
// a key given twice.
absl::StatusOr<AgentLabels> ParseLabels(absl::string_view field,
                                        absl::string_view text);

// "k=v,k2=v2" in key order; ParseLabels reads it back.
std::string LabelsText(const AgentLabels& labels);

// Whether `labels` has every key of `selector` with the same value.
bool LabelsMatch(const AgentLabels& labels, const AgentLabels& selector);

}  // namespace fabricpulse::core
