#include "client/output/diagnosis_printer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/output/csv_printer.h"
#include "client/output/json_printer.h"
#include "client/output/units.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client {
namespace {

bool Running(const v1::DiagnoseResponse& r) {
  return r.state() == "running" || r.state() == "stalled";
}

std::string Gpu(const v1::DiagnoseCulprit& c) {
  return c.gpu() >= 0 ? absl::StrCat(c.gpu()) : "-";
}

std::string Verdict(const v1::DiagnoseCulprit& c) {
  return c.low_confidence() ? absl::StrCat(c.kind(), " (suspect)") : c.kind();
}

std::string Step(const v1::DiagnoseCulprit& c) {
  return c.seq() > 0 ? absl::StrCat(c.seq()) : "-";
}

std::string Size(const v1::DiagnoseCulprit& c) {
  return c.op().empty() ? "-" : core::HumanByteSize(c.bytes());
}

// A culprit without a known op (an unreachable rank that recorded none)
// has no "stuck for" either.
bool KnownStuckFor(const v1::DiagnoseCulprit& c) {
  return c.seq() > 0 || c.stuck_for_seconds() > 0;
}

std::string StuckFor(const v1::DiagnoseCulprit& c) {
  return KnownStuckFor(c) ? absl::StrFormat("%.1fs", c.stuck_for_seconds())
                          : "-";
}

// Text columns left-aligned, numeric ones right-aligned, two spaces apart;
// the last column is not padded.
void PrintTable(const std::vector<std::vector<std::string>>& rows,
                const std::vector<bool>& right, std::ostream& out) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line.append("  ");
      const std::string pad(width[i] - row[i].size(), ' ');
      if (right[i]) {
        absl::StrAppend(&line, pad, row[i]);
      } else if (i + 1 < row.size()) {
        absl::StrAppend(&line, row[i], pad);
      } else {
        line.append(row[i]);
      }
    }
    out << line << "\n";
  }
}

std::string Number(double value) {
  return std::isfinite(value) ? FormatNumber(value) : "null";
}

// Unix times to the millisecond, null when unknown (0).
std::string UnixOrNull(double seconds) {
  return seconds > 0 ? absl::StrFormat("%.3f", seconds) : "null";
}

std::string NullIfEmpty(const std::string& text) {
  return text.empty() ? "null" : JsonString(text);
}

std::string CulpritJson(const v1::DiagnoseCulprit& c) {
  const bool known_op = !c.op().empty();
  return absl::StrCat(
      "{\"rank\": ", c.rank(), ", \"node\": ", JsonString(c.node()),
      ", \"gpu\": ", c.gpu() >= 0 ? absl::StrCat(c.gpu()) : "null",
      ", \"kind\": ", JsonString(c.kind()),
      ", \"low_confidence\": ", c.low_confidence() ? "true" : "false",
      ", \"step\": ", c.seq() > 0 ? absl::StrCat(c.seq()) : "null",
      ", \"op\": ", NullIfEmpty(c.op()),
      ", \"bytes\": ", known_op ? absl::StrCat(c.bytes()) : "null",
      ", \"stuck_for_s\": ",
      KnownStuckFor(c) ? Number(c.stuck_for_seconds()) : "null",
      ", \"explanation\": ", JsonString(c.explanation()), "}");
}

}  // namespace

void PrintDiagnosisReport(const v1::DiagnoseResponse& r, std::ostream& out) {
  out << "sweep " << r.sweep_id();
  if (!r.state().empty()) out << " (" << r.state() << ")";
  out << "\n" << r.summary() << "\n";
  if (r.culprits_size() > 0) {
    std::vector<std::vector<std::string>> rows = {
        {"NODE", "GPU", "RANK", "VERDICT", "STEP", "OP", "SIZE", "STUCK FOR"}};
    for (const v1::DiagnoseCulprit& c : r.culprits()) {
      rows.push_back({c.node().empty() ? "-" : c.node(), Gpu(c),
                      absl::StrCat(c.rank()), Verdict(c), Step(c),
                      c.op().empty() ? "-" : c.op(), Size(c), StuckFor(c)});
    }
    out << "\n";
    PrintTable(rows, {false, true, true, false, true, false, true, true}, out);
  }
  if (r.wrong_data_size() > 0) {
    out << "\nwrong data (the data check):\n";
    for (const v1::DiagnoseWrongData& w : r.wrong_data()) {
      out << "  rank " << w.rank() << ": " << w.wrong() << " wrong elements in "
          << w.steps() << " step" << (w.steps() == 1 ? "" : "s")
          << ", first in " << w.first_step() << "\n";
    }
  }
  if (r.verdicts_size() > 0) out << "\nwhy:\n";
  for (const std::string& v : r.verdicts()) out << "  " << v << "\n";
  if (r.evidence_size() > 0) out << "\nevidence:\n";
  for (const std::string& e : r.evidence()) out << "  " << e << "\n";
}

