#include "client/report/report_page.h"

#include "absl/strings/str_cat.h"
#include "client/report/html_escape.h"
#include "client/report/op_charts.h"
#include "client/report/pair_matrix_section.h"
#include "client/report/sweep_metadata.h"
#include "client/report/trend_section.h"

namespace fabricpulse::client::report {
namespace {

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.note, .generated { color: #555; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
table.metadata td { font-family: monospace; }
td.status { font-weight: bold; }
pre { font-size: 12px; background: #f8f8f8; padding: 8px; overflow-x: auto; }
.op-charts, .heatmaps { display: flex; flex-wrap: wrap; gap: 8px; }
svg { background: #fff; font-size: 11px; }
svg .chart-title { font-size: 13px; font-weight: bold; }
svg .grid { stroke: #e6e6e6; }
svg .frame { stroke: #999; }
svg .tick { fill: #444; }
svg .axis-label { fill: #222; font-size: 12px; }
svg .caption { fill: #a33; }
svg .point:hover, svg .cell:hover { stroke: #000; stroke-width: 2; }
)css";

}  // namespace

std::string RenderReportPage(const ReportContent& c) {
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>FabricPulse report: ",
      EscapeHtml(c.selection), "</title><style>", kStyle,
      "</style></head><body><h1>FabricPulse report</h1><p "
      "class=\"generated\">",
      EscapeHtml(c.selection), ". Generated ",
      EscapeHtml(FormatUnixTime(absl::ToUnixMicros(c.generated) / 1e6)), " by ",
      EscapeHtml(c.tool_version),
      ". Bandwidth in GB/s (1e9 bytes/s, nccl-tests' busbw); hover a point "
      "for its figures.</p>");
  for (const std::string& note : c.notes) {
    absl::StrAppend(&out, "<p class=\"note bound\">", EscapeHtml(note), "</p>");
  }
  if (!c.history.empty()) out += RenderTrends(c.history);
  for (size_t i = 0; i < c.sweeps.size(); ++i) {
    const v1::GetSweepResponse& sweep = c.sweeps[i];
    const std::string prefix = absl::StrCat("s", i);
    absl::StrAppend(&out, "<section class=\"sweep\" id=\"", prefix,
                    "\" data-sweep-id=\"", EscapeHtml(sweep.sweep().sweep_id()),
                    "\"><h2>Sweep ", EscapeHtml(sweep.sweep().sweep_id()),
                    "</h2>", RenderSweepMetadata(sweep.sweep()),
                    RenderRankMap(sweep.sweep()));
    const std::string charts = RenderOpCharts(sweep, prefix);
    if (charts.empty()) {
      out += "<p class=\"note\">No step results to draw.</p>";
    } else {
      absl::StrAppend(
          &out,
          "<h3>Per op</h3><p class=\"note\">Filled circles, solid line: "
          "out-of-place; open squares, dashed line: in-place; red rings: "
          "regressions (below the baseline times the coordinator's "
          "threshold); translucent band: the baseline, the median of the "
          "plan's recent good sweeps, where there is one.</p>",
          charts);
    }
    out += RenderPairMatrices(sweep, prefix);
    out += "</section>";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace fabricpulse::client::report
