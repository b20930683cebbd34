#include "daemon/core/data_pattern.h"

#include <algorithm>
#include <cmath>

namespace fabricpulse::core {
namespace {

// Values of reductions: chosen so that the result is exact in every dtype.
double ReductionInput(RedOp redop, int rank, int nranks, uint64_t index) {
  switch (redop) {
    case RedOp::kSum:
    case RedOp::kAvg:
      return static_cast<double>((rank + index) % 4 + 1);
    case RedOp::kProd:
      // Exactly one rank contributes 2 to each element: the product is 2.
      return (rank + index) % nranks == 0 ? 2.0 : 1.0;
    case RedOp::kMin:
    case RedOp::kMax:
      return static_cast<double>((rank * 3 + index) % 5 + 1);
  }
  return 1.0;
}

// Values of data movement: identify the source rank and position, within
// 1..8 so that fp8 e5m2 holds them exactly.
double MovementInput(int rank, uint64_t index) {
  return static_cast<double>((rank * 5 + index * 3) % 8 + 1);
}

double Reduced(const Step& step, int nranks, uint64_t index) {
  double acc = ReductionInput(step.redop, 0, nranks, index);
  for (int r = 1; r < nranks; ++r) {
    double v = ReductionInput(step.redop, r, nranks, index);
    switch (step.redop) {
      case RedOp::kSum:
      case RedOp::kAvg:
        acc += v;
        break;
      case RedOp::kProd:
        acc *= v;
        break;
      case RedOp::kMin:
        acc = std::min(acc, v);
        break;
      case RedOp::kMax:
        acc = std::max(acc, v);
        break;
    }
  }
  if (step.redop == RedOp::kAvg) {
    acc /= nranks;
    if (!IsFloatingPoint(step.dtype)) acc = std::trunc(acc);
  }
  return acc;
}

}  // namespace

double InputValue(const Step& step, int rank, int nranks, uint64_t index) {
  if (IsReduction(step.op)) {
    return ReductionInput(step.redop, rank, nranks, index);
  }
  return MovementInput(rank, index);
}

bool HasCheckedOutput(const Step& step, int rank) {
  if (step.op == Op::kReduce || step.op == Op::kGather) {
    return rank == step.root;
  }
  return true;
}

double ExpectedValue(const Step& step, int rank, int nranks, uint64_t index) {
  const uint64_t chunk = step.count / nranks;
  switch (step.op) {
    case Op::kAllReduce:
    case Op::kReduce:
      return Reduced(step, nranks, index);
    case Op::kReduceScatter:
      return Reduced(step, nranks, rank * chunk + index);
    case Op::kAllGather:
    case Op::kGather:
      return MovementInput(static_cast<int>(index / chunk), index % chunk);
    case Op::kBroadcast:
      return MovementInput(step.root, index);
    case Op::kScatter:
      return MovementInput(step.root, rank * chunk + index);
    case Op::kAllToAll: {
      // Chunk j of my receive buffer is chunk `rank` of rank j's send buffer.
      const int source = static_cast<int>(index / chunk);
      return MovementInput(source, rank * chunk + index % chunk);
    }
    case Op::kSendRecv:
      return MovementInput((rank - 1 + nranks) % nranks, index);
  }
  return 0;
}

double Tolerance(DType dtype, double expected) {
  const double magnitude = std::max(1.0, std::fabs(expected));
  switch (dtype) {
    case DType::kHalf:
      return magnitude * 1e-3;
    case DType::kBfloat16:
      return magnitude * 1e-2;
    case DType::kFp8E4M3:
      return magnitude * 0.0625;
    case DType::kFp8E5M2:
      return magnitude * 0.125;
    case DType::kFloat:
      return magnitude * 1e-6;
    case DType::kDouble:
      return magnitude * 1e-12;
    default:
      return 0;
  }
}

}  // namespace fabricpulse::core
