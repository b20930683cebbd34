#include "client/commands/coordinator_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"

namespace fabricpulse::client {
namespace {

constexpr absl::string_view kSchemes[] = {
    "dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:"};

bool HasScheme(absl::string_view address) {
  for (absl::string_view scheme : kSchemes) {
    if (absl::StartsWith(address, scheme)) return true;
  }
  return false;
}

absl::Status Refuse(absl::string_view address, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--coordinator: '", address, "' ", why,
                   "; use HOST:PORT, PORT 1 to 65535 (e.g. 127.0.0.1:7070, "
                   "coordinator.example:7070, [::1]:7070)"));
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

absl::Status CheckCoordinatorAddress(absl::string_view address) {
  if (HasScheme(address)) return absl::OkStatus();
  const size_t colon = address.rfind(':');
  const bool bracketed = absl::StartsWith(address, "[");
  if (colon == absl::string_view::npos ||
      (bracketed && (colon == 0 || address[colon - 1] != ']'))) {
    return Refuse(address, "has no port");
  }
  if (!bracketed && absl::StrContains(address.substr(0, colon), ':')) {
    return Refuse(address, "is an IPv6 address without brackets");
  }
  const absl::string_view host = address.substr(0, colon);
  if (host.empty() || host == "[]") return Refuse(address, "has no host");
  // The split is common::ParseHostPort's; a client's port is 1..65535 in
  // plain digits (no sign, no spaces, no 0).
  const absl::string_view port_text = address.substr(colon + 1);
  absl::StatusOr<common::HostPort> parsed =
      common::ParseHostPort(address, "--coordinator");
  if (!parsed.ok() || parsed->port < 1 || port_text.empty() ||
      !std::all_of(port_text.begin(), port_text.end(), absl::ascii_isdigit)) {
    return Refuse(address, absl::StrCat("has port '", port_text,
                                        "', not a number from 1 to 65535"));
  }
  return absl::OkStatus();
}

absl::Status ResolveCoordinatorHost(absl::string_view address) {
  if (HasScheme(address)) return absl::OkStatus();
  absl::StatusOr<common::HostPort> parsed =
      common::ParseHostPort(address, "--coordinator");
  if (!parsed.ok()) return absl::OkStatus();  // CheckCoordinatorAddress's
  const std::string& host = parsed->host;
  if (IsIpLiteral(host)) return absl::OkStatus();
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found != nullptr) freeaddrinfo(found);
  if (rc == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat("cannot resolve '", host,
                                             "' (--coordinator ", address,
                                             "): ", gai_strerror(rc)));
}

}  // namespace fabricpulse::client
