#include "daemon/backend/nccl/nccl_backend.h"

#include <sched.h>

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

// The blocking data communicator, built on a helper thread so that a peer
// dying mid-init cannot hang the caller past `deadline` (the helper is then
// left behind; its communicator, if it ever completes, is leaked).
absl::StatusOr<ncclComm_t> InitBlocking(const CommunicatorOptions& options,
                                        KeyValueStore* store,
                                        absl::Time deadline, int gpu) {
  auto id =
      ExchangeId(options, store,
                 absl::StrCat(options.key_prefix, "/nccl-data-id"), deadline);
  if (!id.ok()) return id.status();
  struct Shared {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    bool abandoned ABSL_GUARDED_BY(mu) = false;
    ncclResult_t result ABSL_GUARDED_BY(mu) = ncclInternalError;
    ncclComm_t comm ABSL_GUARDED_BY(mu) = nullptr;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, options, gpu, id = *id]() mutable {
    cudaSetDevice(gpu);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    ncclComm_t comm = nullptr;
    ncclResult_t r = ncclCommInitRankConfig(&comm, options.nranks, id,
                                            options.rank, &config);
    absl::MutexLock lock(&shared->mu);
    if (shared->abandoned) {
      if (comm != nullptr) ncclCommAbort(comm);
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
    return absl::DeadlineExceededError(
        absl::StrCat("NCCL data communicator init (rank ", options.rank, " of ",
                     options.nranks, ") did not complete within ",
                     absl::FormatDuration(options.init_timeout)));
  }
  if (shared->result != ncclSuccess) {
    absl::Status status = NcclToStatus(
        shared->result, "NCCL data communicator init", shared->comm);
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
  auto unique =
      ExchangeId(options, store,
                 absl::StrCat(options.key_prefix, "/nccl-unique-id"), deadline);
  if (!unique.ok()) return unique.status();
  const ncclUniqueId id = *unique;

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t r =
      ncclCommInitRankConfig(&comm, options.nranks, id, options.rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    return NcclToStatus(r, "ncclCommInitRankConfig", comm);
  }
  // Non-blocking init: poll to completion against the deadline.
  ncclResult_t state = ncclInProgress;
  while (true) {
    ncclCommGetAsyncError(comm, &state);
    if (state != ncclInProgress) break;
    if (absl::Now() >= deadline) {
      ncclCommAbort(comm);
      return absl::DeadlineExceededError(
          absl::StrCat("NCCL communicator init (rank ", options.rank, " of ",
                       options.nranks, ") did not complete within ",
                       absl::FormatDuration(options.init_timeout)));
    }
    sched_yield();
  }
  if (state != ncclSuccess) {
    absl::Status status = NcclToStatus(state, "NCCL communicator init", comm);
    ncclCommAbort(comm);
    return status;
  }
  // Ops run on a second, blocking communicator over the same ranks: on a
  // non-blocking communicator every collective becomes an asynchronous NCCL
  // job (tens of microseconds of host time each), which starves the GPU and
  // puts small-message latency far above NCCL's floor. The non-blocking
  // one proved, within the deadline, that every rank is alive and
  // connected; the blocking init runs on a helper thread bounded by the same
  // deadline, and the data communicator's calls are bounded by its
  // watchdog. (ncclCommSplit of a non-blocking parent into a blocking child
  // failed with an internal error in NCCL 2.28.9.)
  auto data = InitBlocking(options, store, deadline, gpu_);
  ncclCommAbort(comm);  // served its purpose; frees its resources
  if (!data.ok()) return data.status();
  return NcclCommunicator::Create(*data, gpu_, options.rank, options.nranks,
                                  mem_fraction_);
}

}  // namespace fabricpulse::backend
