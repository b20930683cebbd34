// Real daemons for integration tests that need their flags: a coordinator
// or agent started from the built binaries with a port file, stopped at the
// end; and small file helpers.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon/common/port_file.h"

namespace fabricpulse::testing {

// A fresh folder under /tmp.
std::string TempDir();
// Writes `text` to dir/name; the path.
std::string WriteFile(const std::string& dir, const std::string& name,
                      const std::string& text);
// The whole file ("" when it cannot be read).
std::string ReadFile(const std::string& path);

// A daemon started from the built binaries, stopped (SIGTERM, then SIGKILL
// after 10 s) when destroyed unless `pid` was reset to -1.
struct Daemon {
  pid_t pid = -1;
  common::BoundPorts ports;
  std::string log;
  ~Daemon();
};

// fabricpulse-coordinator on 127.0.0.1:0 (gRPC and metrics) with its state
// and port file (coord.ports) in `dir`, on mutual TLS from one throwaway CA
// per test process (coordinator/test; agents are agent/node-a), which also
// makes operator/test this process's client identity (FABRICPULSE_TLS_*).
std::vector<std::string> CoordinatorArgs(const std::string& dir);

// Starts `argv` (whose --port-file is `ports`, output to `log`); fails the
// test and returns null unless its port file appears within 30 s.
std::unique_ptr<Daemon> Start(std::vector<std::string> argv,
                              const std::string& ports, const std::string& log);
// CoordinatorArgs(dir) plus `extra`; log dir/coord.log.
std::unique_ptr<Daemon> StartCoordinator(const std::string& dir,
                                         std::vector<std::string> extra = {});
// An agent (node-a, one Gloo rank) of `coordinator`, plus `extra`; port
// file dir/agent.ports, log dir/agent.log.
std::unique_ptr<Daemon> StartAgent(const std::string& dir,
                                   const std::string& coordinator,
                                   std::vector<std::string> extra = {});

}  // namespace fabricpulse::testing
