#include "daemon/backend/nccl/nccl_backend.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "daemon/backend/nccl/cuda_status.h"
#include "daemon/backend/nccl/nccl_communicator.h"

namespace fabricpulse::backend {

namespace {

// Rank 0 publishes `key`'s unique id; the others read it.
absl::StatusOr<ncclUniqueId> ExchangeId(const CommunicatorOptions& options,
                                        KeyValueStore* store,
                                        const std::string& key,
                                        absl::Time deadline) {
  ncclUniqueId id;
  if (options.rank == 0) {
    absl::Status made = NcclToStatus(ncclGetUniqueId(&id), "ncclGetUniqueId");
    if (!made.ok()) return made;
    absl::Status set =
        store->Set(key, std::string(reinterpret_cast<char*>(&id), sizeof(id)));
    if (!set.ok()) return set;
    return id;
  }
  auto value = store->Get(key, deadline - absl::Now());
  if (!value.ok()) return value.status();
  if (value->size() != sizeof(id)) {
    return absl::InternalError(absl::StrCat("rendezvous: unique id has ",
                                            value->size(), " bytes, expected ",
                                            sizeof(id)));
  }
  std::memcpy(&id, value->data(), sizeof(id));
  return id;
}

// The communicator: blocking (a non-blocking one turns every collective
// into an asynchronous NCCL job, tens of microseconds of host time each,
// far above NCCL's small-message floor), built on a helper thread so that a
// peer dying or stopped mid-init cannot hang the caller past `deadline`. An
// init that misses it is abandoned: the helper aborts the communicator
// when (if ever) NCCL returns, and AbandonedInits() counts it meanwhile.
absl::StatusOr<ncclComm_t> InitBounded(const CommunicatorOptions& options,
                                       const ncclUniqueId& id,
                                       absl::Time deadline, int gpu,
                                       std::atomic<int>* abandoned_inits) {
  struct Shared {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    bool abandoned ABSL_GUARDED_BY(mu) = false;
    ncclResult_t result ABSL_GUARDED_BY(mu) = ncclInternalError;
    ncclComm_t comm ABSL_GUARDED_BY(mu) = nullptr;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, options, gpu, id, abandoned_inits]() mutable {
    cudaSetDevice(gpu);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    ncclComm_t comm = nullptr;
    ncclResult_t r = ncclCommInitRankConfig(&comm, options.nranks, id,
                                            options.rank, &config);
    absl::MutexLock lock(&shared->mu);
    if (shared->abandoned) {
      if (comm != nullptr) ncclCommAbort(comm);
      abandoned_inits->fetch_sub(1);
      return;
    }
    shared->done = true;
    shared->result = r;
    shared->comm = comm;
  }).detach();
  absl::MutexLock lock(&shared->mu);
  auto done = [&shared]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(shared->mu) {
    return shared->done;
  };
  if (!shared->mu.AwaitWithDeadline(absl::Condition(&done), deadline)) {
    shared->abandoned = true;
    abandoned_inits->fetch_add(1);
    return absl::DeadlineExceededError(
        absl::StrCat("NCCL communicator init (rank ", options.rank, " of ",
                     options.nranks, ") did not complete within ",
                     absl::FormatDuration(options.init_timeout)));
  }
  if (shared->result != ncclSuccess) {
    absl::Status status =
        NcclToStatus(shared->result, "NCCL communicator init", shared->comm);
    if (shared->comm != nullptr) ncclCommAbort(shared->comm);
    return status;
  }
  return shared->comm;
}

}  // namespace

NcclBackend::NcclBackend(int gpu, double mem_fraction)
    : gpu_(gpu), mem_fraction_(mem_fraction) {}

std::string NcclBackend::version() const {
  int v = 0;
  ncclGetVersion(&v);
  return absl::StrCat("nccl ", v / 10000, ".", (v / 100) % 100, ".", v % 100);
}

absl::StatusOr<std::unique_ptr<Communicator>> NcclBackend::CreateCommunicator(
    const CommunicatorOptions& options, KeyValueStore* store) {
  const absl::Time deadline = absl::Now() + options.init_timeout;
  absl::Status device = CudaToStatus(cudaSetDevice(gpu_),
                                     absl::StrCat("cudaSetDevice(", gpu_, ")"));
  if (!device.ok()) return device;

  // Rank 0's id encodes its bootstrap address; the others read it.
  auto id =
      ExchangeId(options, store,
                 absl::StrCat(options.key_prefix, "/nccl-unique-id"), deadline);
  if (!id.ok()) return id.status();
  // One communicator per worker (issue 14): before, a non-blocking one
  // proved the peers alive and was aborted, then a second, blocking one
  // carried the ops, which doubled the init cost. The blocking init on a
  // helper thread keeps the same bound (the deadline), and the ops' calls
  // are bounded by the communicator's watchdog.
  auto comm = InitBounded(options, *id, deadline, gpu_, &abandoned_inits_);
  if (!comm.ok()) return comm.status();
  device_held_ = true;
  return NcclCommunicator::Create(*comm, gpu_, options.rank, options.nranks,
                                  mem_fraction_);
}

absl::Status NcclBackend::ReleaseDevice() {
  if (!device_held_) return absl::OkStatus();
  // An abandoned init may still be inside NCCL on this device: resetting it
  // under that thread is undefined, so the context stays until it returns.
  if (abandoned_inits_.load() > 0) {
    return absl::FailedPreconditionError(
        "an abandoned communicator init is still running on this GPU");
  }
  absl::Status status = CudaToStatus(cudaSetDevice(gpu_), "cudaSetDevice");
  if (status.ok()) status = CudaToStatus(cudaDeviceReset(), "cudaDeviceReset");
  if (status.ok()) device_held_ = false;
  return status;
}

}  // namespace fabricpulse::backend
