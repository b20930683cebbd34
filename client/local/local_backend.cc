#include "client/local/local_backend.h"

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::client {

absl::StatusOr<std::string> ResolveLocalBackend(
    const LocalBackendRequest& request) {
  if (request.backend == "gloo") return std::string("gloo");
  const int gpus = request.visible_gpus;
  if (request.backend == "auto" && gpus == 0) return std::string("gloo");
  absl::StatusOr<std::vector<std::string>> worker_backends =
      request.worker_backends
          ? request.worker_backends()
          : absl::InternalError("no way to ask fabricpulse-worker");
  const bool have_nccl =
      worker_backends.ok() && absl::c_linear_search(*worker_backends, "nccl");
  if (request.backend == "auto" && worker_backends.ok() && !have_nccl) {
    return std::string("gloo");
  }
  const int needed = request.agents * request.ranks;
  if (needed > gpus) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--backend nccl: ", request.agents, " agents x ", request.ranks,
        " ranks need ", needed, " GPUs; ", gpus, " visible",
        worker_backends.ok() && !have_nccl ? " (built without NCCL)" : "",
        gpus > 0 && (!worker_backends.ok() || have_nccl)
            ? ": lower --agents or --ranks to fit, or use --backend gloo"
            : ": use --backend gloo"));
  }
  if (!worker_backends.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--backend ", request.backend,
                     ": cannot tell whether fabricpulse-worker has NCCL: ",
                     worker_backends.status().message()));
  }
  if (!have_nccl) {
    return absl::InvalidArgumentError(
        "--backend nccl: fabricpulse-worker is built without NCCL; use "
        "--backend gloo or auto");
  }
  return std::string("nccl");
}

}  // namespace fabricpulse::client
