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
// Combine (either): each token's returned rows added up (the combine's
// reduction), against its destinations' count times its values, so that a lost,
// doubled or misplaced row shows. NaN (poison) counts as wrong. Errors:
// INVALID_ARGUMENT another op or dtype.
absl::StatusOr<int64_t> CountMoeWrong(Op op, DType dtype, int rank,
                                      const MoeExchange& x, const void* recv);

// The combine's returned rows grouped by token, for the weighted sum:
// token t's rows are rows[begin[t] .. begin[t + 1]) of the receive buffer,
// each with its weight (MoeRowId::weight). `tokens` entries (a token may
// have none: all its selections masked).
struct MoeTokenRows {
  std::vector<uint32_t> begin;
  std::vector<uint32_t> rows;
  std::vector<float> weights;
};
MoeTokenRows GroupMoeRowsByToken(const MoeExchange& x, int tokens);

// The weighted combine's reduction on the host (Gloo, and the reference
// of the GPU kernel): out[t * hidden + h] = sum over token t's rows of
// weight x element h, in float32 (0 for a token without rows). `recv`
// holds x.recv_total rows of x.row_elements elements of `dtype`.
void ReduceMoeRows(DType dtype, const MoeTokenRows& rows, uint64_t row_elements,
                   const void* recv, float* out);

// Wrong elements of a weighted combine's output on rank `rank`: each
// token's sum of weight x MoeValue over its rows (exact: weights are
// eighths, values 1..8). NaN counts as wrong.
int64_t CountMoeWeightedWrong(int rank, const MoeTokenRows& rows,
                              uint64_t hidden, const float* out);

// One element of `dtype` (bfloat16 or fp8_e4m3) as a double, and back; for
// the check and its tests. Exact for the probe's values.
double DecodeMoeElement(DType dtype, const void* element);
void EncodeMoeElement(DType dtype, double value, void* element);

}  // namespace fabricpulse::core
