#include "daemon/worker/backend_factory.h"

#include "absl/strings/str_cat.h"
#include "daemon/backend/gloo/gloo_backend.h"

namespace fabricpulse::worker {

absl::StatusOr<std::unique_ptr<backend::CollectiveBackend>> MakeBackend(
    const BackendChoice& choice) {
  if (choice.name == "gloo") {
    return std::unique_ptr<backend::CollectiveBackend>(
        std::make_unique<backend::GlooBackend>(choice.host));
  }
  if (choice.name == "nccl") {
    return absl::FailedPreconditionError(
        "backend: nccl is not built into this binary; use --backend gloo");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "backend: unknown backend '", choice.name, "'; allowed: gloo, nccl"));
}

}  // namespace fabricpulse::worker
