// Who may call which method: a policy in gRPC's authorization-policy JSON
// (gRFC A43: name, deny_rules, allow_rules; each rule's source.principals and
// request.paths), evaluated by FabricPulse's own authorizer. Default deny.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::security {

// Which server a built-in policy is for.
enum class Service { kCoordinator, kAgent };

// Thread-compatible (immutable once built).
class AuthzPolicy {
 public:
  // Bounds: 1 MiB of JSON, 256 rules, 256 patterns per list.
  static constexpr size_t kMaxJsonBytes = 1 << 20;
  static constexpr int kMaxRules = 256;
  static constexpr int kMaxPatterns = 256;

  // Errors: INVALID_ARGUMENT naming the key (unknown keys, a missing name,
  // no allow rule, a `headers` match (not supported), a bound exceeded).
  static absl::StatusOr<AuthzPolicy> Parse(absl::string_view json);

  // The built-in policy, as JSON (also shipped as
  // deploy/config/authz-policy.json for the default trust domain):
  // coordinator: agents may Register, Heartbeat, KvSet and KvGet; operators
  // RunSweep, AbortSweep and StartCampaign; operators and viewers
  // ListAgents, ListSweeps, GetSweep, Diagnose, Stats, ListPlans,
  // ListSchedules and ListNodes. Agent: only the
  // coordinator. Both: any authenticated peer may ask grpc.health.v1.
  static std::string DefaultJson(Service service,
                                 absl::string_view trust_domain);
  static AuthzPolicy Default(Service service, absl::string_view trust_domain);

  struct Decision {
    bool allowed = false;
    std::string rule;  // the rule that decided; empty: no rule matched
  };
  // `principals`: the peer certificate's URI SANs (empty: not
  // authenticated).
  Decision Evaluate(absl::string_view path,
                    const std::vector<std::string>& principals) const;

  const std::string& name() const { return name_; }

 private:
  struct Pattern {
    enum class Kind { kExact, kPrefix, kSuffix, kAny } kind = Kind::kExact;
    std::string text;
    bool Matches(absl::string_view value) const;
  };
  struct Rule {
    std::string name;
    std::vector<Pattern> principals;  // empty: any peer
    std::vector<Pattern> paths;       // empty: any method
    bool Matches(absl::string_view path,
                 const std::vector<std::string>& principals) const;
  };
  static Pattern Compile(const std::string& text);

  std::string name_;
  std::vector<Rule> deny_;
  std::vector<Rule> allow_;
};

}  // namespace fabricpulse::security
