// Byte sizes with K/M/G suffixes (binary: 1K = 1024), as nccl-tests reads
// them.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::core {

// Parses "8", "64K", "1M", "2G" (suffix case-insensitive, optional trailing
// "B"). Errors: INVALID_ARGUMENT naming `field` and the accepted form.
absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text,
                                       absl::string_view field);

// Formats as the largest exact binary unit ("8", "64K", "1M", "3G").
std::string FormatByteSize(uint64_t bytes);

// For people: "64 B", "1 MiB", "1.5 GiB" (one decimal when inexact).
std::string HumanByteSize(uint64_t bytes);

}  // namespace fabricpulse::core
