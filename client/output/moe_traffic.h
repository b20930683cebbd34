// What the moe steps moved, two ways. The probe's own: per rank, the bytes
// it received from itself, from other ranks of its node (NVLink or
// PCIe/shared memory) and over the network, each over the step's time.
// DeepEP's: the bytes exactly as DeepEP's tests count them
// (core/moe_deepep.h: low-latency selections, or normal NVLink and RDMA
// with the per-node RDMA deduplication). The bytes come from the routing
// every rank computes (core/moe_routing.h) and the sweep's rank map; the
// time is the step's measured one. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/output/output_options.h"
#include "daemon/core/moe_deepep.h"
#include "daemon/core/op_traits.h"
#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// Per rank, averaged over the ranks, in bytes.
struct MoeTraffic {
  double self_bytes = 0;
  double intra_node_bytes = 0;
  double network_bytes = 0;
  // DeepEP's accounting of the same step.
  core::DeepEpBytes deepep;
};

// The traffic of one exchange of `op` at `spec`'s moe shape over `ranks`
// (the sweep's rank map, one entry per rank); absent when the map is not
// complete or the shape is not valid for its rank count.
std::optional<MoeTraffic> MoeTrafficOf(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks,
    core::Op op);

// How a combine step was timed: "fabric_only" (moe_combine: the exchange),
// "with_weighted_reduction" (moe_combine_weighted: as DeepEP times its
// combine); empty for dispatch.
std::string MoeCombineTiming(core::Op op);

// The table's lines for the moe results (none when there are none): the
// shape, then per result its time and the traffic with bandwidths over
// that time, in options.unit, and a line of DeepEP's figures; "not known"
// without a rank map. Each line starts with "# ".
std::vector<std::string> MoeTableLines(
    const v1::SweepSpec& spec,
    const google::protobuf::RepeatedPtrField<v1::RankPlacement>& ranks,
    const std::vector<v1::StepResult>& results, const OutputOptions& options);

}  // namespace fabricpulse::client
