#include "daemon/agent/backend_selection.h"

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "daemon/nvml/visible_gpus.h"

namespace fabricpulse::agent {

absl::StatusOr<BackendSelection> SelectBackend(const AgentConfig& config,
                                               const BackendEnvironment& env) {
  BackendSelection out;
  out.backend = config.backend;
  const auto gloo = [&config, &out] {
    out.backend = "gloo";
    out.gpus = config.GlooProbeGpuList();  // the test seam's accounting
    if (out.gpus.empty()) out.gpus.assign(config.ranks.value_or(1), -1);
    return out;
  };
  if (out.backend == "gloo") return gloo();
  const int visible = nvml::VisibleGpuCount(env.nvml, env.cuda_visible_devices);
  if (visible == 0) {
    if (out.backend == "auto") return gloo();
    return absl::FailedPreconditionError(
        "--backend: nccl needs a GPU, and none is visible (no device or no "
        "driver); use --backend gloo or auto");
  }
  absl::StatusOr<std::vector<std::string>> worker_backends =
      env.worker_backends
          ? env.worker_backends()
          : absl::InternalError("no way to ask fabricpulse-worker");
  if (!worker_backends.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--backend ", config.backend, ": cannot tell whether ",
        "fabricpulse-worker has NCCL: ", worker_backends.status().message()));
  }
  if (!absl::c_linear_search(*worker_backends, "nccl")) {
    if (out.backend == "auto") return gloo();
    return absl::FailedPreconditionError(
        "--backend: nccl is not built into fabricpulse-worker (built without "
        "CUDA or NCCL); use --backend gloo or auto");
  }
  out.backend = "nccl";
  out.gpus = config.GpuList();
  for (int gpu : out.gpus) {
    if (gpu >= visible) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--gpus: GPU ", gpu, " is not visible; allowed: 0 to ", visible - 1));
    }
  }
  if (out.gpus.empty()) {
    const int n = config.ranks.value_or(visible);
    if (n > visible) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ranks: ", n, " NCCL ranks need ", n, " GPUs; ",
                       visible, " visible"));
    }
    for (int i = 0; i < n; ++i) out.gpus.push_back(i);
  }
  return out;
}

}  // namespace fabricpulse::agent
