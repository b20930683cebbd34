// Finds and loads the NCCL backend module (libfabricpulse-nccl.so, see
// daemon/backend/nccl/nccl_module.h) once per process.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/backend/collective_backend.h"

namespace fabricpulse::worker {

// Names the module's path; a test seam and an escape hatch for packagers.
inline constexpr char kNcclModuleEnv[] = "FABRICPULSE_NCCL_MODULE";

// $FABRICPULSE_NCCL_MODULE, else lib/libfabricpulse-nccl.so beside this
// executable's bin/ folder (the build tree's and the bundle's layout).
std::string NcclModulePath();

class NcclModule {
 public:
  // CUDA devices this process sees (0 without a GPU or driver).
  virtual int VisibleGpus() const = 0;
  virtual std::unique_ptr<backend::CollectiveBackend> MakeBackend(
      int gpu, double mem_fraction) const = 0;
  virtual ~NcclModule() = default;
};

// Loads the module on the first call and keeps it (and the answer) for the
// process's life. Errors: NOT_FOUND no module at NcclModulePath() (a build
// without NCCL); FAILED_PRECONDITION it cannot be loaded, with the loader's
// reason (e.g. libnccl.so.2 or libcudart is not installed: a CPU-only
// node), or it comes from another build.
absl::StatusOr<const NcclModule*> LoadNcclModule();

}  // namespace fabricpulse::worker
