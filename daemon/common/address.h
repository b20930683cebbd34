// HOST:PORT helpers.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::common {

struct HostPort {
  std::string host;
  int port = 0;
};

// Parses "HOST:PORT" or "[V6]:PORT"; port 0..65535. Errors:
// INVALID_ARGUMENT naming `field`.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text,
                                       absl::string_view field);

std::string JoinHostPort(const std::string& host, int port);

// The address peers should use to reach a listener bound to `host`: the
// machine's hostname when bound to a wildcard address.
std::string AdvertisedHost(const std::string& host);

}  // namespace fabricpulse::common
