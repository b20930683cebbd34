// Internal to the coordinator config parser: the `history` and `agents`
// sections (coordinator_config.h has the format). Use
// ParseCoordinatorConfig instead of these.
//
// Thread-safety: stateless functions.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/core/plan_parser.h"

namespace fabricpulse::core::config_internal {

// A duration written "90d" (days), or as absl reads one ("36h", "1h30m",
// "90s"). Errors: INVALID_ARGUMENT "config line N: <path>: ..." when it is
// neither, is negative or is not finite.
absl::StatusOr<absl::Duration> ReadLongDuration(const Field& field,
                                                absl::string_view path);

// history: {max_age, max_bytes}. Errors: INVALID_ARGUMENT naming the line
// and the key, its value and the allowed range (limits.h).
absl::Status ParseHistory(const Field& field, CoordinatorConfig& config);
// agents: {max, forget_lost_after}. Errors: as ParseHistory.
absl::Status ParseAgents(const Field& field, CoordinatorConfig& config);
// physical_limits: {nvlink, pcie_shm, network} in GB/s (physical_limits.h).
// Errors: as ParseHistory.
absl::Status ParsePhysicalLimits(const Field& field, CoordinatorConfig& config);
// link_expectations: {MODEL: {nvlinks, nics_gbit}} (link_expectations.h).
// Errors: as ParseHistory.
absl::Status ParseLinkExpectations(const Field& field,
                                   CoordinatorConfig& config);

}  // namespace fabricpulse::core::config_internal
