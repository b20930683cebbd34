#include "daemon/core/moe_data.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace fabricpulse::core {
namespace {

uint16_t ToBfloat16(double value) {
  const float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  // Round to nearest even (the probe's values are exact either way).
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

double FromBfloat16(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// OCP fp8 e4m3 (bias 7, no infinities, S.1111.111 is NaN), round to
// nearest; values beyond 448 saturate.
uint8_t ToFp8E4M3(double value) {
  if (std::isnan(value)) return 0x7F;
  const uint8_t sign = value < 0 ? 0x80 : 0;
  double a = std::fabs(value);
  if (a >= 448) return sign | 0x7E;
  if (a < std::ldexp(1.0, -9)) return sign;
  int exp;
  std::frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1)
  int e = exp - 1;      // a = (1 + f) * 2^e
  if (e < -6) {         // subnormal: mantissa * 2^-9
    const int mant = static_cast<int>(std::nearbyint(a / std::ldexp(1.0, -9)));
    return sign | static_cast<uint8_t>(mant);
  }
  int mant = static_cast<int>(std::nearbyint((a / std::ldexp(1.0, e) - 1) * 8));
  if (mant == 8) {
    mant = 0;
    ++e;
  }
  return sign | static_cast<uint8_t>(((e + 7) << 3) | mant);
}

double FromFp8E4M3(uint8_t b) {
  const double sign = (b & 0x80) ? -1 : 1;
  const int exp = (b >> 3) & 0xF;
  const int mant = b & 7;
  if (exp == 0xF && mant == 7) return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0) return sign * std::ldexp(mant, -9);
  return sign * std::ldexp(1.0 + mant / 8.0, exp - 7);
}

}  // namespace

double DecodeMoeElement(DType dtype, const void* element) {
  if (dtype == DType::kBfloat16) {
    uint16_t b;
    std::memcpy(&b, element, sizeof(b));
    return FromBfloat16(b);
  }
  return FromFp8E4M3(*static_cast<const uint8_t*>(element));
}

void EncodeMoeElement(DType dtype, double value, void* element) {
  if (dtype == DType::kBfloat16) {
    const uint16_t b = ToBfloat16(value);
    std::memcpy(element, &b, sizeof(b));
    return;
  }
  *static_cast<uint8_t*>(element) = ToFp8E4M3(value);
}

// The probe's values 1..8 (and sums up to 8 x 32) go through tables: one
// encoding per value, one decoding per byte pattern.
struct Codec {
  DType dtype;
  size_t elem;
  unsigned char encoded[9][2] = {};
  std::vector<double> fp8_decoded;  // 256 entries (fp8 only)

  explicit Codec(DType d) : dtype(d), elem(DTypeSize(d)) {
    for (int v = 1; v <= 8; ++v) EncodeMoeElement(dtype, v, encoded[v]);
    if (elem == 1) {
      fp8_decoded.resize(256);
      for (int b = 0; b < 256; ++b) {
        const uint8_t byte = static_cast<uint8_t>(b);
        fp8_decoded[b] = DecodeMoeElement(dtype, &byte);
      }
    }
  }
  double Decode(const unsigned char* p) const {
    return elem == 1 ? fp8_decoded[*p] : DecodeMoeElement(dtype, p);
  }
};

