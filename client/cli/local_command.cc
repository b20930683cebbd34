#include "client/cli/local_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/cli/local_signal_guard.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "client/local/local_backend.h"
#include "client/local/local_cluster.h"
#include "daemon/common/process.h"
#include "daemon/common/worker_backends.h"
#include "daemon/core/coordinator_config.h"
#include "daemon/nvml/nvml_library.h"
#include "daemon/nvml/visible_gpus.h"

namespace fabricpulse::client {
namespace {

void ReportKeptDir(const std::string& dir, std::FILE* err) {
  if (!KeepLocalDir()) return;
  std::fprintf(err,
               "fabricpulse: local: kept %s (FABRICPULSE_KEEP_LOCAL_DIR): the "
               "daemons' logs, state and certificates; remove it when done\n",
               dir.c_str());
}

}  // namespace

absl::Status UseLocalStateAndConfig(const LocalFlags& flags,
                                    LocalClusterOptions& options) {
  if (!flags.config.empty()) {
    absl::StatusOr<core::CoordinatorConfig> config =
        core::LoadCoordinatorConfigFile(flags.config);
    if (!config.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local --config ", flags.config, ": ", config.status().message()));
    }
    options.config_file = flags.config;
  }
  if (!flags.state_dir.empty()) {
    if (mkdir(flags.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::InvalidArgumentError(
          absl::StrCat("local --state-dir: cannot create '", flags.state_dir,
                       "': ", std::strerror(errno)));
    }
    struct stat st;
    if (stat(flags.state_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local --state-dir: '", flags.state_dir, "' is not a folder"));
    }
    options.state_dir = flags.state_dir;
  }
  return absl::OkStatus();
}

int LocalNcclRanks(const LocalFlags& flags, int visible_gpus) {
  if (flags.ranks_given) return flags.ranks;
  return std::max(1, visible_gpus / std::max(1, flags.agents));
}

int RunLocal(const LocalFlags& flags, const CommandSet& set) {
  // Before any thread starts (gRPC's, the cluster's).
  LocalSignalGuard signals;
  LocalClusterOptions options;
  options.bin_dir = common::ExecutableDir();
  options.agents = flags.agents;
  // auto: NCCL on the visible GPUs when the worker has it, else Gloo. No
  // CUDA here: NVML counts the GPUs (none without a driver).
  LocalBackendRequest request;
  request.backend = flags.backend;
  request.agents = flags.agents;
  request.ranks = flags.ranks;
  if (flags.backend != "gloo") {
    absl::StatusOr<std::unique_ptr<nvml::Nvml>> nvml = nvml::OpenNvml();
    request.visible_gpus = nvml::VisibleGpuCount(
        nvml.ok() ? nvml->get() : nullptr, nvml::CudaVisibleDevicesFromEnv());
    request.ranks = LocalNcclRanks(flags, request.visible_gpus);
  }
  const std::string worker_binary = options.bin_dir + "/fabricpulse-worker";
  request.worker_backends = [&worker_binary] {
    return common::QueryWorkerBackends(worker_binary);
  };
  absl::StatusOr<std::string> backend = ResolveLocalBackend(request);
  if (!backend.ok()) {
    PrintError(std::string(backend.status().message()));
    return backend.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitBadInput
               : kExitFailed;
  }
  options.backend = *backend;
  options.ranks = *backend == "nccl" ? request.ranks : flags.ranks;
  // Every flag before anything starts, against the ranks that will run
  // (NCCL's default ranks follow the GPUs): nothing starts for a command
  // that cannot run.
  if (absl::Status bad = CheckCommandFlags(set, flags.agents * options.ranks);
      !bad.ok()) {
    PrintError(std::string(bad.message()));
    return kExitBadInput;
  }
  if (absl::Status kept = UseLocalStateAndConfig(flags, options); !kept.ok()) {
    PrintError(std::string(kept.message()));
    return kExitBadInput;
  }
  auto created = LocalCluster::Create(options);
  if (!created.ok()) {
    PrintError(absl::StrCat("local: ", created.status().message()));
    return created.status().code() == absl::StatusCode::kInvalidArgument
               ? kExitBadInput
               : kExitFailed;
  }
  LocalCluster& cluster = **created;
  // A signal from here on stops the daemons and removes the folder.
  signals.SetCleanup([&cluster](std::FILE* err) {
    cluster.Stop();
    ReportKeptDir(cluster.dir(), err);
  });
  int code = kExitOk;
  if (absl::Status launched = cluster.Launch(); !launched.ok()) {
    PrintError(absl::StrCat("local: ", launched.message()));
    code = kExitFailed;
  } else {
    CoordinatorTarget target;
    target.address = cluster.coordinator();
    target.tls = cluster.client_tls();
    code = RunSelected(set, target);
  }
  cluster.Stop();
  signals.SetCleanup(nullptr);
  ReportKeptDir(cluster.dir(), stderr);
  return code;
}

}  // namespace fabricpulse::client
