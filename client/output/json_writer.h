// A small streaming writer of pretty-printed JSON (2-space indent), shared
// by the CLI's JSON documents so that none is assembled by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace fabricpulse::client {

// Not thread-safe. The caller nests Begin/End calls correctly (a broken
// nesting is a programming error: the text is then not valid JSON); inside
// an object every value follows a Key.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view value);
  // An empty `value` is null: unknown text.
  JsonWriter& StringOrNull(absl::string_view value);
  // A non-finite value is null.
  JsonWriter& Number(double value);
  JsonWriter& Number(const std::optional<double>& value);
  // With `decimals` digits after the point ("1796154467.250" for 3): for
  // figures whose magnitude would eat Number's 10 significant digits, such
  // as Unix times. Absent or non-finite: null.
  JsonWriter& Fixed(const std::optional<double>& value, int decimals);
  JsonWriter& Int(int64_t value);
  JsonWriter& Unsigned(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Valid JSON text written as one value (e.g. an object made elsewhere).
  JsonWriter& Raw(absl::string_view json);
  JsonWriter& StringArray(const std::vector<std::string>& values);

  // The document so far, newline-terminated once complete.
  std::string Finish();

 private:
  void BeforeValue();
  void Open(char bracket);
  void Close(char bracket);

  std::string out_;
  // Per open container: whether it has a member yet.
  std::vector<bool> has_member_;
  bool after_key_ = false;
};

// `text` as a JSON string literal, quotes included. Escapes '"', '\\' and
// control characters; other bytes (UTF-8) pass through.
std::string JsonString(absl::string_view text);

}  // namespace fabricpulse::client
