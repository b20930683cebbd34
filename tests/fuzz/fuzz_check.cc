#include "tests/fuzz/fuzz_check.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fabricpulse::fuzz {
namespace {

// Long messages are cut in the report: the input file holds the rest.
std::string Short(absl::string_view text) {
  constexpr size_t kMax = 300;
  if (text.size() <= kMax) return std::string(text);
  return absl::StrCat(text.substr(0, kMax), "... (", text.size(), " bytes)");
}

}  // namespace

void Fail(absl::string_view what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", Short(what).c_str());
  std::fflush(stderr);
  std::abort();
}

bool Strict() {
  static const bool strict = [] {
    const char* value = std::getenv("FABRICPULSE_FUZZ_STRICT");
    return value != nullptr && absl::string_view(value) == "1";
  }();
  return strict;
}

void CheckCode(const absl::Status& status,
               std::initializer_list<absl::StatusCode> allowed,
               absl::string_view where) {
  if (status.ok()) return;
  if (Strict() && (status.message().size() > kMaxErrorMessage ||
                   absl::StrContains(status.message(), "\n"))) {
    Fail(absl::StrCat(where, ": error of ", status.message().size(),
                      " bytes or several lines: ", status.message()));
  }
  for (absl::StatusCode code : allowed) {
    if (status.code() == code) return;
  }
  Fail(absl::StrCat(where, ": unexpected status ", status.ToString()));
}

void CheckPrefix(const absl::Status& status, absl::string_view prefix,
                 absl::string_view where) {
  if (status.ok() || !absl::StartsWith(status.message(), prefix)) {
    Fail(absl::StrCat(where, ": expected an error starting '", prefix,
                      "', got ", status.ToString()));
  }
}

void CheckNamesField(const absl::Status& status, absl::string_view where) {
  absl::string_view message = status.message();
  const size_t colon = message.find(": ");
  bool named = !status.ok() && colon != absl::string_view::npos && colon > 0;
  for (size_t i = 0; named && i < colon; ++i) {
    const char c = message[i];
    named = absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_' ||
            c == '-' || c == '.' || c == '[' || c == ']';
  }
  if (!named) {
    Fail(absl::StrCat(where, ": error does not start with a field name: ",
                      status.ToString()));
  }
}

bool ZoneNameIsPath(absl::string_view zone) {
  return absl::StartsWith(zone, "/") || absl::StrContains(zone, "..") ||
         absl::StrContains(zone, ":");
}

}  // namespace fabricpulse::fuzz
