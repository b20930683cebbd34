#include "client/output/json_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/output/units.h"

namespace fabricpulse::client {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_member_.empty()) return;
  if (has_member_.back()) out_ += ",";
  has_member_.back() = true;
  out_ += "\n";
  out_.append(2 * has_member_.size(), ' ');
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  out_ += bracket;
  has_member_.push_back(false);
}

void JsonWriter::Close(char bracket) {
  const bool had_members = has_member_.back();
  has_member_.pop_back();
  if (had_members) {
    out_ += "\n";
    out_.append(2 * has_member_.size(), ' ');
  }
  out_ += bracket;
}

JsonWriter& JsonWriter::BeginObject() {
  Open('{');
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  Close('}');
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  Open('[');
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  Close(']');
  return *this;
}

JsonWriter& JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  absl::StrAppend(&out_, JsonString(key), ": ");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::Raw(absl::string_view json) {
  BeforeValue();
  out_.append(json.data(), json.size());
  return *this;
}

JsonWriter& JsonWriter::String(absl::string_view value) {
  return Raw(JsonString(value));
}

JsonWriter& JsonWriter::StringOrNull(absl::string_view value) {
  return value.empty() ? Null() : String(value);
}

JsonWriter& JsonWriter::Number(double value) {
  return std::isfinite(value) ? Raw(FormatNumber(value)) : Null();
}

JsonWriter& JsonWriter::Number(const std::optional<double>& value) {
  return value ? Number(*value) : Null();
}

JsonWriter& JsonWriter::Fixed(const std::optional<double>& value,
                              int decimals) {
  if (!value || !std::isfinite(*value)) return Null();
  return Raw(absl::StrFormat("%.*f", decimals, *value));
}

JsonWriter& JsonWriter::Int(int64_t value) { return Raw(absl::StrCat(value)); }

JsonWriter& JsonWriter::Unsigned(uint64_t value) {
  return Raw(absl::StrCat(value));
}

JsonWriter& JsonWriter::Bool(bool value) {
  return Raw(value ? "true" : "false");
}

JsonWriter& JsonWriter::Null() { return Raw("null"); }

JsonWriter& JsonWriter::StringArray(const std::vector<std::string>& values) {
  BeginArray();
  for (const std::string& v : values) String(v);
  return EndArray();
}

std::string JsonWriter::Finish() {
  std::string done = std::move(out_);
  out_.clear();
  done += "\n";
  return done;
}

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace fabricpulse::client
