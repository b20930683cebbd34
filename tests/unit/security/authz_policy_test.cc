#include "daemon/security/authz_policy.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "gtest/gtest.h"

namespace fabricpulse::security {
namespace {
namespace FP_UNITY_ID {

// Every method of the service, from its descriptor: a new RPC that the
// role table below does not name fails the test.
std::vector<std::string> CoordinatorMethods() {
  const google::protobuf::ServiceDescriptor* service =
      v1::ListPlansRequest::descriptor()->file()->FindServiceByName(
          "CoordinatorService");
  std::vector<std::string> methods;
  for (int i = 0; i < service->method_count(); ++i) {
    methods.push_back(service->method(i)->name());
  }
  return methods;
}

std::string Path(const std::string& method) {
  return "/fabricpulse.v1.CoordinatorService/" + method;
}

std::vector<std::string> Peer(const std::string& role) {
  return {absl::StrCat("spiffe://fabricpulse/", role, "/x")};
}

// Which roles the built-in coordinator policy lets call each method.
TEST(AuthzPolicyTest, CoordinatorDefaultIsTheRoleTable) {
  const AuthzPolicy policy =
      AuthzPolicy::Default(Service::kCoordinator, "fabricpulse");
  const std::map<std::string, std::set<std::string>> allowed = {
      {"Register", {"agent"}},
      {"Heartbeat", {"agent"}},
      {"KvSet", {"agent"}},
      {"KvGet", {"agent"}},
      {"RunSweep", {"operator"}},
      {"AbortSweep", {"operator"}},
      {"ListAgents", {"operator", "viewer"}},
      {"ListSweeps", {"operator", "viewer"}},
      {"GetSweep", {"operator", "viewer"}},
      {"Diagnose", {"operator", "viewer"}},
      {"Stats", {"operator", "viewer"}},
      {"ListPlans", {"operator", "viewer"}},
      {"ListSchedules", {"operator", "viewer"}},
      {"StartCampaign", {"operator"}},
      {"ListNodes", {"operator", "viewer"}}};
  const std::vector<std::string> methods = CoordinatorMethods();
  ASSERT_EQ(methods.size(), allowed.size());
  for (const std::string& method : methods) {
    ASSERT_TRUE(allowed.count(method) > 0)
        << method << ": a new RPC needs its roles in the built-in policy";
    for (const std::string role :
         {"coordinator", "agent", "operator", "viewer"}) {
      const bool want = allowed.at(method).count(role) > 0;
      EXPECT_EQ(policy.Evaluate(Path(method), Peer(role)).allowed, want)
          << role << " " << method;
    }
    // Default deny: no identity, another trust domain, an unknown method.
    EXPECT_FALSE(policy.Evaluate(Path(method), {}).allowed);
    EXPECT_FALSE(
        policy.Evaluate(Path(method), {"spiffe://other/operator/x"}).allowed);
  }
  EXPECT_FALSE(policy
                   .Evaluate("/fabricpulse.v1.CoordinatorService/NewMethod",
                             Peer("operator"))
                   .allowed);
  EXPECT_TRUE(
      policy.Evaluate("/grpc.health.v1.Health/Check", Peer("agent")).allowed);
}

TEST(AuthzPolicyTest, AgentObeysOnlyTheCoordinator) {
  const AuthzPolicy policy = AuthzPolicy::Default(Service::kAgent, "td");
  for (const char* method :
       {"RunSweep", "Abort", "Describe", "GetFlightRecords"}) {
    const std::string path =
        absl::StrCat("/fabricpulse.v1.AgentService/", method);
    EXPECT_TRUE(policy.Evaluate(path, {"spiffe://td/coordinator/c"}).allowed);
    for (const char* role : {"agent", "operator", "viewer"}) {
      EXPECT_FALSE(
          policy.Evaluate(path, {absl::StrCat("spiffe://td/", role, "/c")})
              .allowed)
          << role << " " << method;
    }
  }
}

TEST(AuthzPolicyTest, DenyRulesWinAndPatternsMatch) {
  auto policy = AuthzPolicy::Parse(R"({
    "name": "p",
    "deny_rules": [{"name": "no-bob",
                    "source": {"principals": ["*/operator/bob"]}}],
    "allow_rules": [{"name": "ops",
                     "source": {"principals": ["spiffe://fabricpulse/operator/*"]},
                     "request": {"paths": ["*/RunSweep"]}}]})");
  ASSERT_TRUE(policy.ok()) << policy.status();
  const std::string run = Path("RunSweep");
  EXPECT_TRUE(
      policy->Evaluate(run, {"spiffe://fabricpulse/operator/alice"}).allowed);
  AuthzPolicy::Decision bob =
      policy->Evaluate(run, {"spiffe://fabricpulse/operator/bob"});
  EXPECT_FALSE(bob.allowed);
  EXPECT_EQ(bob.rule, "no-bob");
  EXPECT_FALSE(policy
                   ->Evaluate(Path("AbortSweep"),
                              {"spiffe://fabricpulse/operator/alice"})
                   .allowed);
}

TEST(AuthzPolicyTest, BadPoliciesAreRefusedNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"allow_rules": [{"name": "a"}]})", "name"},
      {R"({"name": "p"})", "allow_rules"},
      {R"({"name": "p", "allow_rules": [{"name": "a"}], "extra": 1})",
       "not a gRPC authorization policy"},
      {R"({"name": "p", "allow_rules": [{}]})", "allow_rules[0].name"},
      {R"({"name": "p", "allow_rules": [{"name": "a", "request":
           {"headers": [{"key": "k", "values": ["v"]}]}}]})",
       "headers: not supported"},
      {"not json", "not a gRPC authorization policy"},
  };
  for (const auto& [json, expected] : cases) {
    absl::StatusOr<AuthzPolicy> policy = AuthzPolicy::Parse(json);
    ASSERT_FALSE(policy.ok()) << json;
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(policy.status().message().find(expected), std::string::npos)
        << policy.status();
  }
  std::string many = R"({"name": "p", "allow_rules": [)";
  for (int i = 0; i <= AuthzPolicy::kMaxRules; ++i) {
    absl::StrAppend(&many, i ? "," : "", R"({"name": "r"})");
  }
  EXPECT_FALSE(AuthzPolicy::Parse(many + "]}").ok());
}

// deploy/config/authz-policy.json is the built-in policy for the default
// trust domain, to start a custom one from: it must not drift.
TEST(AuthzPolicyTest, ShippedFileIsTheBuiltInPolicy) {
  std::ifstream in(std::string(FABRICPULSE_SOURCE_DIR) +
                   "/deploy/config/authz-policy.json");
  ASSERT_TRUE(in) << "deploy/config/authz-policy.json missing";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            AuthzPolicy::DefaultJson(Service::kCoordinator, "fabricpulse"));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::security
