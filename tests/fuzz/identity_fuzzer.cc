// Fuzzes what the authorizer makes of a certificate (daemon/security/
// identity.h, authz_policy.h): the input's lines are a certificate's URI
// SANs, as gRPC hands them over. SoleIdentity refuses with UNAUTHENTICATED
// or names one identity that round-trips through its spiffe:// form, whose
// role is one of the four and whose name passes the name rule; the built-in
// policies' decisions on that identity are the documented ones, and no URI
// the identity was not made from changes them.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/security/authz_policy.h"
#include "daemon/security/identity.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fabricpulse::fuzz {
namespace {

constexpr char kTrustDomain[] = "fabricpulse";
constexpr char kRunSweep[] = "/fabricpulse.v1.CoordinatorService/RunSweep";
constexpr char kGetSweep[] = "/fabricpulse.v1.CoordinatorService/GetSweep";
constexpr char kKvSet[] = "/fabricpulse.v1.CoordinatorService/KvSet";
constexpr char kAgentAbort[] = "/fabricpulse.v1.AgentService/Abort";

void CheckDecisions(const security::Identity& id) {
  using security::Role;
  static const security::AuthzPolicy* coordinator =
      new security::AuthzPolicy(security::AuthzPolicy::Default(
          security::Service::kCoordinator, kTrustDomain));
  static const security::AuthzPolicy* agent = new security::AuthzPolicy(
      security::AuthzPolicy::Default(security::Service::kAgent, kTrustDomain));
  const std::vector<std::string> principal = {
      security::SpiffeId(kTrustDomain, id)};
  const bool run = coordinator->Evaluate(kRunSweep, principal).allowed;
  const bool read = coordinator->Evaluate(kGetSweep, principal).allowed;
  const bool kv = coordinator->Evaluate(kKvSet, principal).allowed;
  const bool drive = agent->Evaluate(kAgentAbort, principal).allowed;
  if (run != (id.role == Role::kOperator)) {
    Fail(absl::StrCat(id.ToString(), ": RunSweep decided ", run));
  }
  if (read != (id.role == Role::kOperator || id.role == Role::kViewer)) {
    Fail(absl::StrCat(id.ToString(), ": GetSweep decided ", read));
  }
  if (kv != (id.role == Role::kAgent)) {
    Fail(absl::StrCat(id.ToString(), ": KvSet decided ", kv));
  }
  if (drive != (id.role == Role::kCoordinator)) {
    Fail(absl::StrCat(id.ToString(), ": the agent's Abort decided ", drive));
  }
}

}  // namespace

int FuzzIdentity(const uint8_t* data, size_t size) {
  const std::string input = AsString(data, size);
  const std::vector<std::string> uris =
      absl::StrSplit(input, '\n', absl::SkipEmpty());
  const auto id = security::SoleIdentity(uris, kTrustDomain);
  if (!id.ok()) {
    CheckCode(id.status(), {absl::StatusCode::kUnauthenticated},
              "SoleIdentity");
    return 0;
  }
  const std::string canonical = security::SpiffeId(kTrustDomain, *id);
  const auto again = security::ParseSpiffeId(canonical, kTrustDomain);
  if (!again || !(*again == *id)) {
    Fail(
        absl::StrCat("the identity's own URI parses differently: ", canonical));
  }
  if (!security::ValidateIdentityName(id->name, "name").ok()) {
    Fail(absl::StrCat("an identity with an invalid name passed: ", canonical));
  }
  // Exactly one of the URIs is a spiffe:// one, and it is the identity's.
  int spiffe = 0;
  for (const std::string& uri : uris) {
    if (absl::StartsWith(uri, "spiffe://")) ++spiffe;
  }
  if (spiffe != 1) {
    Fail(absl::StrCat(spiffe, " spiffe:// URIs, yet one identity passed"));
  }
  CheckDecisions(*id);
  return 0;
}

}  // namespace fabricpulse::fuzz
