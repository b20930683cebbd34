// The data check's formulas, shared by host code (core::data_pattern, the
// Gloo backend) and device code (the NCCL backend's check kernel), so the
// two can never disagree. Self-contained: no Abseil, no STL beyond
// <cstdint>; ops, redops and dtypes are passed as the integer values of
// core::Op, core::RedOp and core::DType (data_pattern.cc asserts they
// match).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FP_HOST_DEVICE __host__ __device__
#else
#define FP_HOST_DEVICE
#endif

namespace fabricpulse::core::formulas {

// Integer codes, equal to the enumerators' values.
enum OpCode : int {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kBroadcast = 3,
  kReduce = 4,
  kAllToAll = 5,
  kSendRecv = 6,
  kGather = 7,
  kScatter = 8,
  kPairwise = 9,
  // The moe ops' values come from their routing (core/moe_data.h), not
  // from these formulas.
  kMoeDispatch = 10,
  kMoeCombine = 11,
  kMoeCombineWeighted = 12,
};
enum RedOpCode : int { kSum = 0, kProd = 1, kMin = 2, kMax = 3, kAvg = 4 };
enum DTypeCode : int {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kHalf = 6,
  kFloat = 7,
  kDouble = 8,
  kBfloat16 = 9,
  kFp8E4M3 = 10,
  kFp8E5M2 = 11,
};

// The pairwise matrix's schedule (the circle method): with m = nranks
// rounded up to even, rounds 0..m-2 pair every two ranks exactly once, in
// disjoint pairs. In round r rank m-1 meets r, and any other rank x meets
// (2r - x) mod (m-1). The partner of `rank` in `round`, or -1 when it sits
// the round out (odd nranks: its partner would be the missing rank m-1).
FP_HOST_DEVICE inline int PairPartnerCode(int round, int rank, int nranks) {
  const int m = nranks + (nranks % 2);
  if (m < 2 || round < 0 || round >= m - 1 || rank < 0 || rank >= nranks) {
    return -1;
  }
  int partner;
  if (rank == m - 1) {
    partner = round;
  } else if (rank == round) {
    partner = m - 1;
  } else {
    partner = ((2 * round - rank) % (m - 1) + (m - 1)) % (m - 1);
  }
  return partner < nranks ? partner : -1;
}

FP_HOST_DEVICE inline bool IsReductionCode(int op) {
  return op == kAllReduce || op == kReduceScatter || op == kReduce;
}

FP_HOST_DEVICE inline bool IsFloatCode(int dtype) { return dtype >= kHalf; }

// Values of reductions: the result is exact in every dtype.
FP_HOST_DEVICE inline double ReductionInput(int redop, int rank, int nranks,
                                            uint64_t index) {
  switch (redop) {
    case kProd:
      // Exactly one rank contributes 2 to each element: the product is 2.
      return (rank + index) % nranks == 0 ? 2.0 : 1.0;
    case kMin:
    case kMax:
      return static_cast<double>((rank * 3 + index) % 5 + 1);
    default:  // sum, avg
      return static_cast<double>((rank + index) % 4 + 1);
  }
}

// Values of data movement: identify the source rank and position, within
// 1..8 so that fp8 e5m2 holds them exactly.
FP_HOST_DEVICE inline double MovementInput(int rank, uint64_t index) {
  return static_cast<double>((rank * 5 + index * 3) % 8 + 1);
}

FP_HOST_DEVICE inline double InputValue(int op, int redop, int rank, int nranks,
                                        uint64_t index) {
  return IsReductionCode(op) ? ReductionInput(redop, rank, nranks, index)
                             : MovementInput(rank, index);
}

FP_HOST_DEVICE inline double Reduced(int redop, int dtype, int nranks,
                                     uint64_t index) {
  double acc = ReductionInput(redop, 0, nranks, index);
  for (int r = 1; r < nranks; ++r) {
    const double v = ReductionInput(redop, r, nranks, index);
    switch (redop) {
      case kProd:
        acc *= v;
        break;
      case kMin:
        acc = v < acc ? v : acc;
        break;
      case kMax:
        acc = v > acc ? v : acc;
        break;
      default:
        acc += v;
        break;
    }
  }
  if (redop == kAvg) {
    acc /= nranks;
    // Integers truncate toward zero (values are positive).
    if (!IsFloatCode(dtype))
      acc = static_cast<double>(static_cast<int64_t>(acc));
  }
  return acc;
}

// Whether `rank`'s receive buffer is checked (not for non-root ranks of
// reduce and gather, nor for a rank that sits a pairwise round out). For
// pairwise, `root` is the step's round (and nranks matters).
FP_HOST_DEVICE inline bool HasCheckedOutputCode(int op, int root, int rank,
                                                int nranks) {
  if (op == kPairwise) return PairPartnerCode(root, rank, nranks) >= 0;
  return (op == kReduce || op == kGather) ? rank == root : true;
}

// Expected element `index` of `rank`'s receive buffer. `count` is the
// step's total count; for pairwise, `root` is the step's round.
FP_HOST_DEVICE inline double ExpectedValue(int op, int redop, int dtype,
                                           int root, int rank, int nranks,
                                           uint64_t count, uint64_t index) {
  const uint64_t chunk = count / nranks;
  switch (op) {
    case kAllReduce:
    case kReduce:
      return Reduced(redop, dtype, nranks, index);
    case kReduceScatter:
      return Reduced(redop, dtype, nranks, rank * chunk + index);
    case kAllGather:
    case kGather:
      return MovementInput(static_cast<int>(index / chunk), index % chunk);
    case kBroadcast:
      return MovementInput(root, index);
    case kScatter:
      return MovementInput(root, rank * chunk + index);
    case kAllToAll:
      // Chunk j of my receive buffer is chunk `rank` of rank j's send buffer.
      return MovementInput(static_cast<int>(index / chunk),
                           rank * chunk + index % chunk);
    case kSendRecv:
      return MovementInput((rank - 1 + nranks) % nranks, index);
    case kPairwise:
      return MovementInput(PairPartnerCode(root, rank, nranks), index);
    default:
      return 0;
  }
}

// Largest |actual - expected| accepted (0 for integers).
FP_HOST_DEVICE inline double ToleranceCode(int dtype, double expected) {
  const double a = expected < 0 ? -expected : expected;
  const double magnitude = a > 1.0 ? a : 1.0;
  switch (dtype) {
    case kHalf:
      return magnitude * 1e-3;
    case kBfloat16:
      return magnitude * 1e-2;
    case kFp8E4M3:
      return magnitude * 0.0625;
    case kFp8E5M2:
      return magnitude * 0.125;
    case kFloat:
      return magnitude * 1e-6;
    case kDouble:
      return magnitude * 1e-12;
    default:
      return 0;
  }
}

}  // namespace fabricpulse::core::formulas
