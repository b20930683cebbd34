#include "daemon/backend/gloo/gloo_status.h"

#include <new>
#include <stdexcept>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"

namespace fabricpulse::backend::gloo_impl {
namespace {

// Gloo reports every kind of timeout through IoException; only the text
// tells them apart ("Timed out waiting ...", "Read timeout", "Connect
// timeout", "Application timeout caused pair closure").
bool IsTimeoutMessage(absl::string_view message) {
  const std::string lower = absl::AsciiStrToLower(message);
  return absl::StrContains(lower, "timeout") ||
         absl::StrContains(lower, "timed out");
}

}  // namespace

absl::Status GlooExceptionToStatus(std::exception_ptr error,
                                   absl::string_view what) {
  if (error == nullptr) {
    return absl::InternalError(absl::StrCat(what, ": no exception"));
  }
  try {
    std::rethrow_exception(error);
  } catch (const ::gloo::IoException& e) {
    if (IsTimeoutMessage(e.what())) {
      return absl::DeadlineExceededError(
          absl::StrCat(what, ": timed out in gloo: ", e.what()));
    }
    return absl::UnavailableError(
        absl::StrCat(what, ": gloo transport failed (peer lost?): ", e.what()));
  } catch (const std::bad_alloc& e) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": out of host memory: ", e.what()));
  } catch (const ::gloo::EnforceNotMet& e) {
    return absl::InternalError(
        absl::StrCat(what, ": gloo invariant failed: ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(what, ": gloo failed: ", e.what()));
  } catch (...) {
    return absl::InternalError(
        absl::StrCat(what, ": gloo threw a non-standard exception"));
  }
}

}  // namespace fabricpulse::backend::gloo_impl
