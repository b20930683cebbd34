// The host memory a CPU rank's buffers can use, from the kernel's own
// figures: /proc/meminfo's MemAvailable (what can be allocated without
// swapping), capped by the memory limit of the cgroup the agent runs in
// when it has one (a container's limit: cgroup v2 memory.max and
// memory.current, or v1 memory.limit_in_bytes and memory.usage_in_bytes, at
// the root of the agent's cgroup namespace). Reading the files is the
// agent's (daemon/agent/free_memory.h); the parsing is here.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// MemAvailable of /proc/meminfo's text, in bytes ("MemAvailable:  123 kB").
// Errors: NOT_FOUND no MemAvailable line (kernels before 3.14);
// INVALID_ARGUMENT the line is malformed.
absl::StatusOr<uint64_t> ParseMemAvailable(absl::string_view meminfo);

// A cgroup memory figure (memory.max, memory.current,
// memory.limit_in_bytes, memory.usage_in_bytes): bytes, or nullopt for "no
// limit" ("max", or cgroup v1's near-2^63 page-rounded sentinel) and for
// text that is not a number.
std::optional<uint64_t> ParseCgroupBytes(absl::string_view text);

// MemAvailable, capped by the room left under the cgroup's limit (limit
// minus usage, 0 when over) when both are known.
uint64_t HostAvailableBytes(uint64_t mem_available,
                            std::optional<uint64_t> cgroup_limit,
                            std::optional<uint64_t> cgroup_usage);

}  // namespace fabricpulse::core
