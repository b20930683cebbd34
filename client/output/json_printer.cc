#include "client/output/json_printer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/output/max_bytes_auto_text.h"
#include "client/output/result_fields.h"
#include "client/output/units.h"

namespace fabricpulse::client {
namespace {

std::string JsonNumber(double value) {
  return std::isfinite(value) ? FormatNumber(value) : "null";
}

std::string JsonValue(const ResultField& field) {
  switch (field.kind) {
    case ResultField::Kind::kString:
      return JsonString(field.text);
    case ResultField::Kind::kNull:
      return "null";
    case ResultField::Kind::kLiteral:
    case ResultField::Kind::kObject:
      break;
  }
  return field.text;
}

}  // namespace

JsonPrinter::JsonPrinter(const OutputOptions& options, std::ostream& out)
    : options_(options), out_(out) {}

void JsonPrinter::Begin(const v1::SweepSpec& spec,
                        const v1::SweepStarted& started) {
  started_ = started;
  max_bytes_auto_ = MaxBytesAutoJson(spec);
}

void JsonPrinter::CommReady(const v1::SweepCommReady& ready) { ready_ = ready; }

void JsonPrinter::Add(const v1::StepResult& result) {
  results_.push_back(result);
}

void JsonPrinter::Finish(const v1::SweepFinished& finished) {
  const std::string& sweep_id =
      finished.sweep_id().empty() ? started_.sweep_id() : finished.sweep_id();
  std::string doc = "{\n";
  absl::StrAppend(&doc, "  \"sweep_id\": ", JsonString(sweep_id), ",\n");
  absl::StrAppend(&doc, "  \"status\": ", JsonString(finished.status()), ",\n");
  if (!finished.error().empty()) {
    absl::StrAppend(&doc, "  \"error\": ", JsonString(finished.error()), ",\n");
  }
  if (!finished.straggler().empty()) {
    absl::StrAppend(&doc, "  \"straggler\": ", JsonString(finished.straggler()),
                    ",\n");
  }
  absl::StrAppend(&doc, "  \"nranks\": ", started_.nranks(), ",\n");
  absl::StrAppend(&doc, "  \"backend\": ", JsonString(started_.backend()),
                  ",\n");
  if (started_.nodes().empty()) {
    absl::StrAppend(&doc, "  \"nodes\": [],\n");
  } else {
    absl::StrAppend(&doc, "  \"nodes\": [\n");
    for (int i = 0; i < started_.nodes_size(); ++i) {
      absl::StrAppend(&doc, "    ", JsonString(started_.nodes(i)),
                      i + 1 < started_.nodes_size() ? ",\n" : "\n");
    }
    absl::StrAppend(&doc, "  ],\n");
  }
  if (!max_bytes_auto_.empty()) {
    absl::StrAppend(&doc, "  \"max_bytes_auto\": ", max_bytes_auto_, ",\n");
  }
  absl::StrAppend(
      &doc, "  \"bw_unit\": ", JsonString(BwUnitName(options_.unit)), ",\n");
  absl::StrAppend(&doc, "  \"comm_reused\": ",
                  !ready_ ? "null" : (ready_->reused() ? "true" : "false"),
                  ",\n");
  absl::StrAppend(&doc, "  \"comm_init_s\": ",
                  ready_ ? JsonNumber(ready_->init_seconds()) : "null", ",\n");
  absl::StrAppend(&doc,
                  "  \"duration_s\": ", JsonNumber(finished.duration_seconds()),
                  ",\n");
  if (results_.empty()) {
    absl::StrAppend(&doc, "  \"results\": []\n");
  } else {
    absl::StrAppend(&doc, "  \"results\": [\n");
    for (size_t r = 0; r < results_.size(); ++r) {
      absl::StrAppend(&doc, "    {\n");
      const std::vector<ResultField> fields =
          ResultFields(results_[r], options_.unit);
      for (size_t f = 0; f < fields.size(); ++f) {
        absl::StrAppend(&doc, "      ", JsonString(fields[f].key), ": ",
                        JsonValue(fields[f]),
                        f + 1 < fields.size() ? ",\n" : "\n");
      }
      absl::StrAppend(&doc, r + 1 < results_.size() ? "    },\n" : "    }\n");
    }
    absl::StrAppend(&doc, "  ]\n");
  }
  absl::StrAppend(&doc, "}\n");
  out_ << doc;
  out_.flush();
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
