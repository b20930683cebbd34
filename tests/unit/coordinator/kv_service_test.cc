// KvSet/KvGet through a real gRPC server on 127.0.0.1:0 over the
// orchestrator's rendezvous store: waiting calls hold no server thread, a
// cancelled call's wait is removed at once, and the store's shutdown ends
// every wait.
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "daemon/common/grpc_server.h"
#include "daemon/coordinator/coordinator_service.h"
#include "grpcpp/grpcpp.h"
#include "tests/unit/coordinator/orchestrator_fixture.h"

namespace fabricpulse::testing {
namespace {

constexpr char kScope[] = "c1/20250101-000000-0001/";

// Polls `condition` (real time) until it holds or `timeout` passes.
bool Eventually(const std::function<bool()>& condition,
                absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    int n = 0;
    if (line.rfind("Threads:", 0) == 0 &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(8)), &n)) {
      return n;
    }
  }
  return -1;
}

// One KvGet in flight on the client's callback API.
struct PendingGet {
  grpc::ClientContext context;
  v1::KvGetRequest request;
  v1::KvGetResponse response;
  grpc::Status status;
  absl::Notification done;
};

class KvServiceTest : public OrchestratorTest {
 protected:
  void SetUp() override {
    OrchestratorTest::SetUp();
    service_ = std::make_unique<coordinator::CoordinatorServiceImpl>(
        orchestrator_.get(), &orchestrator_->rendezvous(), history_.get());
    auto listening = common::StartGrpcServer(
        "127.0.0.1:0", service_.get(), grpc::InsecureServerCredentials(),
        1 << 20, common::kCoordinatorCallLimits);
    ASSERT_TRUE(listening.ok()) << listening.status();
    server_ = std::move(listening->server);
    stub_ = v1::CoordinatorService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", listening->port),
                            grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    store().Shutdown();
    if (server_) server_->Shutdown();
    service_.reset();
    OrchestratorTest::TearDown();
  }
  coordinator::RendezvousStore& store() { return orchestrator_->rendezvous(); }

  std::unique_ptr<PendingGet> StartGet(const std::string& key,
                                       double wait_seconds) {
    auto get = std::make_unique<PendingGet>();
    get->request.set_key(key);
    get->request.set_wait_seconds(wait_seconds);
    get->context.set_deadline(std::chrono::system_clock::now() +
                              std::chrono::seconds(120));
    PendingGet* g = get.get();
    stub_->async()->KvGet(&g->context, &g->request, &g->response,
                          [g](grpc::Status status) {
                            g->status = std::move(status);
                            g->done.Notify();
                          });
    return get;
  }
  grpc::Status Set(const std::string& key, const std::string& value) {
    grpc::ClientContext context;
    v1::KvSetRequest request;
    request.set_key(key);
    request.set_value(value);
    v1::KvSetResponse response;
    return stub_->KvSet(&context, request, &response);
  }

  std::unique_ptr<coordinator::CoordinatorServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

TEST_F(KvServiceTest, RefusesKeysOfNoRunningSweep) {
  grpc::Status set = Set(absl::StrCat(kScope, "0"), std::string(1 << 18, 'x'));
  EXPECT_EQ(set.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  auto get = StartGet(absl::StrCat(kScope, "0"), 30);
  ASSERT_TRUE(get->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(get->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(KvServiceTest, ASetAnswersTheWaitingCall) {
  ASSERT_TRUE(store().OpenScope(kScope, {"node-a"}, 2).ok());
  auto get = StartGet(absl::StrCat(kScope, "0"), 30);
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 1; },
                         absl::Seconds(10)));
  ASSERT_TRUE(Set(absl::StrCat(kScope, "0"), "addr").ok());
  ASSERT_TRUE(get->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(get->status.ok()) << get->status.error_message();
  EXPECT_EQ(get->response.value(), "addr");
}

TEST_F(KvServiceTest, ACancelledCallsWaitIsRemovedAtOnce) {
  ASSERT_TRUE(store().OpenScope(kScope, {"node-a"}, 2).ok());
  // 50 s: the store's clock is fake, so only the cancellation can end it.
  auto get = StartGet(absl::StrCat(kScope, "never"), 50);
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 1; },
                         absl::Seconds(10)));
  const absl::Time cancelled = absl::Now();
  get->context.TryCancel();
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 0; },
                         absl::Seconds(10)));
  EXPECT_LT(absl::Now() - cancelled, absl::Seconds(2));
  ASSERT_TRUE(get->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(get->status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(KvServiceTest, WaitingCallsHoldNoThread) {
  ASSERT_TRUE(store().OpenScope(kScope, {}, 200).ok());
  const int threads_before = ThreadCount();
  std::vector<std::unique_ptr<PendingGet>> gets;
  // 96: one connection carries at most 100 calls at once
  // (common::kCoordinatorCallLimits.max_streams_per_connection), and the
  // Set below needs one of them.
  for (int i = 0; i < 96; ++i) {
    gets.push_back(StartGet(absl::StrCat(kScope, "k", i % 4), 50));
  }
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 96; },
                         absl::Seconds(20)));
  // A synchronous handler per wait would need 96 more threads here.
  EXPECT_LT(ThreadCount() - threads_before, 40)
      << "threads before " << threads_before;
  // The server still answers: one Set ends a quarter of the waits.
  ASSERT_TRUE(Set(absl::StrCat(kScope, "k0"), "v").ok());
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 72; },
                         absl::Seconds(10)));
  // The store's shutdown ends the rest with UNAVAILABLE.
  store().Shutdown();
  for (auto& get : gets) {
    ASSERT_TRUE(get->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    if (get->request.key() == absl::StrCat(kScope, "k0")) {
      EXPECT_TRUE(get->status.ok()) << get->status.error_message();
    } else {
      EXPECT_EQ(get->status.error_code(), grpc::StatusCode::UNAVAILABLE);
    }
  }
}

TEST_F(KvServiceTest, ASweepOpensItsScopeAndItsEndClosesIt) {
  auto agent = AddAgent("node-a", 2);
  agent->SetSweepMode(fakes::FakeAgentClient::SweepMode::kHang);
  auto bg = Start(ThreeSteps());
  ASSERT_TRUE(WaitForOpenStream(*agent));
  ASSERT_EQ(store().usage().scopes, 1u);
  // The scope is "<comm_id>/<sweep_id>/" of the request the agent got.
  ASSERT_EQ(agent->sweeps().size(), 1u);
  const v1::AgentSweepRequest request = agent->sweeps().front();
  const std::string key =
      absl::StrCat(request.comm_id(), "/", request.sweep_id(), "/0");
  ASSERT_TRUE(Set(key, "addr").ok());
  auto waiting = StartGet(absl::StrCat(key, "-never"), 50);
  ASSERT_TRUE(Eventually([&] { return store().usage().waiters == 1; },
                         absl::Seconds(10)));
  // The fake agent answers the abort at once: no fake time needs to pass
  // (which would also move the wait towards its deadline).
  orchestrator_->Abort("").IgnoreError();
  ASSERT_TRUE(bg->done.WaitForNotificationWithTimeout(absl::Seconds(20)));
  EXPECT_EQ(bg->status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(store().usage().scopes, 0u);
  EXPECT_EQ(store().usage().keys, 0u);
  ASSERT_TRUE(waiting->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(waiting->status.error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  auto after = StartGet(key, 0);
  ASSERT_TRUE(after->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(after->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace fabricpulse::testing
