// libcrypto.so for civetweb (see CMakeLists.txt here): nothing of its own;
// it brings OpenSSL 3's libcrypto.so.3, in which civetweb finds everything.
#include <openssl/crypto.h>

extern "C" {

// Referenced by the metrics server, so that the link keeps this library;
// also keeps libcrypto.so.3 a dependency of this one.
__attribute__((visibility("default"))) unsigned long
fabricpulse_civetweb_crypto_shim() {
  return OpenSSL_version_num();
}

}  // extern "C"
