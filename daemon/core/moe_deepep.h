// DeepEP's byte accounting of a moe step, beside the probe's own
// (MoeRowsPerRank): the bytes exactly as DeepEP's tests count them, per
// rank, averaged over the ranks; each over the step's time is the
// bandwidth DeepEP prints.
//
// Low-latency accounting (per_selection shapes; DeepEP's
// tests/legacy/test_low_latency.py): every kept (token, expert) selection
// of the rank counts, its own and its node's included, at
//   dispatch: fp8  hidden + hidden / 128 * 4 + 16 (scales and header)
//             bf16 hidden * 2
//   combine:  hidden * the combine dtype's size (bf16: hidden * 2).
// DeepEP reports it as the "RDMA bandwidth" of its low-latency table.
//
// Normal accounting (every other shape; test_intranode.py,
// test_internode.py):
//   NVLink: the tokens the rank receives (one per source token that has an
//           expert on it, from itself included) x hidden x 2, x (1 + 4 /
//           128) / 2 for an fp8 dispatch (scales counted);
//   RDMA:   per token the rank sends, its distinct destination nodes (its
//           own included: DeepEP sends a token once per node and forwards
//           it over NVLink) x hidden x 2 (x the fp8 factor); only on more
//           than one node (DeepEP's intranode test prints NVLink only).
// The combine moves the same tokens back in its dtype (bf16: x 2).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/core/moe_shape.h"
#include "daemon/core/op_traits.h"

namespace fabricpulse::core {

struct DeepEpBytes {
  bool low_latency = false;
  // Low latency: the selections' bytes.
  std::optional<double> bytes;
  // Normal: NVLink bytes; RDMA bytes on more than one node.
  std::optional<double> nvl_bytes;
  std::optional<double> rdma_bytes;
};

// DeepEP's accounting of `op` at `shape` on `nranks` ranks; rank_nodes[r]
// names rank r's node (empty or incomplete: every rank on one node).
// Requires a valid shape.
DeepEpBytes DeepEpBytesOf(const MoeShape& shape, Op op, int nranks,
                          const std::vector<std::string>& rank_nodes);

}  // namespace fabricpulse::core
