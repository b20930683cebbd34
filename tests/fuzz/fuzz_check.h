// Shared by the fuzz targets: an invariant that does not hold stops the
// process with one line on stderr and abort(), so that libFuzzer keeps the
// input as a crash and the replay test (fuzz_replay_test) fails on it.
//
// Thread-safety: stateless functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace fabricpulse::fuzz {

inline constexpr size_t kMaxErrorMessage = 1024;

// One fuzz target: consumes any bytes, returns 0 (libFuzzer's contract),
// and aborts through Fail() when an invariant breaks.
using TargetFunction = int (*)(const uint8_t* data, size_t size);

// Prints "fuzz invariant broken: <what>" and aborts.
[[noreturn]] void Fail(absl::string_view what);

// Fails unless `status` is OK or carries one of `allowed`; `where` names the
// call in the message. With FABRICPULSE_FUZZ_STRICT=1 in the environment,
// also fails on an error message longer than kMaxErrorMessage or spanning
// lines (the bounds of issue 13 item 5: errors quote a short prefix of
// what the client sent; off by default until every validator does).
void CheckCode(const absl::Status& status,
               std::initializer_list<absl::StatusCode> allowed,
               absl::string_view where);

// Whether FABRICPULSE_FUZZ_STRICT=1 is set (see CheckCode).
bool Strict();

// Fails unless `status` is an error whose message starts with `prefix`
// (e.g. "cron: ", "config line ").
void CheckPrefix(const absl::Status& status, absl::string_view prefix,
                 absl::string_view where);

// Fails unless the error message starts with a field name and ": ", as the
// validators promise ("iters: 0 is out of range; ..."). A field name is
// lower case letters, digits, '_', '-', '.', '[' and ']'.
void CheckNamesField(const absl::Status& status, absl::string_view where);

// Whether a time zone name reads as a path rather than an IANA name
// ("/dev/stdin", "../../etc/passwd", "file:/tmp/fifo"): absl opens whatever
// file such a name points at, so a parser must never accept one.
bool ZoneNameIsPath(absl::string_view zone);

// The bytes as a string (any content, NULs included).
inline std::string AsString(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace fabricpulse::fuzz
