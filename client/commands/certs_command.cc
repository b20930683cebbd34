#include "client/commands/certs_command.h"

#include <sys/stat.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/commands/coordinator_connection.h"
#include "client/commands/exit_codes.h"
#include "daemon/security/cert_set.h"

namespace fabricpulse::client {
namespace {

absl::StatusOr<security::Identity> ParseIdentity(const std::string& text) {
  std::vector<std::string> parts =
      absl::StrSplit(text, absl::MaxSplits('/', 1));
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--issue: '", text.substr(0, 64),
                     "' is not ROLE/NAME; e.g. agent/node-a, operator/alice"));
  }
  absl::StatusOr<security::Role> role = security::ParseRole(parts[0]);
  if (!role.ok()) return role.status();
  absl::Status name = security::ValidateIdentityName(parts[1], "--issue");
  if (!name.ok()) return name;
  return security::Identity{*role, parts[1]};
}

}  // namespace

int RunCertsCommand(const CertsFlags& flags) {
  if (flags.days < 1 || flags.days > 3650) {
    PrintError(absl::StrCat("--days: ", flags.days,
                            " is out of range; allowed: 1 to 3650"));
    return kExitBadInput;
  }
  std::vector<security::Identity> ids;
  for (const std::string& text : flags.issue) {
    absl::StatusOr<security::Identity> id = ParseIdentity(text);
    if (!id.ok()) {
      PrintError(std::string(id.status().message()));
      return kExitBadInput;
    }
    ids.push_back(*id);
  }
  absl::Status td = security::ValidateTrustDomain(flags.trust_domain);
  if (!td.ok()) {
    PrintError(std::string(td.message()));
    return kExitBadInput;
  }
  struct stat st;
  const bool has_ca = stat((flags.dir + "/ca.crt").c_str(), &st) == 0;
  auto set = has_ca ? security::CertSet::Open(flags.dir, flags.trust_domain)
                    : security::CertSet::Create(flags.dir, flags.trust_domain,
                                                absl::Hours(24 * flags.days));
  if (!set.ok()) {
    PrintError(absl::StrCat("certs: ", set.status().message()));
    return kExitFailed;
  }
  if (!has_ca) {
    std::printf("CA: %s (its key: %s/ca.key, keep it private)\n",
                set->CaFile().c_str(), flags.dir.c_str());
  }
  for (const security::Identity& id : ids) {
    auto issued = set->Issue(id, flags.dns, flags.ip);
    if (!issued.ok()) {
      PrintError(absl::StrCat("certs: ", id.ToString(), ": ",
                              issued.status().message()));
      return issued.status().code() == absl::StatusCode::kInvalidArgument
                 ? kExitBadInput
                 : kExitFailed;
    }
    std::printf("%s: --tls-cert %s --tls-key %s --tls-ca %s\n",
                id.ToString().c_str(), issued->cert_file.c_str(),
                issued->key_file.c_str(), issued->ca_file.c_str());
  }
  return kExitOk;
}

}  // namespace fabricpulse::client
