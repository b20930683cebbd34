// What the rendezvous really writes, measured through the coordinator's
// RendezvousStore in a scope with the budget of the sweep's rank count:
// real Gloo (GlooBackend over TCP on 127.0.0.1, ranks as threads) at 2, 4
// and 16 ranks, and the NCCL backend's exchange (two 128-byte ids that rank
// 0 writes and every other rank waits for). The figures in
// rendezvous_limits.h come from this test's output; it fails when a
// rendezvous outgrows its budget, or leaves a key behind its scope's close.
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/backend/gloo/gloo_backend.h"
#include "daemon/backend/key_value_store.h"
#include "daemon/coordinator/rendezvous_store.h"
#include "daemon/core/clock.h"
#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {

// One rank's view of the store, as its node, recording what it writes.
class RankStore : public backend::KeyValueStore {
 public:
  // What every rank writes, and how many Gets are in flight, are shared.
  struct Shared {
    absl::Mutex mu;
    std::map<std::string, size_t> written ABSL_GUARDED_BY(mu);
    size_t in_flight ABSL_GUARDED_BY(mu) = 0;
    size_t peak_in_flight ABSL_GUARDED_BY(mu) = 0;
  };
  RankStore(RendezvousStore* store, std::string node, Shared* shared)
      : store_(store), node_(std::move(node)), shared_(shared) {}

  absl::Status Set(const std::string& key, const std::string& value) override {
    {
      absl::MutexLock lock(&shared_->mu);
      shared_->written[key] = value.size();
    }
    return store_->Set(node_, key, value);
  }
  absl::StatusOr<std::string> Get(const std::string& key,
                                  absl::Duration timeout) override {
    {
      absl::MutexLock lock(&shared_->mu);
      shared_->in_flight++;
      shared_->peak_in_flight =
          std::max(shared_->peak_in_flight, shared_->in_flight);
    }
    absl::Notification done;
    absl::StatusOr<std::string> answer;
    store_->Get(node_, key, timeout, [&](absl::StatusOr<std::string> v) {
      answer = std::move(v);
      done.Notify();
    });
    done.WaitForNotification();
    absl::MutexLock lock(&shared_->mu);
    shared_->in_flight--;
    return answer;
  }

 private:
  RendezvousStore* const store_;
  const std::string node_;
  Shared* const shared_;
};

struct Footprint {
  size_t keys = 0;
  size_t max_key = 0;
  size_t max_value = 0;
  size_t bytes = 0;  // as the store counts them
  // Most Gets in flight at once (an upper bound on the store's waits).
  size_t max_waiters = 0;
};

// Two ranks per node, as a small fleet would be.
std::vector<std::string> Nodes(int nranks) {
  std::vector<std::string> nodes;
  for (int r = 0; r < nranks; r += 2) nodes.push_back(absl::StrCat("node-", r));
  return nodes;
}

class RendezvousFootprintTest : public ::testing::TestWithParam<int> {
 protected:
  RendezvousStore store_{core::RealClock::Get()};
  RankStore::Shared shared_;

  Footprint Measure() {
    Footprint f;
    absl::MutexLock lock(&shared_.mu);
    f.keys = shared_.written.size();
    f.max_waiters = shared_.peak_in_flight;
    for (const auto& [key, size] : shared_.written) {
      f.max_key = std::max(f.max_key, key.size());
      f.max_value = std::max(f.max_value, size);
    }
    f.bytes = store_.usage().bytes;
    return f;
  }
};

