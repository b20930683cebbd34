#include "daemon/core/data_pattern.h"

#include "daemon/core/pattern_formulas.h"

namespace fabricpulse::core {
namespace {

namespace f = formulas;

// The shared formulas take the enumerators' integer values.
static_assert(static_cast<int>(Op::kAllReduce) == f::kAllReduce);
static_assert(static_cast<int>(Op::kAllGather) == f::kAllGather);
static_assert(static_cast<int>(Op::kReduceScatter) == f::kReduceScatter);
static_assert(static_cast<int>(Op::kBroadcast) == f::kBroadcast);
static_assert(static_cast<int>(Op::kReduce) == f::kReduce);
static_assert(static_cast<int>(Op::kAllToAll) == f::kAllToAll);
static_assert(static_cast<int>(Op::kSendRecv) == f::kSendRecv);
static_assert(static_cast<int>(Op::kGather) == f::kGather);
static_assert(static_cast<int>(Op::kScatter) == f::kScatter);
static_assert(static_cast<int>(Op::kPairwise) == f::kPairwise);
static_assert(static_cast<int>(Op::kMoeDispatch) == f::kMoeDispatch);
static_assert(static_cast<int>(Op::kMoeCombine) == f::kMoeCombine);
static_assert(static_cast<int>(Op::kMoeCombineWeighted) ==
              f::kMoeCombineWeighted);
static_assert(static_cast<int>(RedOp::kSum) == f::kSum);
static_assert(static_cast<int>(RedOp::kProd) == f::kProd);
static_assert(static_cast<int>(RedOp::kMin) == f::kMin);
static_assert(static_cast<int>(RedOp::kMax) == f::kMax);
static_assert(static_cast<int>(RedOp::kAvg) == f::kAvg);
static_assert(static_cast<int>(DType::kInt8) == f::kInt8);
static_assert(static_cast<int>(DType::kUint8) == f::kUint8);
static_assert(static_cast<int>(DType::kInt32) == f::kInt32);
static_assert(static_cast<int>(DType::kUint32) == f::kUint32);
static_assert(static_cast<int>(DType::kInt64) == f::kInt64);
static_assert(static_cast<int>(DType::kUint64) == f::kUint64);
static_assert(static_cast<int>(DType::kHalf) == f::kHalf);
static_assert(static_cast<int>(DType::kFloat) == f::kFloat);
static_assert(static_cast<int>(DType::kDouble) == f::kDouble);
static_assert(static_cast<int>(DType::kBfloat16) == f::kBfloat16);
static_assert(static_cast<int>(DType::kFp8E4M3) == f::kFp8E4M3);
static_assert(static_cast<int>(DType::kFp8E5M2) == f::kFp8E5M2);

}  // namespace

double InputValue(const Step& step, int rank, int nranks, uint64_t index) {
  return f::InputValue(static_cast<int>(step.op), static_cast<int>(step.redop),
                       rank, nranks, index);
}

int PatternRoot(const Step& step) {
  return step.op == Op::kPairwise ? step.round : step.root;
}

bool HasCheckedOutput(const Step& step, int rank, int nranks) {
  return f::HasCheckedOutputCode(static_cast<int>(step.op), PatternRoot(step),
                                 rank, nranks);
}

double ExpectedValue(const Step& step, int rank, int nranks, uint64_t index) {
  return f::ExpectedValue(static_cast<int>(step.op),
                          static_cast<int>(step.redop),
                          static_cast<int>(step.dtype), PatternRoot(step), rank,
                          nranks, step.count, index);
}

double Tolerance(DType dtype, double expected) {
  return f::ToleranceCode(static_cast<int>(dtype), expected);
}

}  // namespace fabricpulse::core
