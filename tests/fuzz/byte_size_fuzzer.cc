// Fuzzes byte sizes (daemon/core/byte_size.h): refusals name the field;
// what parses formats back to text that parses to the same value.
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/core/byte_size.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fabricpulse::fuzz {
namespace {

void CheckFormats(uint64_t value) {
  const std::string text = core::FormatByteSize(value);
  const auto back = core::ParseByteSize(text, "size");
  if (!back.ok() || *back != value) {
    Fail(absl::StrCat("FormatByteSize(", value, ") = '", text,
                      "' does not parse back"));
  }
  if (core::HumanByteSize(value).empty()) Fail("HumanByteSize is empty");
}

}  // namespace

int FuzzByteSize(const uint8_t* data, size_t size) {
  const auto parsed = core::ParseByteSize(AsString(data, size), "size");
  if (parsed.ok()) {
    CheckFormats(*parsed);
  } else {
    CheckCode(parsed.status(), {absl::StatusCode::kInvalidArgument},
              "ParseByteSize");
    CheckPrefix(parsed.status(), "size: ", "ParseByteSize");
  }
  // The first eight bytes as a value, for sizes text rarely reaches.
  if (size >= sizeof(uint64_t)) {
    uint64_t value = 0;
    std::memcpy(&value, data, sizeof(value));
    CheckFormats(value);
  }
  return 0;
}

}  // namespace fabricpulse::fuzz
