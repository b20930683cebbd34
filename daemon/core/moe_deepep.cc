#include "daemon/core/moe_deepep.h"

#include <algorithm>

#include "daemon/core/moe_routing.h"

namespace fabricpulse::core {
namespace {

// DeepEP's fp8 factor on bf16 bytes: fp8 values plus float32 scales per
// 128 elements, (1 + 4 / 128) / 2.
constexpr double kFp8Factor = (1 + 4.0 / 128) / 2;

// Bytes per token (normal) in `op`'s dtype, as DeepEP scales bf16 bytes.
double NormalTokenBytes(const MoeShape& shape, Op op) {
  const double bf16 = static_cast<double>(shape.hidden) * 2;
  const DType dtype = MoeStepDType(shape, op);
  if (dtype != DType::kFp8E4M3) return bf16;
  return op == Op::kMoeDispatch ? bf16 * kFp8Factor : bf16 / 2;
}

// Bytes per selection (low latency).
double LowLatencySelectionBytes(const MoeShape& shape, Op op) {
  const double hidden = shape.hidden;
  const DType dtype = MoeStepDType(shape, op);
  if (op == Op::kMoeDispatch && dtype == DType::kFp8E4M3) {
    return hidden + hidden / 128 * 4 + 16;
  }
  return hidden * DTypeSize(dtype);
}

}  // namespace

DeepEpBytes DeepEpBytesOf(const MoeShape& shape, Op op, int nranks,
                          const std::vector<std::string>& rank_nodes) {
  DeepEpBytes out;
  out.low_latency = shape.per_selection;
  const bool mapped = static_cast<int>(rank_nodes.size()) == nranks;
  std::vector<int> node(nranks, 0);
  int nodes = 1;
  if (mapped) {
    std::vector<std::string> names;
    for (int r = 0; r < nranks; ++r) {
      auto it = std::find(names.begin(), names.end(), rank_nodes[r]);
      node[r] = static_cast<int>(it - names.begin());
      if (it == names.end()) names.push_back(rank_nodes[r]);
    }
    nodes = static_cast<int>(names.size());
  }
  double selections = 0, received = 0, node_sends = 0;
  std::vector<char> seen(nodes);
  for (int s = 0; s < nranks; ++s) {
    const SourceRouting routing = RouteSource(shape, nranks, s);
    selections += routing.experts.size();
    // Normal shapes hold one entry per destination rank: what it receives.
    received += routing.dests.size();
    for (int t = 0; t < shape.tokens; ++t) {
      std::fill(seen.begin(), seen.end(), 0);
      for (uint32_t i = routing.begin[t]; i < routing.begin[t + 1]; ++i) {
        char& hit = seen[node[routing.dests[i]]];
        node_sends += hit ? 0 : 1;
        hit = 1;
      }
    }
  }
  if (out.low_latency) {
    out.bytes = selections / nranks * LowLatencySelectionBytes(shape, op);
    return out;
  }
  const double token_bytes = NormalTokenBytes(shape, op);
  out.nvl_bytes = received / nranks * token_bytes;
  if (nodes > 1) out.rdma_bytes = node_sends / nranks * token_bytes;
  return out;
}

}  // namespace fabricpulse::core