std::string DiagnosisJson(const v1::DiagnoseResponse& r) {
  const bool running = Running(r);
  std::string doc = "{\n";
  absl::StrAppend(&doc, "  \"sweep_id\": ", JsonString(r.sweep_id()), ",\n");
  absl::StrAppend(&doc, "  \"state\": ", JsonString(r.state()), ",\n");
  absl::StrAppend(&doc, "  \"summary\": ", JsonString(r.summary()), ",\n");
  absl::StrAppend(&doc, "  \"step\": ", r.step(), ",\n");
  absl::StrAppend(&doc, "  \"steps_total\": ",
                  r.steps_total() > 0 ? absl::StrCat(r.steps_total()) : "null",
                  ",\n");
  absl::StrAppend(&doc, "  \"steps_done\": ", r.steps_done(), ",\n");
  absl::StrAppend(&doc, "  \"step_name\": ", NullIfEmpty(r.step_name()), ",\n");
  absl::StrAppend(&doc, "  \"started_unix_s\": ",
                  UnixOrNull(r.started_unix_seconds()), ",\n");
  absl::StrAppend(
      &doc, "  \"ended_unix_s\": ", UnixOrNull(r.ended_unix_seconds()), ",\n");
  absl::StrAppend(&doc, "  \"waited_s\": ",
                  running ? Number(r.waited_seconds()) : "null", ",\n");
  absl::StrAppend(&doc, "  \"stall_after_s\": ",
                  running && r.stall_after_seconds() > 0
                      ? Number(r.stall_after_seconds())
                      : "null",
                  ",\n");
  absl::StrAppend(&doc, "  \"progress\": ",
                  running ? NullIfEmpty(r.progress()) : "null", ",\n");
  std::vector<std::string> culprits;
  for (const v1::DiagnoseCulprit& c : r.culprits()) {
    culprits.push_back(absl::StrCat("    ", CulpritJson(c)));
  }
  absl::StrAppend(
      &doc, "  \"culprits\": ",
      culprits.empty()
          ? "[]"
          : absl::StrCat("[\n", absl::StrJoin(culprits, ",\n"), "\n  ]"),
      ",\n");
  std::vector<std::string> wrong;
  for (const v1::DiagnoseWrongData& w : r.wrong_data()) {
    wrong.push_back(
        absl::StrCat("    {\"rank\": ", w.rank(), ", \"wrong\": ", w.wrong(),
                     ", \"steps\": ", w.steps(),
                     ", \"first_step\": ", JsonString(w.first_step()), "}"));
  }
  absl::StrAppend(
      &doc, "  \"wrong_data\": ",
      wrong.empty() ? "[]"
                    : absl::StrCat("[\n", absl::StrJoin(wrong, ",\n"), "\n  ]"),
      ",\n");
  std::vector<std::string> evidence;
  for (const std::string& e : r.evidence()) {
    evidence.push_back(absl::StrCat("    ", JsonString(e)));
  }
  absl::StrAppend(
      &doc, "  \"evidence\": ",
      evidence.empty()
          ? "[]"
          : absl::StrCat("[\n", absl::StrJoin(evidence, ",\n"), "\n  ]"),
      "\n}\n");
  return doc;
}

std::string DiagnosisCsv(const v1::DiagnoseResponse& r) {
  std::string out =
      "sweep_id,state,rank,node,gpu,kind,low_confidence,step,op,bytes,"
      "stuck_for_seconds,explanation\n";
  for (const v1::DiagnoseCulprit& c : r.culprits()) {
    const bool known_op = !c.op().empty();
    absl::StrAppend(
        &out, CsvField(r.sweep_id()), ",", CsvField(r.state()), ",", c.rank(),
        ",", CsvField(c.node()), ",", c.gpu() >= 0 ? absl::StrCat(c.gpu()) : "",
        ",", CsvField(c.kind()), ",", c.low_confidence() ? "true" : "false",
        ",", c.seq() > 0 ? absl::StrCat(c.seq()) : "", ",", CsvField(c.op()),
        ",", known_op ? absl::StrCat(c.bytes()) : "", ",",
        KnownStuckFor(c) ? Number(c.stuck_for_seconds()) : "", ",",
        CsvField(c.explanation()), "\n");
  }
  return out;
}

}  // namespace fabricpulse::client
