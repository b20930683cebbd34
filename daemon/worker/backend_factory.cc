#include "daemon/worker/backend_factory.h"

#include "absl/strings/str_cat.h"
#include "daemon/backend/gloo/gloo_backend.h"
#include "daemon/worker/nccl_module_loader.h"

namespace fabricpulse::worker {

std::vector<std::string> BuiltInBackends() {
  if (LoadNcclModule().ok()) return {"gloo", "nccl"};
  return {"gloo"};
}

absl::StatusOr<std::unique_ptr<backend::CollectiveBackend>> MakeBackend(
    const BackendChoice& choice) {
  if (choice.name == "gloo") {
    return std::unique_ptr<backend::CollectiveBackend>(
        std::make_unique<backend::GlooBackend>(choice.host));
  }
  if (choice.name == "nccl") {
    auto module = LoadNcclModule();
    if (!module.ok())
      return absl::FailedPreconditionError(module.status().message());
    const int gpus = (*module)->VisibleGpus();
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
    return (*module)->MakeBackend(choice.gpu, choice.mem_fraction);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "backend: unknown backend '", choice.name, "'; allowed: gloo, nccl"));
}

}  // namespace fabricpulse::worker
