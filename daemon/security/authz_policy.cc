#include "daemon/security/authz_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "fabricpulse/v1/authz_policy.pb.h"
#include "google/protobuf/util/json_util.h"

namespace fabricpulse::security {
namespace {

constexpr absl::string_view kCoordinatorPolicy = R"json({
  "name": "fabricpulse-coordinator",
  "allow_rules": [
    {
      "name": "agents",
      "source": {"principals": ["spiffe://TD/agent/*"]},
      "request": {"paths": [
        "/fabricpulse.v1.CoordinatorService/Register",
        "/fabricpulse.v1.CoordinatorService/Heartbeat",
        "/fabricpulse.v1.CoordinatorService/KvSet",
        "/fabricpulse.v1.CoordinatorService/KvGet"
      ]}
    },
    {
      "name": "operators",
      "source": {"principals": ["spiffe://TD/operator/*"]},
      "request": {"paths": [
        "/fabricpulse.v1.CoordinatorService/RunSweep",
        "/fabricpulse.v1.CoordinatorService/AbortSweep",
        "/fabricpulse.v1.CoordinatorService/StartCampaign"
      ]}
    },
    {
      "name": "readers",
      "source": {"principals": [
        "spiffe://TD/operator/*",
        "spiffe://TD/viewer/*"
      ]},
      "request": {"paths": [
        "/fabricpulse.v1.CoordinatorService/ListAgents",
        "/fabricpulse.v1.CoordinatorService/ListSweeps",
        "/fabricpulse.v1.CoordinatorService/GetSweep",
        "/fabricpulse.v1.CoordinatorService/Diagnose",
        "/fabricpulse.v1.CoordinatorService/Stats",
        "/fabricpulse.v1.CoordinatorService/ListPlans",
        "/fabricpulse.v1.CoordinatorService/ListSchedules",
        "/fabricpulse.v1.CoordinatorService/ListNodes"
      ]}
    },
    {
      "name": "health",
      "source": {"principals": ["*"]},
      "request": {"paths": ["/grpc.health.v1.Health/*"]}
    }
  ]
}
)json";

constexpr absl::string_view kAgentPolicy = R"json({
  "name": "fabricpulse-agent",
  "allow_rules": [
    {
      "name": "coordinator",
      "source": {"principals": ["spiffe://TD/coordinator/*"]},
      "request": {"paths": ["/fabricpulse.v1.AgentService/*"]}
    },
    {
      "name": "health",
      "source": {"principals": ["*"]},
      "request": {"paths": ["/grpc.health.v1.Health/*"]}
    }
  ]
}
)json";

absl::Status CheckRule(const v1::AuthorizationRule& rule,
                       const std::string& where) {
  if (rule.name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".name: required"));
  }
  if (rule.request().headers_size() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     ".request.headers: not supported; match on "
                     "source.principals and request.paths"));
  }
  if (rule.source().principals_size() > AuthzPolicy::kMaxPatterns ||
      rule.request().paths_size() > AuthzPolicy::kMaxPatterns) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": more than ",
                                                   AuthzPolicy::kMaxPatterns,
                                                   " principals or paths"));
  }
  return absl::OkStatus();
}

}  // namespace

bool AuthzPolicy::Pattern::Matches(absl::string_view value) const {
  switch (kind) {
    case Kind::kAny:
      return !value.empty();
    case Kind::kPrefix:
      return absl::StartsWith(value, text);
    case Kind::kSuffix:
      return absl::EndsWith(value, text);
    case Kind::kExact:
      return value == text;
  }
  return false;
}

bool AuthzPolicy::Rule::Matches(absl::string_view path,
                                const std::vector<std::string>& peer) const {
  bool path_ok = paths.empty();
  for (const Pattern& p : paths) path_ok = path_ok || p.Matches(path);
  if (!path_ok) return false;
  if (principals.empty()) return true;
  for (const Pattern& p : principals) {
    for (const std::string& uri : peer) {
      if (p.Matches(uri)) return true;
    }
  }
  return false;
}

AuthzPolicy::Pattern AuthzPolicy::Compile(const std::string& text) {
  Pattern p;
  if (text == "*") {
    p.kind = Pattern::Kind::kAny;
  } else if (absl::EndsWith(text, "*")) {
    p.kind = Pattern::Kind::kPrefix;
    p.text = text.substr(0, text.size() - 1);
  } else if (absl::StartsWith(text, "*")) {
    p.kind = Pattern::Kind::kSuffix;
    p.text = text.substr(1);
  } else {
    p.text = text;
  }
  return p;
}

absl::StatusOr<AuthzPolicy> AuthzPolicy::Parse(absl::string_view json) {
  if (json.size() > kMaxJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "policy: ", json.size(), " bytes; allowed: up to ", kMaxJsonBytes));
  }
  v1::AuthorizationPolicy proto;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto parsed = google::protobuf::util::JsonStringToMessage(std::string(json),
                                                            &proto, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy: not a gRPC authorization policy: ",
                     parsed.message().as_string().substr(0, 200)));
  }
  if (proto.name().empty()) {
    return absl::InvalidArgumentError("policy: name: required");
  }
  if (proto.allow_rules().empty()) {
    return absl::InvalidArgumentError(
        "policy: allow_rules: required (at least one rule)");
  }
  if (proto.allow_rules_size() + proto.deny_rules_size() > kMaxRules) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy: more than ", kMaxRules, " rules"));
  }
  AuthzPolicy out;
  out.name_ = proto.name();
  for (const auto& [rules, key, target] :
       {std::tuple{&proto.deny_rules(), "deny_rules", &out.deny_},
        std::tuple{&proto.allow_rules(), "allow_rules", &out.allow_}}) {
    for (int i = 0; i < rules->size(); ++i) {
      const v1::AuthorizationRule& r = (*rules)[i];
      absl::Status ok =
          CheckRule(r, absl::StrCat("policy: ", key, "[", i, "]"));
      if (!ok.ok()) return ok;
      Rule rule;
      rule.name = r.name();
      for (const std::string& p : r.source().principals()) {
        rule.principals.push_back(Compile(p));
      }
      for (const std::string& p : r.request().paths()) {
        rule.paths.push_back(Compile(p));
      }
      target->push_back(std::move(rule));
    }
  }
  return out;
}

std::string AuthzPolicy::DefaultJson(Service service,
                                     absl::string_view trust_domain) {
  return absl::StrReplaceAll(
      service == Service::kCoordinator ? kCoordinatorPolicy : kAgentPolicy,
      {{"spiffe://TD/", absl::StrCat("spiffe://", trust_domain, "/")}});
}

AuthzPolicy AuthzPolicy::Default(Service service,
                                 absl::string_view trust_domain) {
  absl::StatusOr<AuthzPolicy> policy =
      Parse(DefaultJson(service, trust_domain));
  // The built-in text is ours: failing to parse it is a bug.
  if (!policy.ok()) std::abort();
  return *std::move(policy);
}

AuthzPolicy::Decision AuthzPolicy::Evaluate(
    absl::string_view path, const std::vector<std::string>& principals) const {
  for (const Rule& rule : deny_) {
    if (rule.Matches(path, principals)) return {false, rule.name};
  }
  for (const Rule& rule : allow_) {
    if (rule.Matches(path, principals)) return {true, rule.name};
  }
  return {false, ""};
}

}  // namespace fabricpulse::security
