#include "daemon/worker/backend_factory.h"

#include "absl/strings/str_cat.h"
#include "daemon/backend/gloo/gloo_backend.h"
#ifdef FABRICPULSE_HAVE_NCCL
#include "daemon/backend/nccl/device_query.h"
#include "daemon/backend/nccl/nccl_backend.h"
#endif

namespace fabricpulse::worker {

std::vector<std::string> BuiltInBackends() {
#ifdef FABRICPULSE_HAVE_NCCL
  return {"gloo", "nccl"};
#else
  return {"gloo"};
#endif
}

absl::StatusOr<std::unique_ptr<backend::CollectiveBackend>> MakeBackend(
    const BackendChoice& choice) {
  if (choice.name == "gloo") {
    return std::unique_ptr<backend::CollectiveBackend>(
        std::make_unique<backend::GlooBackend>(choice.host));
  }
  if (choice.name == "nccl") {
#ifdef FABRICPULSE_HAVE_NCCL
    const int gpus = backend::VisibleGpuCount();
    if (choice.gpu < 0 || choice.gpu >= gpus) {
      return absl::FailedPreconditionError(
          absl::StrCat("--gpu: ", choice.gpu, " is not a visible GPU (", gpus,
                       " visible); allowed: 0 to ", gpus - 1));
    }
    if (!(choice.mem_fraction > 0 && choice.mem_fraction <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("FABRICPULSE_MEM_FRACTION: ", choice.mem_fraction,
                       " is out of range; allowed: more than 0, up to 1"));
    }
    return std::unique_ptr<backend::CollectiveBackend>(
        std::make_unique<backend::NcclBackend>(choice.gpu,
                                               choice.mem_fraction));
#else
    return absl::FailedPreconditionError(
        "backend: nccl is not built into this binary; use --backend gloo");
#endif
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "backend: unknown backend '", choice.name, "'; allowed: gloo, nccl"));
}

}  // namespace fabricpulse::worker
