#include "daemon/security/cert_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "daemon/security/x509_check.h"

namespace fabricpulse::security {
namespace {

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Stem(const Identity& id) {
  return absl::StrCat(RoleName(id.role), "-", id.name);
}

}  // namespace

absl::Status WritePrivateFile(const std::string& path,
                              const std::string& contents, int mode) {
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                      static_cast<mode_t>(mode));
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat(path, ": cannot write: ", strerror(errno)));
  }
  fchmod(fd, static_cast<mode_t>(mode));
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == contents.size() && close(fd) == 0;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat(path, ": cannot write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CertSet> CertSet::Create(const std::string& dir,
                                        const std::string& trust_domain,
                                        absl::Duration valid_for) {
  absl::Status td = ValidateTrustDomain(trust_domain);
  if (!td.ok()) return td;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(
        absl::StrCat(dir, ": cannot create: ", strerror(errno)));
  }
  CertSet out;
  out.dir_ = dir;
  out.trust_domain_ = trust_domain;
  out.valid_for_ = valid_for;
  if (access(out.CaFile().c_str(), F_OK) == 0) {
    return absl::AlreadyExistsError(
        absl::StrCat(out.CaFile(), ": a CA is already there"));
  }
  absl::StatusOr<KeyAndCertificate> ca = CreateCertificateAuthority(
      absl::StrCat("FabricPulse CA (", trust_domain, ")"), valid_for);
  if (!ca.ok()) return ca.status();
  out.ca_ = *std::move(ca);
  absl::Status written =
      WritePrivateFile(dir + "/ca.key", out.ca_.key_pem, 0600);
  if (!written.ok()) return written;
  written = WritePrivateFile(out.CaFile(), out.ca_.certificate_pem, 0644);
  if (!written.ok()) return written;
  return out;
}

absl::StatusOr<CertSet> CertSet::Open(const std::string& dir,
                                      const std::string& trust_domain) {
  absl::Status td = ValidateTrustDomain(trust_domain);
  if (!td.ok()) return td;
  CertSet out;
  out.dir_ = dir;
  out.trust_domain_ = trust_domain;
  absl::StatusOr<std::string> cert = ReadAll(out.CaFile());
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadAll(dir + "/ca.key");
  if (!key.ok()) return key.status();
  absl::StatusOr<CertificateSummary> summary = SummarizeCertificate(*cert);
  if (!summary.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(out.CaFile(), ": ", summary.status().message()));
  }
  out.valid_for_ = summary->not_after - absl::Now();
  out.ca_ = {*std::move(key), *std::move(cert)};
  return out;
}

absl::StatusOr<TlsOptions> CertSet::Issue(
    const Identity& id, const std::vector<std::string>& dns_sans,
    const std::vector<std::string>& ip_sans) {
  absl::Status name = ValidateIdentityName(id.name, "name");
  if (!name.ok()) return name;
  CertificateRequest request;
  request.common_name = id.ToString();
  request.uri_sans = {SpiffeId(trust_domain_, id)};
  request.dns_sans = dns_sans;
  request.ip_sans = ip_sans;
  request.valid_for = valid_for_;
  absl::StatusOr<KeyAndCertificate> issued = IssueCertificate(ca_, request);
  if (!issued.ok()) return issued.status();
  const TlsOptions options = OptionsFor(id);
  absl::Status written =
      WritePrivateFile(options.key_file, issued->key_pem, 0600);
  if (!written.ok()) return written;
  written = WritePrivateFile(options.cert_file, issued->certificate_pem, 0644);
  if (!written.ok()) return written;
  return options;
}

TlsOptions CertSet::OptionsFor(const Identity& id) const {
  TlsOptions options;
  options.cert_file = absl::StrCat(dir_, "/", Stem(id), ".crt");
  options.key_file = absl::StrCat(dir_, "/", Stem(id), ".key");
  options.ca_file = CaFile();
  options.trust_domain = trust_domain_;
  return options;
}

}  // namespace fabricpulse::security
