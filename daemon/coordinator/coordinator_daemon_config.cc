#include "daemon/coordinator/coordinator_daemon_config.h"

#include "absl/strings/str_cat.h"
#include "daemon/common/address.h"

namespace fabricpulse::coordinator {

absl::Status CoordinatorDaemonConfig::Validate() const {
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string&>{"--listen", listen},
        {"--metrics-listen", metrics_listen}}) {
    auto parsed = common::ParseHostPort(value, flag);
    if (!parsed.ok()) return parsed.status();
  }
  if (!health_listen.empty()) {
    auto parsed = common::ParseHostPort(health_listen, "--health-listen");
    if (!parsed.ok()) return parsed.status();
  }
  if (state_dir.empty()) {
    return absl::InvalidArgumentError(
        "--state-dir: required; a directory for the coordinator's history");
  }
  if (!authz_policy.empty() && tls.insecure) {
    return absl::InvalidArgumentError(
        "--authz-policy: has no effect with --insecure (a plaintext server "
        "knows no identities); drop one of them");
  }
  return tls.Validate();
}

}  // namespace fabricpulse::coordinator
