#include "daemon/common/address.h"

#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::common {

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text,
                                       absl::string_view field) {
  auto error = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", text,
                     "' is not HOST:PORT (port 0 to 65535; 0 picks a free "
                     "port)"));
  };
  size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) return error();
  HostPort hp;
  hp.host = std::string(text.substr(0, colon));
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']') {
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  }
  if (!absl::SimpleAtoi(text.substr(colon + 1), &hp.port) || hp.port < 0 ||
      hp.port > 65535) {
    return error();
  }
  return hp;
}

std::string JoinHostPort(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

std::string AdvertisedHost(const std::string& host) {
  if (host == "0.0.0.0" || host == "::" || host.empty()) {
    char name[256] = {0};
    if (gethostname(name, sizeof(name) - 1) == 0) return name;
  }
  return host;
}

}  // namespace fabricpulse::common
