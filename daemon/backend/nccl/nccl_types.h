// core's dtypes and redops as NCCL's enums.
#pragma once

#include <nccl.h>

#include "daemon/core/dtype.h"
#include "daemon/core/redop.h"

namespace fabricpulse::backend {

inline ncclDataType_t NcclType(core::DType dtype) {
  switch (dtype) {
    case core::DType::kInt8:
      return ncclInt8;
    case core::DType::kUint8:
      return ncclUint8;
    case core::DType::kInt32:
      return ncclInt32;
    case core::DType::kUint32:
      return ncclUint32;
    case core::DType::kInt64:
      return ncclInt64;
    case core::DType::kUint64:
      return ncclUint64;
    case core::DType::kHalf:
      return ncclFloat16;
    case core::DType::kFloat:
      return ncclFloat32;
    case core::DType::kDouble:
      return ncclFloat64;
    case core::DType::kBfloat16:
      return ncclBfloat16;
    case core::DType::kFp8E4M3:
      return ncclFloat8e4m3;
    case core::DType::kFp8E5M2:
      return ncclFloat8e5m2;
  }
  return ncclFloat32;
}

inline ncclRedOp_t NcclRedOp(core::RedOp op) {
  switch (op) {
    case core::RedOp::kSum:
      return ncclSum;
    case core::RedOp::kProd:
      return ncclProd;
    case core::RedOp::kMin:
      return ncclMin;
    case core::RedOp::kMax:
      return ncclMax;
    case core::RedOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;
}

}  // namespace fabricpulse::backend
