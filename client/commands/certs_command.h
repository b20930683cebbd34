// `fabricpulse certs DIR --issue ROLE/NAME ...`: a small CA of FabricPulse's
// own for a test or small deployment (made in DIR on first use, reused
// after), and certificates naming each identity.
#pragma once

#include <string>
#include <vector>

namespace fabricpulse::client {

struct CertsFlags {
  std::string dir;
  std::vector<std::string> issue;  // "agent/node-a", "operator/alice", ...
  std::vector<std::string> dns;    // extra SANs of every certificate issued
  std::vector<std::string> ip;
  std::string trust_domain = "fabricpulse";
  int days = 365;  // validity of a new CA (certificates end with it)
};

// Exit codes: 0 written; 2 bad flags (a role, name, SAN or day count out of
// range; a folder that exists without a CA but with other files is used
// as it is); 1 a file could not be written.
int RunCertsCommand(const CertsFlags& flags);

}  // namespace fabricpulse::client
