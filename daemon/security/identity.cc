#include "daemon/security/identity.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::security {
namespace {

constexpr absl::string_view kScheme = "spiffe://";
constexpr size_t kMaxNameLength = 253;
using core::QuotePrefix;

}  // namespace

absl::string_view RoleName(Role role) {
  switch (role) {
    case Role::kCoordinator:
      return "coordinator";
    case Role::kAgent:
      return "agent";
    case Role::kOperator:
      return "operator";
    case Role::kViewer:
      return "viewer";
  }
  return "viewer";
}

absl::StatusOr<Role> ParseRole(absl::string_view name) {
  for (Role r :
       {Role::kCoordinator, Role::kAgent, Role::kOperator, Role::kViewer}) {
    if (name == RoleName(r)) return r;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("role: ", QuotePrefix(name),
                   " is not a role; allowed: coordinator, agent, operator, "
                   "viewer"));
}

std::string Identity::ToString() const {
  return absl::StrCat(RoleName(role), "/", name);
}

absl::Status ValidateTrustDomain(absl::string_view trust_domain) {
  bool ok = !trust_domain.empty() && trust_domain.size() <= 255;
  for (char c : trust_domain) {
    ok = ok && (absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '.' ||
                c == '-' || c == '_');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--trust-domain: ", QuotePrefix(trust_domain),
      " is not a trust domain; allowed: 1 to 255 of a-z, 0-9, '.', '-', "
      "'_'"));
}

absl::Status ValidateIdentityName(absl::string_view name,
                                  absl::string_view field) {
  bool ok = !name.empty() && name.size() <= kMaxNameLength;
  for (char c : name) {
    ok = ok && (absl::ascii_isalnum(c) || c == '.' || c == '-' || c == '_');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", QuotePrefix(name),
                   " is not a valid name; allowed: 1 to 253 of A-Z, a-z, "
                   "0-9, '.', '-', '_'"));
}

std::string SpiffeId(absl::string_view trust_domain, const Identity& id) {
  return absl::StrCat(kScheme, trust_domain, "/", RoleName(id.role), "/",
                      id.name);
}

std::optional<Identity> ParseSpiffeId(absl::string_view uri,
                                      absl::string_view trust_domain) {
  if (!absl::ConsumePrefix(&uri, kScheme)) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(uri, '/');
  if (parts.size() != 3 || parts[0] != trust_domain) return std::nullopt;
  absl::StatusOr<Role> role = ParseRole(parts[1]);
  if (!role.ok() || !ValidateIdentityName(parts[2], "name").ok()) {
    return std::nullopt;
  }
  return Identity{*role, std::string(parts[2])};
}

absl::StatusOr<Identity> SoleIdentity(const std::vector<std::string>& uris,
                                      absl::string_view trust_domain) {
  const std::string* spiffe = nullptr;
  int count = 0;
  for (const std::string& uri : uris) {
    if (!absl::StartsWith(uri, kScheme)) continue;
    spiffe = &uri;
    count++;
  }
  const std::string shape =
      absl::StrCat(" (exactly one URI SAN spiffe://", trust_domain,
                   "/<role>/<name> is required)");
  if (count != 1) {
    return absl::UnauthenticatedError(absl::StrCat(
        "the client certificate names ", count == 0 ? "no" : "more than one",
        " FabricPulse identity", shape));
  }
  std::optional<Identity> id = ParseSpiffeId(*spiffe, trust_domain);
  if (!id) {
    return absl::UnauthenticatedError(
        absl::StrCat("the client certificate's identity ", QuotePrefix(*spiffe),
                     " is not a FabricPulse identity", shape));
  }
  return *id;
}

absl::string_view SpiffeTrustDomain(absl::string_view uri) {
  if (!absl::ConsumePrefix(&uri, kScheme)) return "";
  return uri.substr(0, uri.find('/'));
}

}  // namespace fabricpulse::security
