// Who may, may (issue 13, items 1 and 2), against real processes (2 agents x
// 2 Gloo ranks on mutual TLS from the cluster's throwaway CA): each attack
// of the issue is refused with the right status and changes nothing, and the
// roles that may act still can.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/security/credentials.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/background_sweep.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

using security::Identity;
using security::Role;

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = StartCluster(2, 2).release();
    ASSERT_NE(cluster_, nullptr);
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    UseClientIdentityOf(*cluster_);
    stub_ = Connect(cluster_->coordinator());
  }

  // Credentials of `id`, issued by the cluster's CA.
  static std::shared_ptr<security::Credentials> As(const Identity& id) {
    auto tls = cluster_->Issue(id);
    EXPECT_TRUE(tls.ok()) << tls.status();
    auto creds = security::Credentials::Create(*tls);
    EXPECT_TRUE(creds.ok()) << creds.status();
    return *creds;
  }
  static std::unique_ptr<v1::CoordinatorService::Stub> CoordinatorAs(
      const Identity& id) {
    return v1::CoordinatorService::NewStub(grpc::CreateChannel(
        cluster_->coordinator(), As(id)->Channel({Role::kCoordinator, ""})));
  }
  static std::unique_ptr<v1::AgentService::Stub> AgentAs(
      const Identity& id, const v1::AgentInfo& agent) {
    return v1::AgentService::NewStub(grpc::CreateChannel(
        agent.address(), As(id)->Channel({Role::kAgent, agent.node_name()})));
  }
  static grpc::ClientContext* Bounded(grpc::ClientContext* ctx) {
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    return ctx;
  }
  v1::AgentInfo Agent(const std::string& node) {
    for (const v1::AgentInfo& a : ListAgents(*stub_)) {
      if (a.node_name() == node) return a;
    }
    ADD_FAILURE() << "no agent " << node;
    return {};
  }
  uint64_t Epoch() {
    grpc::ClientContext ctx;
    v1::ListAgentsRequest req;
    v1::ListAgentsResponse resp;
    EXPECT_TRUE(stub_->ListAgents(Bounded(&ctx), req, &resp).ok());
    return resp.membership_epoch();
  }

  static client::LocalCluster* cluster_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
};

client::LocalCluster* SecurityTest::cluster_ = nullptr;

TEST_F(SecurityTest, RegisteringAsAnotherNodeIsRefusedAndChangesNothing) {
  const v1::AgentInfo before = Agent("local-1");
  const uint64_t epoch = Epoch();
  // A real agent certificate, of another node, and an operator's.
  for (const Identity& who :
       {Identity{Role::kAgent, "local-9"}, Identity{Role::kOperator, "eve"}}) {
    auto rogue = CoordinatorAs(who);
    for (int i = 0; i < 30; ++i) {
      grpc::ClientContext ctx;
      v1::RegisterRequest req;
      req.mutable_agent()->set_node_name("local-1");
      req.mutable_agent()->set_address("127.0.0.1:1");
      v1::RegisterResponse resp;
      grpc::Status status = rogue->Register(Bounded(&ctx), req, &resp);
      ASSERT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
          << who.ToString() << ": " << status.error_message();
    }
  }
  EXPECT_EQ(Agent("local-1").address(), before.address());
  EXPECT_EQ(Agent("local-1").agent_id(), before.agent_id());
  EXPECT_EQ(Epoch(), epoch);
  EXPECT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
}

