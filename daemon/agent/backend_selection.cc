#include "daemon/agent/backend_selection.h"

#include "absl/strings/str_cat.h"
#ifdef FABRICPULSE_HAVE_NCCL
#include "daemon/backend/nccl/device_query.h"
#include "daemon/backend/nccl/nccl_backend.h"
#endif

namespace fabricpulse::agent {
namespace {

int VisibleGpus() {
#ifdef FABRICPULSE_HAVE_NCCL
  return backend::VisibleGpuCount();
#else
  return 0;
#endif
}

std::string NcclVersion() {
#ifdef FABRICPULSE_HAVE_NCCL
  return backend::NcclBackend(0, 0).version();
#else
  return "";
#endif
}

#ifdef FABRICPULSE_HAVE_NCCL
constexpr bool kHaveNccl = true;
#else
constexpr bool kHaveNccl = false;
#endif

}  // namespace

absl::StatusOr<BackendSelection> SelectBackend(const AgentConfig& config) {
  BackendSelection out;
  const int visible = VisibleGpus();
  out.backend = config.backend;
  if (out.backend == "auto") out.backend = visible > 0 ? "nccl" : "gloo";
  if (out.backend == "gloo") {
    out.version = "gloo";
    out.gpus.assign(config.ranks > 0 ? config.ranks : 1, -1);
    return out;
  }
  if (!kHaveNccl) {
    return absl::FailedPreconditionError(
        "--backend: nccl is not built into this binary (built without CUDA "
        "or NCCL); use --backend gloo or auto");
  }
  if (visible == 0) {
    return absl::FailedPreconditionError(
        "--backend: nccl needs a GPU, and none is visible (no device or no "
        "driver); use --backend gloo or auto");
  }
  out.version = NcclVersion();
  out.gpus = config.GpuList();
  for (int gpu : out.gpus) {
    if (gpu >= visible) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--gpus: GPU ", gpu, " is not visible; allowed: 0 to ", visible - 1));
    }
  }
  if (out.gpus.empty()) {
    const int n = config.ranks > 0 ? config.ranks : visible;
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
