#include "tests/integration/test_pki.h"

#include <netdb.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/common/process.h"

namespace fabricpulse::testing {
namespace {

absl::Status Openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = common::RunCommand(argv, absl::Seconds(60));
  if (!result.ok()) return result.status();
  if (result->exit.exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("openssl ", args.front(), " failed: ", result->output));
  }
  return absl::OkStatus();
}

absl::Status MakeCa(const std::string& dir, const std::string& name,
                    std::string* cert) {
  *cert = absl::StrCat(dir, "/", name, ".pem");
  return Openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                  absl::StrCat(dir, "/", name, ".key"), "-out", *cert, "-days",
                  "2", "-subj", absl::StrCat("/CN=", name), "-addext",
                  "basicConstraints=critical,CA:TRUE", "-addext",
                  "keyUsage=critical,keyCertSign,cRLSign"});
}

// A leaf signed by CA `ca` (files dir/ca.pem, dir/ca.key).
absl::Status Issue(const std::string& dir, const std::string& ca,
                   const std::string& cn, const std::string& ext,
                   const std::string& cert, const std::string& key) {
  const std::string csr = absl::StrCat(cert, ".csr");
  const std::string ext_file = absl::StrCat(cert, ".ext");
  {
    std::ofstream out(ext_file);
    out << ext << "\n";
  }
  absl::Status status = Openssl(
      {"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
       "-keyout", key, "-out", csr, "-subj", absl::StrCat("/CN=", cn)});
  if (!status.ok()) return status;
  return Openssl({"x509", "-req", "-in", csr, "-CA",
                  absl::StrCat(dir, "/", ca, ".pem"), "-CAkey",
                  absl::StrCat(dir, "/", ca, ".key"), "-CAcreateserial", "-out",
                  cert, "-days", "2", "-extfile", ext_file});
}

constexpr char kServerExt[] =
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth";
constexpr char kClientExt[] =
    "subjectAltName=URI:spiffe://fabricpulse/viewer/prometheus\n"
    "extendedKeyUsage=clientAuth";

}  // namespace

absl::StatusOr<TestPki> MakeTestPki(const std::string& dir,
                                    const std::string& tag) {
  TestPki pki;
  absl::Status status = MakeCa(dir, "ca", &pki.ca_cert);
  if (status.ok()) status = MakeCa(dir, "other-ca", &pki.other_ca_cert);
  pki.server_cert = dir + "/server.pem";
  pki.server_key = dir + "/server.key";
  if (status.ok()) {
    status = Issue(dir, "ca", tag, kServerExt, pki.server_cert, pki.server_key);
  }
  pki.client_cert = dir + "/client.pem";
  pki.client_key = dir + "/client.key";
  if (status.ok()) {
    status = Issue(dir, "ca", "prometheus", kClientExt, pki.client_cert,
                   pki.client_key);
  }
  pki.rogue_client_cert = dir + "/rogue.pem";
  pki.rogue_client_key = dir + "/rogue.key";
  if (status.ok()) {
    status = Issue(dir, "other-ca", "rogue", kClientExt, pki.rogue_client_cert,
                   pki.rogue_client_key);
  }
  if (!status.ok()) return status;
  return pki;
}

absl::Status IssueServerCert(const TestPki& pki, const std::string& dir,
                             const std::string& cn,
                             const std::string& cert_path,
                             const std::string& key_path) {
  (void)pki;  // the CA's files are dir/ca.{pem,key}, as MakeTestPki left them
  return Issue(dir, "ca", cn, kServerExt, cert_path, key_path);
}

absl::StatusOr<std::string> PresentedCommonName(const std::string& address) {
  const size_t colon = address.rfind(':');
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (colon == std::string::npos ||
      getaddrinfo(address.substr(0, colon).c_str(),
                  address.substr(colon + 1).c_str(), &hints, &found) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", address));
  }
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool connected =
      fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!connected) {
    if (fd >= 0) close(fd);
    return absl::UnavailableError(absl::StrCat("cannot connect to ", address));
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  std::string cn;
  if (SSL_connect(ssl) == 1) {
    if (X509* cert = SSL_get1_peer_certificate(ssl)) {
      char text[256] = {0};
      X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName,
                                text, sizeof(text));
      cn = text;
      X509_free(cert);
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  close(fd);
  if (cn.empty()) return absl::UnavailableError("no TLS handshake");
  return cn;
}

}  // namespace fabricpulse::testing