// Issue 31, item 6: with node local-1's own key (stolen) and everything
// ListAgents shows of its live agent, a registration does not take the
// node over: the agent's instance id and boot id are never shown, and the
// refusal does not tell them either.
TEST_F(SecurityTest, AStolenNodeKeyDoesNotTakeOverTheLiveAgent) {
  const uint64_t epoch = Epoch();
  v1::AgentInfo seen;
  for (const Identity& reader :
       {Identity{Role::kViewer, "bob"}, Identity{Role::kOperator, "eve"}}) {
    auto as_reader = CoordinatorAs(reader);
    grpc::ClientContext ctx;
    v1::ListAgentsResponse resp;
    ASSERT_TRUE(as_reader->ListAgents(Bounded(&ctx), {}, &resp).ok());
    for (const v1::AgentInfo& a : resp.agents()) {
      EXPECT_TRUE(a.instance_id().empty()) << reader.ToString();
      EXPECT_TRUE(a.boot_id().empty()) << reader.ToString();
      if (a.node_name() == "local-1") seen = a;
    }
  }
  ASSERT_EQ(seen.node_name(), "local-1");
  auto thief = CoordinatorAs({Role::kAgent, "local-1"});
  grpc::ClientContext ctx;
  v1::RegisterRequest req;
  *req.mutable_agent() = seen;
  req.mutable_agent()->set_instance_id("guessed");
  req.mutable_agent()->clear_state();
  v1::RegisterResponse resp;
  grpc::Status status = thief->Register(Bounded(&ctx), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS)
      << status.error_message();
  EXPECT_TRUE(
      absl::StrContains(status.error_message(), "is held by a live agent"))
      << status.error_message();
  // The live agent is untouched and still runs sweeps.
  EXPECT_EQ(Agent("local-1").agent_id(), seen.agent_id());
  EXPECT_EQ(Epoch(), epoch);
  SweepOutcome outcome = RunSweep(*stub_, QuickSpec({"all_reduce"}, 64));
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
}

TEST_F(SecurityTest, AgentIdsAreNotBearerSecrets) {
  const v1::AgentInfo victim = Agent("local-1");
  auto rogue = CoordinatorAs({Role::kAgent, "local-9"});
  grpc::ClientContext ctx;
  v1::HeartbeatRequest req;
  req.set_agent_id(victim.agent_id());
  for (int i = 0; i < 20001; ++i) {
    v1::WorkerInfo* w = req.add_workers();
    w->set_local_index(i);
    w->set_gpu_busy(true);
  }
  v1::HeartbeatResponse resp;
  grpc::Status status = rogue->Heartbeat(Bounded(&ctx), req, &resp);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << status.error_message();
  EXPECT_EQ(Agent("local-1").workers_size(), victim.workers_size());
}

