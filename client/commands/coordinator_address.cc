#include "client/commands/coordinator_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

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

// HOST of a checked HOST:PORT, brackets of an IPv6 literal removed.
std::string HostOf(absl::string_view address) {
  absl::string_view host = address.substr(0, address.rfind(':'));
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
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
  absl::string_view host = address.substr(0, colon);
  if (!bracketed && absl::StrContains(host, ':')) {
    return Refuse(address, "is an IPv6 address without brackets");
  }
  if (host.empty() || host == "[]") return Refuse(address, "has no host");
  absl::string_view port_text = address.substr(colon + 1);
  int port = 0;
  if (port_text.empty() ||
      !std::all_of(port_text.begin(), port_text.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535) {
    return Refuse(address, absl::StrCat("has port '", port_text,
                                        "', not a number from 1 to 65535"));
  }
  return absl::OkStatus();
}

absl::Status ResolveCoordinatorHost(absl::string_view address) {
  if (HasScheme(address)) return absl::OkStatus();
  const std::string host = HostOf(address);
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
