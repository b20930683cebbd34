#include "client/commands/nodes_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/commands/list_command.h"
#include "client/output/csv_printer.h"
#include "client/output/text_table.h"
#include "daemon/core/peer_reference.h"

namespace fabricpulse::client {
namespace {

std::string Utc(double seconds) {
  if (seconds <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S",
                          absl::FromUnixSeconds(static_cast<int64_t>(seconds)),
                          absl::UTCTimeZone());
}

std::string Gbs(double bytes_per_second) {
  return absl::StrFormat("%.2f GB/s", bytes_per_second / 1e9);
}

std::string EvidenceText(const v1::NodeVerdictInfo& n) {
  if (n.evidence().empty()) return "-";
  const v1::NodeEvidenceInfo& e = n.evidence(n.evidence_size() - 1);
  std::string text = e.detail();
  if (e.has_busbw_bytes_per_second()) {
    absl::StrAppend(&text, ": ", Gbs(e.busbw_bytes_per_second()));
    if (e.reference_busbw_bytes_per_second() > 0) {
      absl::StrAppend(&text, " (reference ",
                      Gbs(e.reference_busbw_bytes_per_second()));
      if (e.finding() != "good") {
        absl::StrAppend(&text, ", threshold ",
                        Gbs(e.threshold_busbw_bytes_per_second()));
      }
      absl::StrAppend(&text, ")");
    }
  }
  absl::StrAppend(&text, "; group ", absl::StrJoin(e.group(), "+"), "; sweep ",
                  e.sweep_id().empty() ? "-" : e.sweep_id());
  return text;
}

// Full precision, no exponent for the values CSV carries (times, bytes/s).
std::string Num(double v) { return absl::StrFormat("%.15g", v); }

std::string Table(const v1::ListNodesResponse& resp) {
  std::vector<std::vector<std::string>> rows = {
      {"PLAN", "NODE", "VERDICT", "SINCE", "LAST_TESTED", "EVIDENCE"}};
  for (const v1::NodeVerdictInfo& n : resp.nodes()) {
    rows.push_back({n.plan(), n.node(), n.verdict(),
                    Utc(n.since_unix_seconds()),
                    Utc(n.last_tested_unix_seconds()), EvidenceText(n)});
  }
  std::string out = resp.nodes().empty()
                        ? "no node has a verdict (no campaign plan, or none "
                          "has run)\n"
                        : AlignedTable(rows);
  for (const v1::CampaignInfo& c : resp.campaigns()) {
    absl::StrAppend(&out, "# ", CampaignLine(c), "\n");
  }
  return out;
}

std::string Csv(const v1::ListNodesResponse& resp) {
  std::string out =
      "plan,node,verdict,since_unix_s,last_tested_unix_s,finding,busbw,"
      "reference_busbw,threshold_busbw,group,sweep_id,detail\n";
  for (const v1::NodeVerdictInfo& n : resp.nodes()) {
    std::vector<std::string> fields = {
        CsvField(n.plan()), CsvField(n.node()), CsvField(n.verdict()),
        Num(n.since_unix_seconds()), Num(n.last_tested_unix_seconds())};
    if (n.evidence().empty()) {
      fields.insert(fields.end(), 7, "");
    } else {
      const v1::NodeEvidenceInfo& e = n.evidence(n.evidence_size() - 1);
      fields.push_back(CsvField(e.finding()));
      fields.push_back(e.has_busbw_bytes_per_second()
                           ? Num(e.busbw_bytes_per_second())
                           : "");
      fields.push_back(Num(e.reference_busbw_bytes_per_second()));
      fields.push_back(Num(e.threshold_busbw_bytes_per_second()));
      fields.push_back(CsvField(absl::StrJoin(e.group(), ";")));
      fields.push_back(CsvField(e.sweep_id()));
      fields.push_back(CsvField(e.detail()));
    }
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

std::string FormatNotingLeftOut(const v1::ListNodesResponse& nodes,
                                OutputFormat format) {
  NoteLeftOut("nodes", nodes.left_out(), "node(s)");
  return FormatNodes(nodes, format);
}

}  // namespace

std::string CampaignLine(const v1::CampaignInfo& c) {
  return absl::StrCat(
      "campaign ", c.campaign_id(), " of ", c.plan(), " (", c.grouping(), ") ",
      c.status(), ": ", c.measured(), " of ", c.fleet(),
      " node(s) measured; pass ", c.pass(), ", degraded ", c.degraded(),
      ", fail ", c.fail(), ", suspect ", c.suspect(), ", untested ",
      c.untested(), "; ", c.second_passes(), " second pass(es)",
      c.has_plan_noise()
          ? absl::StrFormat("; plan noise %.1f %% (against peers, drops "
                            "under %.0f %% are not judged)",
                            c.plan_noise() * 100,
                            c.plan_noise() * 100 * core::kPeerSpreadMultiple)
          : std::string());
}

std::string FormatNodes(const v1::ListNodesResponse& nodes,
                        OutputFormat format) {
  return FormatListing(nodes, format, &Csv, &Table);
}

int RunNodesCommand(const CoordinatorTarget& coordinator,
                    const std::string& plan, const std::string& output) {
  v1::ListNodesRequest request;
  request.set_plan(plan);
  return RunListCommand(coordinator, "nodes", output,
                        &v1::CoordinatorService::Stub::ListNodes,
                        &FormatNotingLeftOut, request);
}

}  // namespace fabricpulse::client
