// NcclBackend: one GPU per worker, NCCL communicators built without MPI:
// rank 0 makes the unique id, the coordinator's key-value store hands it to
// every rank, and all ranks build one blocking communicator on a helper
// thread bounded by a deadline.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "daemon/backend/collective_backend.h"

namespace fabricpulse::backend {

class NcclBackend : public CollectiveBackend {
 public:
  // `gpu` is the CUDA device index; `mem_fraction` bounds a sweep's buffers
  // to that fraction of the device's free memory (DeepSpeed's mem-factor).
  NcclBackend(int gpu, double mem_fraction);

  std::string name() const override { return "nccl"; }
  std::string version() const override;  // "nccl 2.28.9"
  // Errors: DEADLINE_EXCEEDED the id or peers did not arrive within
  // options.init_timeout (the half-built communicator is aborted);
  // UNAVAILABLE no such device, or NCCL system/remote error.
  absl::StatusOr<std::unique_ptr<Communicator>> CreateCommunicator(
      const CommunicatorOptions& options, KeyValueStore* store) override;
  // Resets the GPU's primary context (cudaDeviceReset): the process then
  // holds no GPU memory. Only with no communicator alive. Errors:
  // FAILED_PRECONDITION an abandoned init still runs on the GPU.
  absl::Status ReleaseDevice() override;

 private:
  const int gpu_;
  const double mem_fraction_;
  // Set once a communicator made the CUDA context; cleared by a release.
  bool device_held_ = false;
  // Inits past their deadline whose helper thread is still inside NCCL.
  std::atomic<int> abandoned_inits_{0};
};

}  // namespace fabricpulse::backend