TEST_P(RendezvousFootprintTest, GlooFitsItsBudget) {
  const int nranks = GetParam();
  const std::string scope = "c0123456789abcdef/20250101-000000-abcd/";
  ASSERT_TRUE(store_.OpenScope(scope, Nodes(nranks), nranks).ok());
  backend::GlooBackend backend("127.0.0.1");
  std::vector<absl::StatusOr<std::unique_ptr<backend::Communicator>>> comms(
      nranks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < nranks; ++rank) {
    threads.emplace_back([&, rank] {
      RankStore kv(&store_, absl::StrCat("node-", rank / 2 * 2), &shared_);
      backend::CommunicatorOptions options;
      options.rank = rank;
      options.nranks = nranks;
      // As worker_service.cc names it: "<comm_id>/<sweep_id>".
      options.key_prefix = scope.substr(0, scope.size() - 1);
      options.init_timeout = absl::Seconds(60);
      comms[rank] = backend.CreateCommunicator(options, &kv);
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& comm : comms) ASSERT_TRUE(comm.ok()) << comm.status();

  const Footprint f = Measure();
  const RendezvousScopeBudget budget = store_.limits().ForRanks(nranks);
  std::printf(
      "gloo %d ranks: %zu keys, longest key %zu B, largest value %zu B, "
      "%zu B charged, at most %zu gets at once; budget %zu keys, %zu B per "
      "value, %zu B, %zu waits\n",
      nranks, f.keys, f.max_key, f.max_value, f.bytes, f.max_waiters,
      budget.max_keys, budget.max_value_bytes, budget.max_bytes,
      budget.max_waiters);
  // The margin the header states: at least twice what Gloo writes.
  EXPECT_LE(2 * f.keys, budget.max_keys);
  EXPECT_LE(2 * f.max_value, budget.max_value_bytes);
  EXPECT_LE(2 * f.bytes, budget.max_bytes);
  EXPECT_LE(2 * f.max_waiters, budget.max_waiters);
  EXPECT_LE(f.max_key, 64u);
  EXPECT_EQ(store_.usage().waiters, 0u);

  store_.CloseScope(scope);
  EXPECT_EQ(store_.usage().keys, 0u);
  EXPECT_EQ(store_.usage().bytes, 0u);
  for (auto& comm : comms) comm->reset();
}

// The NCCL backend's exchange (nccl_backend.cc), without a GPU: rank 0
// writes each 128-byte id once; the others wait for it.
TEST_P(RendezvousFootprintTest, NcclStyleIdsFitTheirBudget) {
  const int nranks = GetParam();
  const std::string scope = "cfedcba9876543210/20250101-000000-abce/";
  ASSERT_TRUE(store_.OpenScope(scope, Nodes(nranks), nranks).ok());
  std::vector<absl::Status> results(nranks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < nranks; ++rank) {
    threads.emplace_back([&, rank] {
      RankStore kv(&store_, absl::StrCat("node-", rank / 2 * 2), &shared_);
      for (const char* name : {"nccl-unique-id", "nccl-data-id"}) {
        const std::string key = absl::StrCat(scope, name);
        if (rank == 0) {
          // As with a slow rank 0: every other rank waits first.
          const absl::Time deadline = absl::Now() + absl::Seconds(10);
          while (store_.usage().waiters < static_cast<size_t>(nranks - 1) &&
                 absl::Now() < deadline) {
            absl::SleepFor(absl::Milliseconds(1));
          }
          results[rank].Update(kv.Set(key, std::string(128, '\x7f')));
          continue;
        }
        auto id = kv.Get(key, absl::Seconds(30));
        results[rank].Update(id.status());
        if (id.ok()) {
          EXPECT_EQ(id->size(), 128u);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  const Footprint f = Measure();
  const RendezvousScopeBudget budget = store_.limits().ForRanks(nranks);
  std::printf(
      "nccl %d ranks: %zu keys, largest value %zu B, %zu B charged, at most "
      "%zu gets at once\n",
      nranks, f.keys, f.max_value, f.bytes, f.max_waiters);
  EXPECT_EQ(f.keys, 2u);
  EXPECT_EQ(f.max_value, 128u);
  EXPECT_EQ(f.max_waiters, static_cast<size_t>(nranks - 1));
  EXPECT_LE(2 * f.bytes, budget.max_bytes);
  EXPECT_LE(2 * f.max_waiters, budget.max_waiters);
  store_.CloseScope(scope);
  EXPECT_EQ(store_.usage().keys, 0u);
}

INSTANTIATE_TEST_SUITE_P(Ranks, RendezvousFootprintTest,
                         ::testing::Values(2, 4, 16), [](const auto& info) {
                           return absl::StrCat("n", info.param);
                         });

}  // namespace
}  // namespace fabricpulse::coordinator
