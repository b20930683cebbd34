// The --coordinator address, checked before a connection is tried, so that a
// missing port is bad input (exit 2) and a name that does not resolve says
// so, rather than both reading like a refused TLS handshake (issue 33).
//
// Thread-safety: free functions (ResolveCoordinatorHost calls getaddrinfo,
// which is thread-safe).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// HOST:PORT (HOST a name, an IPv4 address or [IPv6]), PORT 1..65535; a gRPC
// target with a scheme (dns:, ipv4:, ipv6:, unix:, unix-abstract:) is passed
// on unchecked. Errors: INVALID_ARGUMENT, one line naming --coordinator, the
// text and the form allowed.
absl::Status CheckCoordinatorAddress(absl::string_view address);

// For a checked HOST:PORT whose HOST is a name (not an IP literal):
// UNAVAILABLE "cannot resolve 'HOST' (--coordinator HOST:PORT): <reason>"
// when getaddrinfo finds no address; OK otherwise (and for schemes and
// literals, which need no lookup).
absl::Status ResolveCoordinatorHost(absl::string_view address);

}  // namespace fabricpulse::client
