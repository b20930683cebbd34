// libssl.so for civetweb (see CMakeLists.txt here): OpenSSL 3's libssl.so.3
// plus the one function Debian's civetweb 1.15 (built for the OpenSSL 1.1
// API) looks up and OpenSSL 3 only has as a macro.
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate

extern "C" {

__attribute__((visibility("default"))) X509* SSL_get_peer_certificate(
    const SSL* ssl) {
  // 1.1's SSL_get_peer_certificate took a reference, as get1 does.
  return SSL_get1_peer_certificate(ssl);
}

// Referenced by the metrics server, so that the link keeps this library.
__attribute__((visibility("default"))) int fabricpulse_civetweb_ssl_shim() {
  return 1;
}

}  // extern "C"
