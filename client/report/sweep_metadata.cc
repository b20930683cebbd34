#include "client/report/sweep_metadata.h"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/report/html_escape.h"
#include "daemon/core/byte_size.h"
#include "google/protobuf/util/json_util.h"

namespace fabricpulse::client::report {
namespace {

std::string OrDash(const std::string& text) {
  return text.empty() ? "-" : text;
}

// ops, sizes and iterations on one line, as a person reads a spec.
std::string SpecLine(const v1::SweepSpec& spec) {
  std::string sizes =
      absl::StrCat(core::HumanByteSize(spec.min_bytes()), " .. ",
                   core::HumanByteSize(spec.max_bytes()));
  if (spec.step_bytes() > 0) {
    absl::StrAppend(&sizes, " step ", core::HumanByteSize(spec.step_bytes()));
  } else {
    absl::StrAppendFormat(&sizes, " factor %g", spec.factor());
  }
  std::string iters =
      spec.has_adaptive()
          ? std::string("iters auto")
          : (spec.has_iters() ? absl::StrCat(spec.iters(), " iters")
                              : std::string("default iters"));
  if (spec.has_warmup_iters()) {
    absl::StrAppend(&iters, ", ", spec.warmup_iters(), " warm-up");
  }
  return absl::StrCat(absl::StrJoin(spec.ops(), ","), "; ", sizes, "; ",
                      OrDash(spec.dtype()), " ", OrDash(spec.redop()), "; ",
                      OrDash(spec.placement()), "; ", iters,
                      spec.check() ? "; data check" : "; no data check",
                      spec.graph() ? "; CUDA graph" : "");
}

// "gloo 2.19"; the version alone when it names the backend itself
// ("gloo 0.5.0").
std::string BackendText(const v1::SweepSummary& s) {
  if (!s.backend().empty() &&
      absl::StartsWith(s.backend_version(), s.backend())) {
    return s.backend_version();
  }
  return absl::StrCat(OrDash(s.backend()), " ", OrDash(s.backend_version()));
}

}  // namespace

std::string FormatUnixTime(double unix_seconds) {
  if (unix_seconds <= 0) return "-";
  return absl::FormatTime(
      "%Y-%m-%d %H:%M:%S UTC",
      absl::FromUnixSeconds(static_cast<int64_t>(std::floor(unix_seconds))),
      absl::UTCTimeZone());
}

std::string RenderSweepMetadata(const v1::SweepSummary& s) {
  std::string duration = "-";
  if (s.finished_unix_seconds() > 0) {
    duration = absl::StrFormat(
        "%.1f s", s.finished_unix_seconds() - s.started_unix_seconds());
  }
  std::string comm =
      absl::StrFormat("%s, init %.3f s", s.comm_reused() ? "reused" : "new",
                      s.comm_init_seconds());
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"sweep", s.sweep_id()},
      {"plan", OrDash(s.plan())},
      {"trigger", OrDash(s.trigger())},
      {"status", OrDash(s.status())},
      {"error", OrDash(s.error())},
      {"started", FormatUnixTime(s.started_unix_seconds())},
      {"finished", FormatUnixTime(s.finished_unix_seconds())},
      {"duration", duration},
      {"spec", SpecLine(s.spec())},
      {"nodes", OrDash(absl::StrJoin(s.nodes(), ", "))},
      {"ranks", absl::StrCat(s.nranks())},
      {"backend", BackendText(s)},
      {"communicator", comm},
      {"topology", OrDash(s.topology())},
      {"straggler", OrDash(s.straggler())},
      {"steps", absl::StrCat(s.steps(), " (", s.regressions(), " regressed)")},
  };
  std::string out = "<table class=\"metadata\">";
  for (const auto& [name, value] : rows) {
    absl::StrAppend(&out, "<tr><th>", EscapeHtml(name), "</th><td class=\"",
                    CssToken(name), "\">", EscapeHtml(value), "</td></tr>");
  }
  out += "</table>";
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  if (google::protobuf::util::MessageToJsonString(s.spec(), &json, options)
          .ok()) {
    absl::StrAppend(&out,
                    "<details class=\"spec\"><summary>full spec</summary><pre>",
                    EscapeHtml(json), "</pre></details>");
  }
  return out;
}

std::string RenderRankMap(const v1::SweepSummary& s) {
  std::string out = absl::StrCat(
      "<div class=\"rank-map\"><h3>Ranks</h3><p>", s.nranks(), " ranks on ",
      s.nodes_size(), s.nodes_size() == 1 ? " node" : " nodes", ": ",
      EscapeHtml(OrDash(absl::StrJoin(s.nodes(), ", "))), ".</p>");
  if (s.ranks().empty()) {
    // History stored before the rank map was recorded (schema version 8).
    absl::StrAppend(&out,
                    "<p>This sweep's history does not record which rank ran "
                    "on which node and GPU.</p></div>");
    return out;
  }
  absl::StrAppend(&out,
                  "<table class=\"ranks\"><tr><th>rank</th><th>node</th>"
                  "<th>local</th><th>GPU</th><th>model</th><th>bus id</th>"
                  "</tr>");
  for (const v1::RankPlacement& r : s.ranks()) {
    absl::StrAppend(&out, "<tr><td>", r.rank(), "</td><td>",
                    EscapeHtml(r.node()), "</td><td>", r.local_index(),
                    "</td><td>", r.gpu() < 0 ? "cpu" : absl::StrCat(r.gpu()),
                    "</td><td>", EscapeHtml(OrDash(r.gpu_model())), "</td><td>",
                    EscapeHtml(OrDash(r.pci_bus_id())), "</td></tr>");
  }
  absl::StrAppend(&out, "</table></div>");
  return out;
}

}  // namespace fabricpulse::client::report
