// The MoE probe's data check on host memory (moe_routing.h): rows written
// from their ids, and the receive side counted against what a correct
// exchange delivers. Shared by the Gloo backend (host buffers) and the NCCL
// backend (which copies its buffers to the host for the check).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/core/dtype.h"
#include "daemon/core/moe_routing.h"

namespace fabricpulse::core {

// Writes MoeValue(id.src, id.token, h) at element h of row i of `buf`, for
// every id i, rows of `hidden` elements of `dtype` (bfloat16 or fp8_e4m3).
// Errors: INVALID_ARGUMENT another dtype.
absl::Status FillMoeRows(DType dtype, const std::vector<MoeRowId>& ids,
                         uint64_t hidden, void* buf);

// Wrong elements after the exchange of `op` on rank `rank`, `recv` holding
// x.recv_total rows. Dispatch: every received row against its id's values.
// Combine: each token's returned rows added up (the combine's reduction),
// against its destinations' count times its values, so that a lost,
// doubled or misplaced row shows. NaN (poison) counts as wrong. Errors:
// INVALID_ARGUMENT another op or dtype.
absl::StatusOr<int64_t> CountMoeWrong(Op op, DType dtype, int rank,
                                      const MoeExchange& x, const void* recv);

// One element of `dtype` (bfloat16 or fp8_e4m3) as a double, and back; for
// the check and its tests. Exact for the probe's values.
double DecodeMoeElement(DType dtype, const void* element);
void EncodeMoeElement(DType dtype, double value, void* element);

}  // namespace fabricpulse::core