TEST_F(SecurityTest, ViewersReadButCannotStartOrAbort) {
  auto viewer = CoordinatorAs({Role::kViewer, "bob"});
  {
    grpc::ClientContext ctx;
    v1::ListSweepsRequest req;
    v1::ListSweepsResponse resp;
    EXPECT_TRUE(viewer->ListSweeps(Bounded(&ctx), req, &resp).ok());
  }
  {
    grpc::ClientContext ctx;
    v1::SweepRequest req;
    *req.mutable_spec() = QuickSpec({"all_reduce"}, 64);
    auto reader = viewer->RunSweep(Bounded(&ctx), req);
    v1::SweepEvent event;
    EXPECT_FALSE(reader->Read(&event));
    EXPECT_EQ(reader->Finish().error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  // An abort from a viewer, or from an agent, does not stop a running sweep.
  v1::SweepSpec slow = QuickSpec({"all_reduce"}, 64 << 10);
  slow.set_iters(200);
  BackgroundSweep sweep(*stub_, slow, BackgroundSweep::kCommReady);
  ASSERT_TRUE(sweep.WaitStarted());
  for (const Identity& who :
       {Identity{Role::kViewer, "bob"}, Identity{Role::kAgent, "local-0"}}) {
    grpc::ClientContext ctx;
    v1::AbortSweepRequest req;  // no id: every running sweep
    v1::AbortSweepResponse resp;
    EXPECT_EQ(
        CoordinatorAs(who)->AbortSweep(Bounded(&ctx), req, &resp).error_code(),
        grpc::StatusCode::PERMISSION_DENIED)
        << who.ToString();
  }
  SweepOutcome outcome = sweep.Join();
  EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_EQ(outcome.finished.status(), "succeeded");
}

// ListPlans and ListSchedules are read calls: viewers and operators may
// make them, an agent may not (default deny for what its role lacks).
TEST_F(SecurityTest, ViewersListPlansAndSchedulesAgentsDoNot) {
  for (const Identity& reader :
       {Identity{Role::kViewer, "bob"}, Identity{Role::kOperator, "alice"}}) {
    auto stub = CoordinatorAs(reader);
    grpc::ClientContext plans_ctx, schedules_ctx;
    v1::ListPlansResponse plans;
    v1::ListSchedulesResponse schedules;
    EXPECT_TRUE(
        stub->ListPlans(Bounded(&plans_ctx), v1::ListPlansRequest(), &plans)
            .ok());
    EXPECT_TRUE(stub->ListSchedules(Bounded(&schedules_ctx),
                                    v1::ListSchedulesRequest(), &schedules)
                    .ok());
  }
  auto agent = CoordinatorAs({Role::kAgent, "local-0"});
  grpc::ClientContext plans_ctx, schedules_ctx;
  v1::ListPlansResponse plans;
  v1::ListSchedulesResponse schedules;
  EXPECT_EQ(
      agent->ListPlans(Bounded(&plans_ctx), v1::ListPlansRequest(), &plans)
          .error_code(),
      grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(agent
                ->ListSchedules(Bounded(&schedules_ctx),
                                v1::ListSchedulesRequest(), &schedules)
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
}

// Issue 31, item 2: another coordinator identity of the same CA (another
// cluster's coordinator) is refused like any other role: an agent obeys the
// coordinator it registered with, and a forged epoch never reaches it.
TEST_F(SecurityTest, AgentsObeyOnlyTheCoordinator) {
  const v1::AgentInfo agent = Agent("local-0");
  for (const Identity& who :
       {Identity{Role::kOperator, "local"}, Identity{Role::kAgent, "local-1"},
        Identity{Role::kCoordinator, "other-cluster"}}) {
    auto stub = AgentAs(who, agent);
    {
      grpc::ClientContext ctx;
      v1::AgentSweepRequest req;
      req.set_sweep_id("forged");
      req.set_comm_id("forged");
      req.set_membership_epoch(~uint64_t{0});
      req.set_coordinator("127.0.0.1:1");
      auto reader = stub->RunSweep(Bounded(&ctx), req);
      v1::RankEvent event;
      EXPECT_FALSE(reader->Read(&event));
      EXPECT_EQ(reader->Finish().error_code(),
                grpc::StatusCode::PERMISSION_DENIED)
          << who.ToString();
    }
    {
      grpc::ClientContext ctx;
      v1::AgentAbortRequest req;
      v1::AgentAbortResponse resp;
      EXPECT_EQ(stub->Abort(Bounded(&ctx), req, &resp).error_code(),
                grpc::StatusCode::PERMISSION_DENIED)
          << who.ToString();
    }
  }
  // The healthy opposite: the cluster's own coordinator identity is obeyed.
  {
    grpc::ClientContext ctx;
    v1::AgentAbortRequest req;
    req.set_comm_id("not-running");
    v1::AgentAbortResponse resp;
    EXPECT_TRUE(
        ConnectAgent(*cluster_, agent)->Abort(Bounded(&ctx), req, &resp).ok());
  }
  // The forged epoch never reached the agent: sweeps still run on it.
  EXPECT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
}

TEST_F(SecurityTest, OnlyAgentsUseTheRendezvousStore) {
  for (const Identity& who :
       {Identity{Role::kOperator, "local"}, Identity{Role::kViewer, "bob"}}) {
    auto stub = CoordinatorAs(who);
    grpc::ClientContext set_ctx;
    v1::KvSetRequest set;
    set.set_key("x/y/z");
    set.set_value(std::string(256 << 10, 'x'));
    v1::KvSetResponse set_resp;
    EXPECT_EQ(stub->KvSet(Bounded(&set_ctx), set, &set_resp).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    grpc::ClientContext get_ctx;
    v1::KvGetRequest get;
    get.set_key("x/y/z");
    v1::KvGetResponse get_resp;
    EXPECT_EQ(stub->KvGet(Bounded(&get_ctx), get, &get_resp).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
}

TEST_F(SecurityTest, StrangersCannotConnectAndTheCliSaysWhy) {
  const std::vector<std::string> agents = {"--coordinator",
                                           cluster_->coordinator(), "agents"};
  // No TLS flags at all.
  for (const char* name :
       {"FABRICPULSE_TLS_CERT", "FABRICPULSE_TLS_KEY", "FABRICPULSE_TLS_CA"}) {
    unsetenv(name);
  }
  CliResult none = RunCli(agents);
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(absl::StrContains(none.err, "--tls-cert: required")) << none.err;
  // Plaintext against a TLS coordinator.
  std::vector<std::string> insecure = {"--insecure"};
  insecure.insert(insecure.end(), agents.begin(), agents.end());
  CliResult plain = RunCli(insecure);
  EXPECT_EQ(plain.exit_code, 3) << plain.err;
  // A certificate from another CA.
  char dir[] = "/tmp/fabricpulse-other-ca-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  auto other = security::CertSet::Create(std::string(dir) + "/pki",
                                         "fabricpulse", absl::Hours(24 * 30));
  ASSERT_TRUE(other.ok());
  auto mallory = other->Issue({Role::kOperator, "mallory"}, {}, {});
  ASSERT_TRUE(mallory.ok());
  CliResult foreign =
      RunCli({"--coordinator", cluster_->coordinator(), "--tls-cert",
              mallory->cert_file, "--tls-key", mallory->key_file, "--tls-ca",
              mallory->ca_file, "agents"});
  EXPECT_EQ(foreign.exit_code, 3) << foreign.err;
  // Our CA, another trust domain's identity: the CLI itself refuses its
  // certificate at once.
  auto viewer = cluster_->Issue({Role::kViewer, "bob"});
  ASSERT_TRUE(viewer.ok());
  const std::vector<std::string> as_viewer = {
      "--coordinator", cluster_->coordinator(), "--tls-cert", viewer->cert_file,
      "--tls-key",     viewer->key_file,        "--tls-ca",   viewer->ca_file};
  std::vector<std::string> list = as_viewer;
  list.push_back("agents");
  CliResult read = RunCli(list);
  EXPECT_EQ(read.exit_code, 0) << read.err;
  std::vector<std::string> sweep = as_viewer;
  sweep.insert(sweep.end(), {"sweep", "--max-bytes", "64"});
  CliResult refused = RunCli(sweep);
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_TRUE(absl::StrContains(refused.err, "viewer/bob may not call"))
      << refused.err;
}

TEST_F(SecurityTest, MutatingCallsAreLoggedWithWhoMadeThem) {
  ASSERT_TRUE(RunSweep(*stub_, QuickSpec({"all_reduce"}, 64)).status.ok());
  const std::string log = ReadFile(cluster_->dir() + "/coordinator.log");
  EXPECT_TRUE(absl::StrContains(log,
                                "audit: agent/local-0 registered node "
                                "local-0"))
      << log;
  EXPECT_TRUE(absl::StrContains(log, "audit: operator/local asked for a sweep"))
      << log;
  EXPECT_TRUE(absl::StrContains(ReadFile(cluster_->dir() + "/agent-0.log"),
                                "audit: coordinator/local started sweep"));
}

TEST(InsecureTest, PlaintextIsExplicitAndWarned) {
  client::LocalClusterOptions options;
  options.agents = 1;
  options.ranks = 2;
  options.backend = "gloo";
  options.insecure = true;
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  EXPECT_TRUE(RunSweep(*stub, QuickSpec({"all_reduce"}, 64)).status.ok());
  for (const char* log : {"/coordinator.log", "/agent-0.log"}) {
    EXPECT_TRUE(absl::StrContains(ReadFile((*cluster)->dir() + log),
                                  "--insecure: every gRPC link"))
        << log;
  }
}

// --authz-policy replaces the built-in roles: here operator/local may no
// longer start sweeps (a deny rule), all else as before.
TEST(AuthzPolicyFileTest, APolicyFileDecidesWhoMayCallWhat) {
  char dir[] = "/tmp/fabricpulse-policy-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string policy = ReadFile(std::string(FABRICPULSE_SOURCE_DIR) +
                                "/deploy/config/authz-policy.json");
  ASSERT_FALSE(policy.empty());
  policy.replace(policy.find("\"allow_rules\""), 0,
                 R"("deny_rules": [{"name": "no-local-sweeps",
                    "source": {"principals": ["spiffe://fabricpulse/operator/local"]},
                    "request": {"paths": ["/fabricpulse.v1.CoordinatorService/RunSweep"]}}],
                  )");
  const std::string file = std::string(dir) + "/policy.json";
  std::ofstream(file) << policy;
  client::LocalClusterOptions options;
  options.agents = 1;
  options.ranks = 2;
  options.backend = "gloo";
  options.env = {"FABRICPULSE_AUTHZ_POLICY=" + file};
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string coordinator = (*cluster)->coordinator();
  CliResult sweep =
      RunCli({"--coordinator", coordinator, "sweep", "--max-bytes", "64"});
  EXPECT_EQ(sweep.exit_code, 3) << sweep.err;
  EXPECT_TRUE(absl::StrContains(sweep.err, "denied by rule 'no-local-sweeps'"))
      << sweep.err;
  CliResult agents = RunCli({"--coordinator", coordinator, "agents"});
  EXPECT_EQ(agents.exit_code, 0) << agents.err;
  // A bad policy stops the coordinator at start with one line naming it.
  std::ofstream(file) << R"({"name": "p"})";
  auto tls = (*cluster)->Issue({Role::kCoordinator, "second"});
  ASSERT_TRUE(tls.ok());
  CliResult bad =
      RunBinary("fabricpulse-coordinator",
                {"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                 "--state-dir", std::string(dir) + "/state", "--tls-cert",
                 tls->cert_file, "--tls-key", tls->key_file, "--tls-ca",
                 tls->ca_file, "--authz-policy", file},
                30);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(CountLines(bad.err), 1) << bad.err;
  EXPECT_TRUE(absl::StrContains(
      bad.err, "--authz-policy " + file + ": policy: allow_rules: required"))
      << bad.err;
}

TEST(CertsCommandTest, IssuesIdentitiesFromOneCa) {
  char dir[] = "/tmp/fabricpulse-certs-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string pki = std::string(dir) + "/pki";
  CliResult made =
      RunCli({"certs", pki, "--issue", "coordinator/main,agent/node-a",
              "--issue", "viewer/bob"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_TRUE(absl::StrContains(
      made.out, "agent/node-a: --tls-cert " + pki + "/agent-node-a.crt"))
      << made.out;
  struct stat st;
  ASSERT_EQ(stat((pki + "/agent-node-a.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((pki + "/ca.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A second run reuses the CA: both certificates verify against it.
  ASSERT_EQ(RunCli({"certs", pki, "--issue", "operator/alice"}).exit_code, 0);
  for (const char* id : {"agent-node-a", "operator-alice"}) {
    security::TlsOptions tls;
    tls.cert_file = absl::StrCat(pki, "/", id, ".crt");
    tls.key_file = absl::StrCat(pki, "/", id, ".key");
    tls.ca_file = pki + "/ca.crt";
    EXPECT_TRUE(security::Credentials::Create(tls).ok()) << id;
  }
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"certs", pki, "--issue", "root/x"},
        {"certs", pki, "--issue", "agent/bad name"},
        {"certs", pki, "--issue", "agent"},
        {"certs", pki, "--days", "0"}}) {
    CliResult r = RunCli(bad);
    EXPECT_EQ(r.exit_code, 2) << bad[3] << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
