// fabricpulse-coordinator's configuration, as parsed from flags/environment.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "daemon/security/tls_options.h"

namespace fabricpulse::coordinator {

struct CoordinatorDaemonConfig {
  std::string listen = "0.0.0.0:0";          // gRPC HOST:PORT
  std::string metrics_listen = "0.0.0.0:0";  // /metrics HOST:PORT
  std::string state_dir;                     // history.db lives here
  std::string config;        // plans and schedules (YAML); "" = none
  std::string port_file;     // "" = none
  security::TlsOptions tls;  // --tls-*, --insecure, --trust-domain
  // gRPC authorization-policy JSON replacing the built-in roles; "" = the
  // built-in policy (security::AuthzPolicy::DefaultJson).
  std::string authz_policy;
  std::string web_config_file;  // /metrics TLS and basic auth; "" = none
  std::string health_listen;    // plaintext grpc.health.v1 only; "" = none

  // Errors: INVALID_ARGUMENT naming the flag, its value and what is allowed.
  absl::Status Validate() const;
};

}  // namespace fabricpulse::coordinator
