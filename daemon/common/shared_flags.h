// The flags several binaries share, bound to their environment variables:
// TLS (--tls-cert, --tls-key, --tls-ca, --insecure, --trust-domain,
// --tls-refresh; every binary) and the daemons' endpoints. Included only
// where a binary's flags are defined (its main, or the agent's
// agent_flags.cc): flags live at the binary's edge.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "absl/time/time.h"
#include "daemon/security/tls_options.h"

namespace fabricpulse::common {

// Adds the flags to `app`, writing into `options` (which outlives it).
inline void AddTlsFlags(CLI::App& app, security::TlsOptions& options) {
  app.add_option("--tls-cert", options.cert_file,
                 "PEM certificate naming this process's identity (URI SAN "
                 "spiffe://TRUST_DOMAIN/ROLE/NAME)")
      ->envname("FABRICPULSE_TLS_CERT");
  app.add_option("--tls-key", options.key_file, "PEM private key")
      ->envname("FABRICPULSE_TLS_KEY");
  app.add_option("--tls-ca", options.ca_file,
                 "PEM CA certificate(s) that peers' certificates chain to")
      ->envname("FABRICPULSE_TLS_CA");
  app.add_flag("--insecure", options.insecure,
               "Plaintext gRPC without identities or authorization (logs a "
               "warning); never on a shared network")
      ->envname("FABRICPULSE_INSECURE");
  app.add_option("--trust-domain", options.trust_domain,
                 "SPIFFE trust domain of every identity")
      ->envname("FABRICPULSE_TRUST_DOMAIN")
      ->capture_default_str();
  app.add_option_function<int>(
         "--tls-refresh",
         [&options](int seconds) { options.refresh = absl::Seconds(seconds); },
         "Seconds between re-reads of the TLS files, 1 to 3600 (default 10)")
      ->envname("FABRICPULSE_TLS_REFRESH");
}

// --listen (gRPC) and --metrics-listen, with their defaults as given.
inline void AddListenFlags(CLI::App& app, std::string& listen,
                           std::string& metrics_listen) {
  app.add_option("--listen", listen,
                 "gRPC listen address HOST:PORT (:0 picks a free port)")
      ->envname("FABRICPULSE_LISTEN")
      ->capture_default_str();
  app.add_option("--metrics-listen", metrics_listen,
                 "Prometheus /metrics address HOST:PORT")
      ->envname("FABRICPULSE_METRICS_LISTEN")
      ->capture_default_str();
}

// The endpoint flags both daemons take: --web-config-file (the /metrics
// web config) and --health-listen (a plaintext grpc.health.v1 port).
inline void AddEndpointFlags(CLI::App& app, std::string& web_config_file,
                             std::string& health_listen) {
  app.add_option("--web-config-file", web_config_file,
                 "TLS and basic auth for /metrics, in the Prometheus "
                 "exporter-toolkit web config format (docs/metrics.md)")
      ->envname("FABRICPULSE_WEB_CONFIG_FILE");
  app.add_option("--health-listen", health_listen,
                 "Also serve grpc.health.v1, and only it, in plaintext on "
                 "HOST:PORT (for probes without a client certificate)")
      ->envname("FABRICPULSE_HEALTH_LISTEN");
}

}  // namespace fabricpulse::common
