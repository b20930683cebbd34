// Helpers for Gloo backend tests: N ranks as N threads of the test process,
// rendezvousing through an in-memory store over real Gloo TCP on 127.0.0.1.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "daemon/backend/collective_backend.h"
#include "daemon/backend/gloo/gloo_backend.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_kv_store.h"

namespace fabricpulse::backend::gloo_test {

inline constexpr absl::Duration kInitTimeout = absl::Seconds(20);
inline constexpr absl::Duration kOpTimeout = absl::Seconds(20);

// Runs fn(rank) on one thread per rank and returns the results by rank.
template <typename Fn>
auto OnAllRanks(int nranks, Fn fn) {
  std::vector<decltype(fn(0))> results(nranks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < nranks; ++rank) {
    threads.emplace_back([&, rank] { results[rank] = fn(rank); });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

inline CommunicatorOptions OptionsFor(
    int rank, int nranks, absl::Duration init_timeout = kInitTimeout) {
  CommunicatorOptions options;
  options.rank = rank;
  options.nranks = nranks;
  options.key_prefix = "test/comm0";
  options.init_timeout = init_timeout;
  return options;
}

// Connects `nranks` communicators concurrently; empty on failure.
inline std::vector<std::unique_ptr<Communicator>> ConnectAll(
    GlooBackend& backend, fakes::InMemoryKvStore& store, int nranks) {
  auto created = OnAllRanks(nranks, [&](int rank) {
    return backend.CreateCommunicator(OptionsFor(rank, nranks), &store);
  });
  std::vector<std::unique_ptr<Communicator>> comms;
  for (auto& comm : created) {
    EXPECT_TRUE(comm.ok()) << comm.status();
    if (!comm.ok()) return {};
    comms.push_back(*std::move(comm));
  }
  return comms;
}

// Destroys the communicators concurrently: each closes its pairs, waiting
// for a tick of Gloo's event loop, so this keeps tests quick.
inline void DestroyAll(std::vector<std::unique_ptr<Communicator>>& comms) {
  OnAllRanks(static_cast<int>(comms.size()), [&](int rank) {
    comms[rank].reset();
    return 0;
  });
}

// `n` connected ranks, destroyed together.
struct GlooRanks {
  explicit GlooRanks(int n) : comms(ConnectAll(backend, store, n)) {
    EXPECT_EQ(comms.size(), static_cast<size_t>(n));
  }
  ~GlooRanks() { DestroyAll(comms); }
  bool ok() const { return !comms.empty(); }

  fakes::InMemoryKvStore store;
  GlooBackend backend{"127.0.0.1"};
  std::vector<std::unique_ptr<Communicator>> comms;  // after its store
};

}  // namespace fabricpulse::backend::gloo_test
