// Issue 31, item 4, against real processes: a holder of one viewer
// certificate opens 1,000 concurrent calls of each read method (over ten
// connections, 100 streams each, the most one connection may carry). The
// coordinator used to take a thread and the memory of each (999 threads,
// 869 MiB for GetSweep); now one identity has at most 8 calls in flight,
// the synchronous pool at most 32 threads, and the rest are answered
// RESOURCE_EXHAUSTED at once. Healthy opposite: an operator's calls, the
// agents' heartbeats and a sweep go on during and after the flood.
#include <atomic>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/process_tree.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using security::Identity;
using security::Role;

constexpr int kConnections = 10;
constexpr int kCallsPerConnection = 100;  // 1,000 in flight at once

// The largest thread count and RSS of `pid` while it runs.
class PeakSampler {
 public:
  explicit PeakSampler(pid_t pid) : pid_(pid) {
    thread_ = std::thread([this] {
      while (!stop_.WaitForNotificationWithTimeout(absl::Milliseconds(2))) {
        threads_ =
            std::max<int64_t>(threads_, ProcStatusNumber(pid_, "Threads"));
        rss_kb_ = std::max<int64_t>(rss_kb_, ProcStatusNumber(pid_, "VmRSS"));
      }
    });
  }
  void Stop() {
    if (!stop_.HasBeenNotified()) stop_.Notify();
    if (thread_.joinable()) thread_.join();
  }
  ~PeakSampler() { Stop(); }
  int64_t threads() const { return threads_; }
  int64_t rss_kb() const { return rss_kb_; }

 private:
  const pid_t pid_;
  absl::Notification stop_;
  std::atomic<int64_t> threads_{0};
  std::atomic<int64_t> rss_kb_{0};
  std::thread thread_;
};

std::vector<std::unique_ptr<v1::CoordinatorService::Stub>> ViewerStubs(
    client::LocalCluster& cluster) {
  auto tls = cluster.Issue({Role::kViewer, "bob"});
  EXPECT_TRUE(tls.ok()) << tls.status();
  auto creds = security::Credentials::Create(*tls);
  EXPECT_TRUE(creds.ok()) << creds.status();
  std::vector<std::unique_ptr<v1::CoordinatorService::Stub>> stubs;
  for (int i = 0; i < kConnections; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("fabricpulse.test.connection", i);  // one connection each
    stubs.push_back(v1::CoordinatorService::NewStub(grpc::CreateCustomChannel(
        cluster.coordinator(), (*creds)->Channel({Role::kCoordinator, ""}),
        args)));
  }
  return stubs;
}

struct FloodResult {
  std::map<grpc::StatusCode, int> codes;
  int ours = 0;  // RESOURCE_EXHAUSTED from the per-identity bound
};

