// The data check's values: what each rank puts in its send buffer and what
// each rank must find in its receive buffer afterwards (nccl-tests' -c idea).
// Values are small integers so that every dtype, fp8 included, holds them
// exactly and sums stay exact; expected outputs are computed from the same
// functions, never read back from the fabric.
#pragma once

#include <cstdint>

#include "daemon/core/op_traits.h"
#include "daemon/core/redop.h"
#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// Value at element `index` of `rank`'s send buffer for `step`. Never 0.
double InputValue(const Step& step, int rank, int nranks, uint64_t index);

// True when `rank`'s receive buffer holds checked data after `step` (false
// for non-root ranks of reduce and gather, and for a rank that sits a
// pairwise round out).
bool HasCheckedOutput(const Step& step, int rank, int nranks);

// What the shared formulas take as "root": the step's root, or for the
// pairwise op its round.
int PatternRoot(const Step& step);

// Value expected at element `index` of `rank`'s receive buffer after `step`
// (index < LayoutFor(...).recv_count). For avg the exact mean; an integer
// dtype then truncates toward zero, as NCCL does.
double ExpectedValue(const Step& step, int rank, int nranks, uint64_t index);

// Largest |actual - expected| accepted for `dtype` given the expected value
// (0 for integers; a few units in the last place for floating types).
double Tolerance(DType dtype, double expected);

}  // namespace fabricpulse::core
