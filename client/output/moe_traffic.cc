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

// DeepEP's figures of one step, as its tests print them.
std::string DeepEpLine(const core::DeepEpBytes& d, double seconds,
                       const OutputOptions& options) {
  std::string line = "#     DeepEP's accounting: ";
  if (d.low_latency) {
    absl::StrAppend(&line, "low latency, per rank ", Bytes(d.bytes.value_or(0)),
                    " of selections",
                    Bandwidth(d.bytes.value_or(0), seconds, options));
    return line;
  }
  absl::StrAppend(&line, "normal, per rank ", Bytes(d.nvl_bytes.value_or(0)),
                  " NVLink",
                  Bandwidth(d.nvl_bytes.value_or(0), seconds, options));
  if (d.rdma_bytes) {
    absl::StrAppend(&line, ", ", Bytes(*d.rdma_bytes), " RDMA",
                    Bandwidth(*d.rdma_bytes, seconds, options));
  } else {
    absl::StrAppend(&line, ", no RDMA (one node)");
  }
  return line;
}

}  // namespace

std::optional<MoeTraffic> MoeTrafficOf(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks,
    core::Op op) {
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
      static_cast<double>(core::MoeRowElements(shape, op)) *
      core::DTypeSize(core::MoeStepDType(shape, op));
  return MoeTraffic{rows.self * row_bytes, rows.intra_node * row_bytes,
                    rows.network * row_bytes,
                    core::DeepEpBytesOf(shape, op, nranks, nodes)};
}

std::string MoeCombineTiming(core::Op op) {
  if (op == core::Op::kMoeCombine) return "fabric_only";
  if (op == core::Op::kMoeCombineWeighted) return "with_weighted_reduction";
  return "";
}

std::vector<std::string> MoeTableLines(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks,
    const std::vector<v1::StepResult>& results, const OutputOptions& options) {
  std::vector<std::string> lines;
  if (results.empty()) return lines;
  const core::MoeShape shape = common::SpecFromProto(spec).moe;
  lines.push_back(
      absl::StrCat("# MoE                  : ",
                   core::DescribeMoeShape(shape, std::max(ranks.size(), 1))));
  for (const v1::StepResult& r : results) {
    const std::optional<ReportedFigures> shown =
        Reported(r, options.time_across_ranks);
    const double seconds = shown ? shown->time_seconds : 0;
    const core::Op op =
        core::ParseOp(r.step().op()).value_or(core::Op::kMoeDispatch);
    const std::optional<MoeTraffic> traffic = MoeTrafficOf(spec, ranks, op);
    const char* timing = op == core::Op::kMoeCombine ? " (fabric only)"
                         : op == core::Op::kMoeCombineWeighted
                             ? " (with the weighted reduction)"
                             : "";
    std::string line = absl::StrFormat(
        "#   %-12s %s%s", r.step().op(),
        shown ? absl::StrFormat("%.1f us", seconds * 1e6) : "n/a", timing);
    if (!traffic) {
      absl::StrAppend(&line, ", bytes by path not known (no rank map)");
    } else {
      absl::StrAppend(&line, ", per rank ", Bytes(traffic->self_bytes),
                      " to itself, ", Bytes(traffic->intra_node_bytes),
                      " within its node",
                      Bandwidth(traffic->intra_node_bytes, seconds, options),
                      ", ", Bytes(traffic->network_bytes), " over the network",
                      Bandwidth(traffic->network_bytes, seconds, options));
    }
    lines.push_back(line);
    if (traffic) lines.push_back(DeepEpLine(traffic->deepep, seconds, options));
  }
  return lines;
}

}  // namespace fabricpulse::client