absl::Status FillMoeRows(DType dtype, const std::vector<MoeRowId>& ids,
                         uint64_t hidden, void* buf) {
  if (absl::Status s = CheckMoeDType(dtype); !s.ok()) return s;
  const Codec codec(dtype);
  auto* out = static_cast<unsigned char*>(buf);
  for (const MoeRowId& id : ids) {
    const uint64_t key = MoeRowKey(id.src, id.token);
    for (uint64_t h = 0; h < hidden; ++h, out += codec.elem) {
      std::memcpy(out, codec.encoded[MoeRowValue(key, h)], codec.elem);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CountMoeWrong(Op op, DType dtype, int rank,
                                      const MoeExchange& x, const void* recv) {
  if (absl::Status s = CheckMoeDType(dtype); !s.ok()) return s;
  const Codec codec(dtype);
  const uint64_t hidden = x.row_elements;
  const auto* in = static_cast<const unsigned char*>(recv);
  auto at = [&](uint64_t row, uint64_t h) {
    return codec.Decode(in + (row * hidden + h) * codec.elem);
  };
  int64_t wrong = 0;
  if (op == Op::kMoeDispatch) {
    for (uint64_t row = 0; row < x.recv_total; ++row) {
      const MoeRowId& id = x.recv_ids[row];
      const uint64_t key = MoeRowKey(id.src, id.token);
      for (uint64_t h = 0; h < hidden; ++h) {
        // Written so that NaN counts as wrong.
        if (!(at(row, h) == MoeRowValue(key, h))) ++wrong;
      }
    }
    return wrong;
  }
  if (!IsMoeCombine(op)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ops: ", OpName(op), " is not a moe op"));
  }
  // Every returned row is one of this rank's tokens: reduce each token's.
  int32_t tokens = 0;
  for (const MoeRowId& id : x.recv_ids) tokens = std::max(tokens, id.token + 1);
  const MoeTokenRows grouped = GroupMoeRowsByToken(x, tokens);
  const std::vector<uint32_t>& begin = grouped.begin;
  const std::vector<uint32_t>& rows = grouped.rows;
  for (int32_t t = 0; t < tokens; ++t) {
    const uint32_t n = begin[t + 1] - begin[t];
    if (n == 0) continue;
    const uint64_t key = MoeRowKey(rank, t);
    for (uint64_t h = 0; h < hidden; ++h) {
      double sum = 0;
      for (uint32_t i = begin[t]; i < begin[t + 1]; ++i) sum += at(rows[i], h);
      if (!(sum == n * MoeRowValue(key, h))) ++wrong;
    }
  }
  return wrong;
}

MoeTokenRows GroupMoeRowsByToken(const MoeExchange& x, int tokens) {
  // Counting sort of the rows by token.
  MoeTokenRows out;
  out.begin.assign(static_cast<size_t>(tokens) + 1, 0);
  for (const MoeRowId& id : x.recv_ids) out.begin[id.token + 1]++;
  for (int t = 0; t < tokens; ++t) out.begin[t + 1] += out.begin[t];
  out.rows.resize(x.recv_total);
  out.weights.resize(x.recv_total);
  std::vector<uint32_t> fill(out.begin.begin(), out.begin.end() - 1);
  for (uint64_t row = 0; row < x.recv_total; ++row) {
    const uint32_t at = fill[x.recv_ids[row].token]++;
    out.rows[at] = static_cast<uint32_t>(row);
    out.weights[at] = x.recv_ids[row].weight;
  }
  return out;
}

void ReduceMoeRows(DType dtype, const MoeTokenRows& rows, uint64_t row_elements,
                   const void* recv, float* out) {
  const Codec codec(dtype);
  const auto* in = static_cast<const unsigned char*>(recv);
  const size_t tokens = rows.begin.size() - 1;
  for (size_t t = 0; t < tokens; ++t) {
    float* o = out + t * row_elements;
    std::fill(o, o + row_elements, 0.0f);
    for (uint32_t i = rows.begin[t]; i < rows.begin[t + 1]; ++i) {
      const unsigned char* row = in + rows.rows[i] * row_elements * codec.elem;
      const float w = rows.weights[i];
      for (uint64_t h = 0; h < row_elements; ++h) {
        o[h] += w * static_cast<float>(codec.Decode(row + h * codec.elem));
      }
    }
  }
}

int64_t CountMoeWeightedWrong(int rank, const MoeTokenRows& rows,
                              uint64_t hidden, const float* out) {
  int64_t wrong = 0;
  const size_t tokens = rows.begin.size() - 1;
  for (size_t t = 0; t < tokens; ++t) {
    const uint64_t key = MoeRowKey(rank, static_cast<int>(t));
    float weight = 0;
    for (uint32_t i = rows.begin[t]; i < rows.begin[t + 1]; ++i) {
      weight += rows.weights[i];
    }
    for (uint64_t h = 0; h < hidden; ++h) {
      // Every row of the token holds the same values: the sum is the
      // weights' sum times the value (exact in float32).
      if (!(out[t * hidden + h] == weight * MoeRowValue(key, h))) ++wrong;
    }
  }
  return wrong;
}

}  // namespace fabricpulse::core