// Starts every call at once on the callback API and waits for them all.
template <typename Request, typename Response, typename Method>
FloodResult Flood(
    std::vector<std::unique_ptr<v1::CoordinatorService::Stub>>& stubs,
    const Request& request, Method method) {
  struct Call {
    grpc::ClientContext ctx;
    Response response;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls;
  absl::Mutex mu;
  int done = 0;
  for (auto& stub : stubs) {
    for (int i = 0; i < kCallsPerConnection; ++i) {
      auto call = std::make_unique<Call>();
      call->ctx.set_deadline(
          absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
      Call* c = call.get();
      calls.push_back(std::move(call));
      method(stub->async(), &c->ctx, &request, &c->response,
             [c, &mu, &done](grpc::Status s) {
               absl::MutexLock lock(&mu);
               c->status = std::move(s);
               done++;
             });
    }
  }
  const int total = static_cast<int>(calls.size());
  {
    absl::MutexLock lock(&mu);
    auto all_done = [&] { return done == total; };
    EXPECT_TRUE(
        mu.AwaitWithTimeout(absl::Condition(&all_done), absl::Seconds(120)));
  }
  FloodResult result;
  for (const auto& c : calls) {
    result.codes[c->status.error_code()]++;
    if (c->status.error_message().find("calls in flight") != std::string::npos)
      result.ours++;
  }
  return result;
}

std::string Describe(const FloodResult& r) {
  std::string out;
  for (const auto& [code, n] : r.codes) {
    absl::StrAppend(&out, "code ", static_cast<int>(code), ": ", n, "; ");
  }
  return absl::StrCat(out, "refused by the per-identity bound: ", r.ours);
}

TEST(CallFloodTest, AViewersReadFloodIsBoundedAndOthersAreServed) {
  std::unique_ptr<client::LocalCluster> cluster = StartCluster(2, 2);
  ASSERT_NE(cluster, nullptr);
  auto op = Connect(cluster->coordinator());
  SweepOutcome seeded =
      RunSweep(*op, QuickSpec({"all_reduce", "all_gather", "broadcast"}));
  ASSERT_TRUE(seeded.status.ok()) << seeded.status;
  const std::string sweep_id = seeded.start.sweep_id();
  const pid_t pid = cluster->coordinator_pid();
  const int64_t threads_before = ProcStatusNumber(pid, "Threads");
  const int64_t rss_before = ProcStatusNumber(pid, "VmRSS");
  auto viewer = ViewerStubs(*cluster);

  PeakSampler peak(pid);
  // The operator is served while bob floods (another identity).
  std::atomic<bool> flooding{true};
  std::atomic<int> operator_ok{0}, operator_failed{0};
  std::string first_failure;  // written by `other` only, read after join
  std::thread other([&] {
    while (flooding) {
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
      v1::ListAgentsResponse resp;
      grpc::Status s = op->ListAgents(&ctx, {}, &resp);
      if (s.ok() && resp.agents_size() == 2) {
        operator_ok++;
        continue;
      }
      if (operator_failed++ == 0) {
        first_failure =
            absl::StrCat("code ", s.error_code(), " ", s.error_message(), ", ",
                         resp.agents_size(), " agents");
      }
    }
  });

  v1::GetSweepRequest get;
  get.set_sweep_id(sweep_id);
  using Async = v1::CoordinatorService::Stub::async_interface;
  std::vector<std::pair<std::string, FloodResult>> floods;
  floods.emplace_back(
      "GetSweep",
      Flood<v1::GetSweepRequest, v1::GetSweepResponse>(
          viewer, get, [](Async* a, auto... args) { a->GetSweep(args...); }));
  floods.emplace_back(
      "ListSweeps",
      Flood<v1::ListSweepsRequest, v1::ListSweepsResponse>(
          viewer, {}, [](Async* a, auto... args) { a->ListSweeps(args...); }));
  floods.emplace_back(
      "ListAgents",
      Flood<v1::ListAgentsRequest, v1::ListAgentsResponse>(
          viewer, {}, [](Async* a, auto... args) { a->ListAgents(args...); }));
  v1::DiagnoseRequest diagnose;
  diagnose.set_sweep_id(sweep_id);
  floods.emplace_back(
      "Diagnose", Flood<v1::DiagnoseRequest, v1::DiagnoseResponse>(
                      viewer, diagnose,
                      [](Async* a, auto... args) { a->Diagnose(args...); }));
  floods.emplace_back(
      "ListNodes",
      Flood<v1::ListNodesRequest, v1::ListNodesResponse>(
          viewer, {}, [](Async* a, auto... args) { a->ListNodes(args...); }));
  flooding = false;
  other.join();
  peak.Stop();

  for (const auto& [method, r] : floods) {
    SCOPED_TRACE(method + ": " + Describe(r));
    std::cout << method << ": " << Describe(r) << "\n";
    int answered = 0;
    for (const auto& [code, n] : r.codes) {
      // Served, or refused at once: nothing else (no crash, no timeout).
      EXPECT_TRUE(code == grpc::StatusCode::OK ||
                  code == grpc::StatusCode::RESOURCE_EXHAUSTED)
          << static_cast<int>(code);
      answered += n;
    }
    EXPECT_EQ(answered, kConnections * kCallsPerConnection);
    EXPECT_GT(r.codes.at(grpc::StatusCode::OK), 0);
  }
  std::cout << "coordinator threads " << threads_before << " -> peak "
            << peak.threads() << "; RSS " << rss_before / 1024 << " -> peak "
            << peak.rss_kb() / 1024 << " MiB\n";
  ::testing::Test::RecordProperty("peak_threads", peak.threads());
  ::testing::Test::RecordProperty("peak_rss_mib", peak.rss_kb() / 1024);
  // The synchronous pool's 32 threads and gRPC's own bounded pools.
  EXPECT_LE(peak.threads(), threads_before + 40);
  EXPECT_LT(peak.rss_kb() - rss_before, 128 * 1024);
  EXPECT_GT(operator_ok.load(), 0);
  EXPECT_EQ(operator_failed.load(), 0) << first_failure;

  // Afterwards: bob's places are all given back, and a sweep runs.
  grpc::ClientContext ctx;
  v1::GetSweepResponse resp;
  EXPECT_TRUE(viewer[0]->GetSweep(&ctx, get, &resp).ok());
  SweepOutcome after = RunSweep(*op, QuickSpec({"all_reduce"}, 64));
  EXPECT_TRUE(after.status.ok()) << after.status;
  EXPECT_EQ(after.finished.status(), "succeeded");
}

}  // namespace
}  // namespace fabricpulse::testing
