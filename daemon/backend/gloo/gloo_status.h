// The one place where Gloo's exceptions become absl::Status.
#pragma once

#include <exception>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::backend::gloo_impl {

// Converts the exception `error` (typically std::current_exception() in a
// catch (...) block) thrown while doing `what` to a status:
//   gloo::IoException about a timeout      -> DEADLINE_EXCEEDED
//   other gloo::IoException (peer lost)    -> UNAVAILABLE
//   std::bad_alloc                         -> RESOURCE_EXHAUSTED
//   gloo::EnforceNotMet, other exceptions  -> INTERNAL
// The message starts with `what` and keeps Gloo's message.
absl::Status GlooExceptionToStatus(std::exception_ptr error,
                                   absl::string_view what);

}  // namespace fabricpulse::backend::gloo_impl
