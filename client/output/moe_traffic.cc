#include "client/output/moe_traffic.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/output/table_devices.h"
#include "client/output/units.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/dtype.h"
#include "daemon/core/moe_routing.h"

namespace fabricpulse::client {
namespace {

std::string Bandwidth(double bytes, double seconds,
                      const OutputOptions& options) {
  if (bytes == 0) return "";
  if (!(seconds > 0)) return " (n/a)";
  const double bps = bytes / seconds;
  if (options.raw) return absl::StrFormat(" (%.0f B/s)", bps);
  return absl::StrFormat(" (%.2f %s)", ToBwUnit(options.unit, bps),
                         BwUnitLabel(options.unit));
}

std::string Bytes(double bytes) {
  return core::HumanByteSize(static_cast<uint64_t>(bytes + 0.5));
}

}  // namespace

std::optional<MoeTraffic> MoeTrafficOf(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks) {
  const int nranks = ranks.size();
  if (nranks == 0) return std::nullopt;
  std::vector<std::string> nodes(nranks);
  for (const v1::RankPlacement& r : ranks) {
    if (r.rank() < 0 || r.rank() >= nranks || r.node().empty()) {
      return std::nullopt;
    }
    nodes[r.rank()] = r.node();
  }
  const core::MoeShape shape = common::SpecFromProto(spec).moe;
  absl::StatusOr<core::DType> dtype = core::MoeDType(shape);
  if (!core::ValidateMoeShape(shape, nranks).ok() || !dtype.ok()) {
    return std::nullopt;
  }
  const core::MoeRowsByPath rows = core::MoeRowsPerRank(shape, nranks, nodes);
  const double row_bytes =
      static_cast<double>(shape.hidden) * core::DTypeSize(*dtype);
  return MoeTraffic{rows.self * row_bytes, rows.intra_node * row_bytes,
                    rows.network * row_bytes};
}

std::vector<std::string> MoeTableLines(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks,
    const std::vector<v1::StepResult>& results, const OutputOptions& options) {
  std::vector<std::string> lines;
  if (results.empty()) return lines;
  const core::MoeShape shape = common::SpecFromProto(spec).moe;
  const std::optional<MoeTraffic> traffic = MoeTrafficOf(spec, ranks);
  lines.push_back(
      absl::StrCat("# MoE                  : ",
                   core::DescribeMoeShape(shape, std::max(ranks.size(), 1))));
  for (const v1::StepResult& r : results) {
    const std::optional<ReportedFigures> shown =
        Reported(r, options.time_across_ranks);
    const double seconds = shown ? shown->time_seconds : 0;
    std::string line = absl::StrFormat(
        "#   %-12s %s", r.step().op(),
        shown ? absl::StrFormat("%.1f us", seconds * 1e6) : "n/a");
    if (!traffic) {
      absl::StrAppend(&line, ", bytes by path not known (no rank map)");
    } else {
      // Dispatch receives what combine sends back: the same bytes.
      absl::StrAppend(&line, ", per rank ", Bytes(traffic->self_bytes),
                      " to itself, ", Bytes(traffic->intra_node_bytes),
                      " within its node",
                      Bandwidth(traffic->intra_node_bytes, seconds, options),
                      ", ", Bytes(traffic->network_bytes), " over the network",
                      Bandwidth(traffic->network_bytes, seconds, options));
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace fabricpulse::client
