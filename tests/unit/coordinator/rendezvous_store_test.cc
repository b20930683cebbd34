// RendezvousStore: sweep scopes, the member check, every bound, and every
// way a wait ends, on a fake clock.
#include "daemon/coordinator/rendezvous_store.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace fabricpulse::coordinator {
namespace {

using ::testing::HasSubstr;

constexpr char kScope[] = "c0123/20250101-000000-0001/";

std::string Key(const std::string& name) { return kScope + name; }

// One Get's answer, which may come on another thread.
struct Answer {
  absl::Notification done;
  absl::StatusOr<std::string> value;
  RendezvousStore::GetDone Callback() {
    return [this](absl::StatusOr<std::string> v) {
      value = std::move(v);
      done.Notify();
    };
  }
  bool Wait() { return done.WaitForNotificationWithTimeout(absl::Seconds(10)); }
};

class RendezvousStoreTest : public ::testing::Test {
 protected:
  explicit RendezvousStoreTest(RendezvousLimits limits = {})
      : store_(std::make_unique<RendezvousStore>(&clock_, limits)) {}
  void OpenDefault(int nranks = 2) {
    ASSERT_TRUE(store_->OpenScope(kScope, {"node-a", "node-b"}, nranks).ok());
  }
  fakes::FakeClock clock_;
  std::unique_ptr<RendezvousStore> store_;
};

TEST_F(RendezvousStoreTest, RefusesEveryKeyWhileNoSweepRuns) {
  absl::Status set = store_->Set("", Key("0"), "v");
  EXPECT_EQ(set.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(set.message()),
              HasSubstr("no running sweep owns this key"));
  Answer get;
  EXPECT_EQ(store_->Get("", Key("0"), absl::Seconds(5), get.Callback()), 0u);
  ASSERT_TRUE(get.done.HasBeenNotified());
  EXPECT_EQ(get.value.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->usage().keys, 0u);
  EXPECT_EQ(store_->usage().waiters, 0u);
  EXPECT_EQ(store_->sets(), 0u);
}

TEST_F(RendezvousStoreTest, KeysLiveOnlyWhileTheirScopeIsOpen) {
  OpenDefault();
  ASSERT_TRUE(store_->Set("", Key("0"), "addr-0").ok());
  Answer get;
  EXPECT_EQ(store_->Get("", Key("0"), absl::Seconds(5), get.Callback()), 0u);
  ASSERT_TRUE(get.done.HasBeenNotified());
  ASSERT_TRUE(get.value.ok()) << get.value.status();
  EXPECT_EQ(*get.value, "addr-0");
  // The scope's own name, and a neighbour's, are no keys of it.
  EXPECT_EQ(store_->Set("", kScope, "v").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->Set("", "c0123/20250101-000000-0002/0", "v").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->usage().keys, 1u);

  store_->CloseScope(kScope);
  EXPECT_EQ(store_->usage().keys, 0u);
  EXPECT_EQ(store_->usage().bytes, 0u);
  EXPECT_EQ(store_->usage().scopes, 0u);
  Answer after;
  store_->Get("", Key("0"), absl::Seconds(5), after.Callback());
  ASSERT_TRUE(after.done.HasBeenNotified());
  EXPECT_EQ(after.value.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->sets(), 1u);
}

TEST_F(RendezvousStoreTest, OnlyMembersMayUseTheirSweepsKeys) {
  OpenDefault();
  EXPECT_TRUE(store_->Set("node-a", Key("0"), "v").ok());
  absl::Status set = store_->Set("node-z", Key("1"), "v");
  EXPECT_EQ(set.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(set.message()),
              HasSubstr("node 'node-z' is not a member"));
  Answer denied;
  store_->Get("node-z", Key("0"), absl::Seconds(5), denied.Callback());
  ASSERT_TRUE(denied.done.HasBeenNotified());
  EXPECT_EQ(denied.value.status().code(), absl::StatusCode::kPermissionDenied);
  // An unknown caller (plaintext) is not checked; a member reads.
  Answer member;
  store_->Get("node-b", Key("0"), absl::Seconds(5), member.Callback());
  ASSERT_TRUE(member.value.ok()) << member.value.status();
  EXPECT_TRUE(store_->Set("", Key("2"), "v").ok());
  // A long node name is quoted short.
  absl::Status long_name = store_->Set(std::string(5000, 'n'), Key("3"), "v");
  EXPECT_EQ(long_name.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_LT(long_name.message().size(), 200u);
}

TEST_F(RendezvousStoreTest, ScopesMustBeWellFormedAndNeverNest) {
  EXPECT_EQ(store_->OpenScope("", {}, 1).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->OpenScope("c0/s0", {}, 1).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->OpenScope("c0/s0/", {}, 0).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(store_->OpenScope("c0/s0/", {}, 1).ok());
  EXPECT_EQ(store_->OpenScope("c0/s0/", {}, 1).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->OpenScope("c0/", {}, 1).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->OpenScope("c0/s0/x/", {}, 1).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(store_->OpenScope("c0/s1/", {}, 1).ok());
  EXPECT_EQ(store_->usage().scopes, 2u);
  store_->CloseScope("c9/none/");  // not open: nothing
  EXPECT_EQ(store_->usage().scopes, 2u);
}

TEST_F(RendezvousStoreTest, RefusesAnEmptyOrOverlongKey) {
  OpenDefault();
  EXPECT_EQ(store_->Set("", "", "v").code(),
            absl::StatusCode::kInvalidArgument);
  const std::string long_key = Key(std::string(600, 'k'));
  absl::Status set = store_->Set("", long_key, "v");
  EXPECT_EQ(set.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(set.message()),
              HasSubstr("rendezvous bound on key length"));
  EXPECT_LT(set.message().size(), 200u);  // the key itself is not quoted
  Answer get;
  store_->Get("", long_key, absl::Seconds(1), get.Callback());
  EXPECT_EQ(get.value.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(RendezvousStoreTest, BoundsValueBytesKeysAndBytesPerSweep) {
  OpenDefault(/*nranks=*/2);
  const RendezvousScopeBudget budget = store_->limits().ForRanks(2);
  absl::Status big =
      store_->Set("", Key("big"), std::string(budget.max_value_bytes + 1, 'x'));
  EXPECT_EQ(big.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(big.message()),
              HasSubstr("rendezvous bound on value bytes per key"));
  EXPECT_THAT(std::string(big.message()), HasSubstr("sweep of 2 ranks"));
  EXPECT_TRUE(
      store_->Set("", Key("max"), std::string(budget.max_value_bytes, 'x'))
          .ok());

  // Keys: small values until the key bound.
  absl::Status last;
  size_t written = 1;
  while (written < budget.max_keys + 5) {
    last = store_->Set("", Key(absl::StrCat("k", written)), "v");
    if (!last.ok()) break;
    written++;
  }
  EXPECT_EQ(written, budget.max_keys);
  EXPECT_EQ(last.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(last.message()),
              HasSubstr("rendezvous bound on keys per sweep"));
  // Overwriting a key adds no key and charges the new value only.
  const size_t bytes = store_->usage().bytes;
  EXPECT_TRUE(store_->Set("", Key("k1"), "vvvv").ok());
  EXPECT_EQ(store_->usage().bytes, bytes + 3);
  EXPECT_EQ(store_->usage().keys, budget.max_keys);
}

TEST_F(RendezvousStoreTest, BoundsBytesPerSweepBeforeKeys) {
  // At 16 ranks, the key bound's worth of the largest values is more than
  // the byte bound.
  OpenDefault(/*nranks=*/16);
  const RendezvousScopeBudget budget = store_->limits().ForRanks(16);
  ASSERT_GT(budget.max_keys * budget.max_value_bytes, budget.max_bytes);
  absl::Status last;
  int written = 0;
  while (written < 100000) {
    last = store_->Set("", Key(absl::StrCat(written)),
                       std::string(budget.max_value_bytes, 'x'));
    if (!last.ok()) break;
    written++;
  }
  EXPECT_EQ(last.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(last.message()),
              HasSubstr("rendezvous bound on bytes per sweep"));
  EXPECT_LE(store_->usage().bytes, budget.max_bytes);
  EXPECT_LT(static_cast<size_t>(written), budget.max_keys);
}

class RendezvousTotalsTest : public RendezvousStoreTest {
 protected:
  static RendezvousLimits Small() {
    RendezvousLimits limits;
    limits.max_total_bytes = 64 * 1024;
    limits.max_total_waiters = 3;
    return limits;
  }
  RendezvousTotalsTest() : RendezvousStoreTest(Small()) {}
};

TEST_F(RendezvousTotalsTest, BoundsBytesOverAllSweeps) {
  // Each of these scopes could hold more than the total alone.
  ASSERT_GT(store_->limits().ForRanks(64).max_bytes, 64u * 1024);
  absl::Status last;
  int written = 0;
  for (int scope = 0; scope < 8 && last.ok(); ++scope) {
    const std::string prefix = absl::StrCat("c/s", scope, "/");
    ASSERT_TRUE(store_->OpenScope(prefix, {}, 64).ok());
    for (int k = 0; k < 4 && last.ok(); ++k) {
      last = store_->Set("", absl::StrCat(prefix, k), std::string(4000, 'x'));
      written += last.ok();
    }
  }
  EXPECT_EQ(last.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(last.message()),
              HasSubstr("rendezvous bound on bytes over all sweeps"));
  EXPECT_LE(store_->usage().bytes, 64u * 1024);
  EXPECT_GE(written, 15);
}

TEST_F(RendezvousTotalsTest, BoundsWaitsPerSweepAndOverAllSweeps) {
  ASSERT_TRUE(store_->OpenScope("c/a/", {}, 1).ok());
  ASSERT_TRUE(store_->OpenScope("c/b/", {}, 1).ok());
  Answer a[3];
  for (Answer& w : a) {
    EXPECT_NE(store_->Get("", "c/a/k", absl::Seconds(30), w.Callback()), 0u);
  }
  Answer over;
  store_->Get("", "c/b/k", absl::Seconds(30), over.Callback());
  ASSERT_TRUE(over.done.HasBeenNotified());
  EXPECT_EQ(over.value.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.value.status().message()),
              HasSubstr("rendezvous bound on waiting calls over all sweeps"));
  store_->CloseScope("c/a/");
  for (Answer& w : a) ASSERT_TRUE(w.done.HasBeenNotified());
}

TEST_F(RendezvousStoreTest, BoundsWaitsPerSweep) {
  OpenDefault(/*nranks=*/1);
  const size_t bound = store_->limits().ForRanks(1).max_waiters;
  std::vector<std::unique_ptr<Answer>> waits;
  for (size_t i = 0; i < bound; ++i) {
    waits.push_back(std::make_unique<Answer>());
    EXPECT_NE(
        store_->Get("", Key("k"), absl::Seconds(30), waits.back()->Callback()),
        0u);
  }
  Answer over;
  store_->Get("", Key("k"), absl::Seconds(30), over.Callback());
  ASSERT_TRUE(over.done.HasBeenNotified());
  EXPECT_EQ(over.value.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.value.status().message()),
              HasSubstr("rendezvous bound on waiting calls per sweep"));
  // The Set answers every one of them.
  ASSERT_TRUE(store_->Set("", Key("k"), "v").ok());
  for (auto& w : waits) {
    ASSERT_TRUE(w->done.HasBeenNotified());
    EXPECT_EQ(*w->value, "v");
  }
  EXPECT_EQ(store_->usage().waiters, 0u);
}

TEST_F(RendezvousStoreTest, AWaitEndsAtItsDeadline) {
  OpenDefault();
  Answer get;
  EXPECT_NE(store_->Get("", Key("late"), absl::Seconds(5), get.Callback()), 0u);
  ASSERT_TRUE(clock_.WaitForWaiter());
  clock_.Advance(absl::Seconds(4));
  EXPECT_FALSE(get.done.HasBeenNotified());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(get.Wait());
  EXPECT_EQ(get.value.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(store_->usage().waiters, 0u);
  // No wait asked: answered at once.
  Answer now;
  EXPECT_EQ(store_->Get("", Key("late"), absl::ZeroDuration(), now.Callback()),
            0u);
  EXPECT_EQ(now.value.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_F(RendezvousStoreTest, AnEarlierDeadlineAddedLaterComesFirst) {
  OpenDefault();
  Answer slow, fast;
  store_->Get("", Key("a"), absl::Seconds(50), slow.Callback());
  ASSERT_TRUE(clock_.WaitForWaiter());
  store_->Get("", Key("b"), absl::Seconds(2), fast.Callback());
  // A second at a time, each given (real) time to be noticed.
  for (int i = 0; i < 10 && !fast.done.HasBeenNotified(); ++i) {
    clock_.Advance(absl::Seconds(1));
    fast.done.WaitForNotificationWithTimeout(absl::Seconds(1));
  }
  ASSERT_TRUE(fast.done.HasBeenNotified());
  EXPECT_EQ(fast.value.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_FALSE(slow.done.HasBeenNotified());
  store_->Shutdown();  // before `slow` goes
  EXPECT_EQ(slow.value.status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(RendezvousStoreTest, ClosingTheScopeEndsItsWaitsAtOnce) {
  OpenDefault();
  ASSERT_TRUE(store_->OpenScope("c9/other/", {}, 1).ok());
  Answer mine, other;
  store_->Get("", Key("never"), absl::Seconds(50), mine.Callback());
  store_->Get("", "c9/other/k", absl::Seconds(50), other.Callback());
  store_->CloseScope(kScope);
  ASSERT_TRUE(mine.done.HasBeenNotified());  // before CloseScope returned
  EXPECT_EQ(mine.value.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(mine.value.status().message()),
              HasSubstr("the sweep ended while waiting"));
  EXPECT_FALSE(other.done.HasBeenNotified());
  EXPECT_EQ(store_->usage().waiters, 1u);
  store_->Shutdown();  // before `other` goes
}

TEST_F(RendezvousStoreTest, ACancelledWaitIsRemovedAtOnce) {
  OpenDefault();
  Answer get;
  const uint64_t id =
      store_->Get("", Key("never"), absl::Seconds(50), get.Callback());
  ASSERT_NE(id, 0u);
  EXPECT_EQ(store_->usage().waiters, 1u);
  store_->Cancel(id);
  ASSERT_TRUE(get.done.HasBeenNotified());  // before Cancel returned
  EXPECT_EQ(get.value.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(store_->usage().waiters, 0u);
  store_->Cancel(id);  // answered: nothing
  store_->Cancel(0);
  // A later Set finds nobody waiting.
  EXPECT_TRUE(store_->Set("", Key("never"), "v").ok());
}

TEST_F(RendezvousStoreTest, ShutdownEndsEveryWaitAndRefusesLaterCalls) {
  OpenDefault();
  ASSERT_TRUE(store_->Set("", Key("0"), "v").ok());
  Answer get;
  store_->Get("", Key("never"), absl::Seconds(50), get.Callback());
  store_->Shutdown();
  ASSERT_TRUE(get.done.HasBeenNotified());
  EXPECT_EQ(get.value.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(get.value.status().message()),
              HasSubstr("shutting down"));
  EXPECT_EQ(store_->usage().keys, 0u);
  EXPECT_EQ(store_->Set("", Key("1"), "v").code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(store_->OpenScope("c/new/", {}, 1).code(),
            absl::StatusCode::kUnavailable);
  store_->Shutdown();  // idempotent
}

}  // namespace
}  // namespace fabricpulse::coordinator
