#include "daemon/security/caller.h"

#include "absl/strings/str_cat.h"
#include "daemon/core/log.h"
#include "daemon/security/authorizer.h"

namespace fabricpulse::security {
namespace {

std::string First(const grpc::AuthContext& auth, const char* property) {
  std::vector<grpc::string_ref> values = auth.FindPropertyValues(property);
  if (values.empty()) return "";
  return std::string(values.front().data(), values.front().size());
}

}  // namespace

std::optional<Identity> CallerIdentity(const grpc::ServerContextBase& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth) return std::nullopt;
  absl::StatusOr<Role> role = ParseRole(First(*auth, kRoleProperty));
  const std::string name = First(*auth, kNameProperty);
  if (!role.ok() || name.empty()) return std::nullopt;
  return Identity{*role, name};
}

std::string CallerDescription(const grpc::ServerContextBase& context) {
  if (std::optional<Identity> id = CallerIdentity(context)) {
    return id->ToString();
  }
  return absl::StrCat("anonymous ", context.peer());
}

void Audit(const grpc::ServerContextBase& context, absl::string_view action) {
  std::string line =
      absl::StrCat("audit: ", CallerDescription(context), " ", action);
  // One line, whatever a client's string held.
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  FP_LOG_INFO(line);
}

absl::Status RequireAgentNode(const grpc::ServerContextBase& context,
                              absl::string_view node) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return absl::OkStatus();
  std::optional<Identity> id = CallerIdentity(context);
  if (id && id->role == Role::kAgent && id->name == node) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      id ? id->ToString() : std::string("a caller without an identity"),
      " may not act for node '", node.substr(0, 64),
      "': an agent acts only as the node its certificate names"));
}

absl::StatusOr<std::string> CallerAgentNode(
    const grpc::ServerContextBase& context) {
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return std::string();
  std::optional<Identity> id = CallerIdentity(context);
  if (id && id->role == Role::kAgent) return id->name;
  return absl::PermissionDeniedError(absl::StrCat(
      id ? id->ToString() : std::string("a caller without an identity"),
      " may not use the rendezvous store: only agents (for their own "
      "node's ranks) do"));
}

}  // namespace fabricpulse::security
