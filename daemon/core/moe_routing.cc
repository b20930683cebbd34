#include "daemon/core/moe_routing.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "daemon/core/status_macros.h"

namespace fabricpulse::core {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t TokenKey(int src, int token) {
  return SplitMix64((static_cast<uint64_t>(src) << 32) |
                    static_cast<uint32_t>(token));
}

// The experts' cumulative popularity; empty when uniform.
std::vector<double> PopularityCdf(const MoeShape& shape, int experts) {
  std::vector<double> cdf;
  if (shape.skew == 0) return cdf;
  cdf.resize(experts);
  double sum = 0;
  for (int e = 0; e < experts; ++e) {
    sum += 1.0 / std::pow(e + 1.0, shape.skew);
    cdf[e] = sum;
  }
  for (double& c : cdf) c /= sum;
  return cdf;
}

int DrawExpert(double u, int experts, const std::vector<double>& cdf) {
  if (cdf.empty()) {
    return std::min(experts - 1, static_cast<int>(u * experts));
  }
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(experts - 1, static_cast<int>(it - cdf.begin()));
}

// Token t's destination ranks, appended to `dests` sorted and unique.
void TokenDests(const MoeShape& shape, int experts, uint64_t key,
                const std::vector<double>& cdf, std::vector<int>& chosen,
                std::vector<int32_t>& dests) {
  chosen.clear();
  const int max_attempts = 64 * shape.topk;
  for (int attempt = 0;
       attempt < max_attempts && static_cast<int>(chosen.size()) < shape.topk;
       ++attempt) {
    const uint64_t bits = SplitMix64(shape.seed ^ (key + attempt));
    const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
    const int e = DrawExpert(u, experts, cdf);
    if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) {
      chosen.push_back(e);
    }
  }
  // A heavily skewed popularity can keep drawing the same few experts:
  // the rest are the lowest ones not yet chosen, so that every token has
  // exactly topk.
  for (int e = 0; static_cast<int>(chosen.size()) < shape.topk; ++e) {
    if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) {
      chosen.push_back(e);
    }
  }
  const size_t first = dests.size();
  for (int e : chosen) dests.push_back(e / shape.experts_per_rank);
  std::sort(dests.begin() + first, dests.end());
  dests.erase(std::unique(dests.begin() + first, dests.end()), dests.end());
}

}  // namespace

SourceRouting RouteSource(const MoeShape& shape, int nranks, int src) {
  const int experts = shape.experts_per_rank * nranks;
  const std::vector<double> cdf = PopularityCdf(shape, experts);
  SourceRouting routing;
  routing.begin.reserve(shape.tokens + 1);
  routing.begin.push_back(0);
  std::vector<int> chosen;
  chosen.reserve(shape.topk);
  for (int t = 0; t < shape.tokens; ++t) {
    TokenDests(shape, experts, TokenKey(src, t), cdf, chosen, routing.dests);
    routing.begin.push_back(static_cast<uint32_t>(routing.dests.size()));
  }
  return routing;
}

std::vector<uint64_t> MoeRowMatrix(const MoeShape& shape, int nranks) {
  std::vector<uint64_t> rows(static_cast<size_t>(nranks) * nranks, 0);
  for (int s = 0; s < nranks; ++s) {
    const SourceRouting routing = RouteSource(shape, nranks, s);
    for (int32_t d : routing.dests) rows[static_cast<size_t>(s) * nranks + d]++;
  }
  return rows;
}

absl::StatusOr<MoeExchange> BuildMoeExchange(Op op, const MoeShape& shape,
                                             int nranks, int rank) {
  if (op != Op::kMoeDispatch && op != Op::kMoeCombine) {
    return absl::InvalidArgumentError(
        absl::StrCat("ops: ", OpName(op), " is not a moe op"));
  }
  if (rank < 0 || rank >= nranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", rank, " is not one of ", nranks, " ranks"));
  }
  FP_RETURN_IF_ERROR(ValidateMoeShape(shape, nranks));
  // Dispatch's view; combine swaps the two sides below.
  std::vector<std::vector<MoeRowId>> to(nranks), from(nranks);
  for (int s = 0; s < nranks; ++s) {
    const SourceRouting routing = RouteSource(shape, nranks, s);
    for (int t = 0; t < shape.tokens; ++t) {
      for (uint32_t i = routing.begin[t]; i < routing.begin[t + 1]; ++i) {
        const int d = routing.dests[i];
        if (s == rank) to[d].push_back({s, t});
        if (d == rank) from[s].push_back({s, t});
      }
    }
  }
  if (op == Op::kMoeCombine) std::swap(to, from);
  MoeExchange x;
  x.row_elements = static_cast<uint64_t>(shape.hidden);
  x.send_rows.resize(nranks);
  x.send_offset.resize(nranks);
  x.recv_rows.resize(nranks);
  x.recv_offset.resize(nranks);
  for (int p = 0; p < nranks; ++p) {
    x.send_offset[p] = x.send_total;
    x.send_rows[p] = to[p].size();
    x.send_total += to[p].size();
    x.send_ids.insert(x.send_ids.end(), to[p].begin(), to[p].end());
    x.recv_offset[p] = x.recv_total;
    x.recv_rows[p] = from[p].size();
    x.recv_total += from[p].size();
    x.recv_ids.insert(x.recv_ids.end(), from[p].begin(), from[p].end());
  }
  return x;
}

uint64_t MoeRowKey(int src, int token) {
  // Not TokenKey itself: the routing's draws and the row values stay
  // unrelated.
  return SplitMix64(TokenKey(src, token) ^ 0x5EED5EED5EED5EEDull);
}

double MoeValue(int src, int token, uint64_t h) {
  return MoeRowValue(MoeRowKey(src, token), h);
}

double MoeBusBandwidthFactor(const MoeShape& shape, int nranks) {
  const MoeRowsByPath rows = MoeRowsPerRank(shape, nranks, {});
  return (rows.intra_node + rows.network) / shape.tokens;
}

uint64_t MoeMaxBufferBytes(const MoeShape& shape, int nranks) {
  const std::vector<uint64_t> rows = MoeRowMatrix(shape, nranks);
  const uint64_t row_bytes =
      static_cast<uint64_t>(shape.hidden) *
      DTypeSize(MoeDType(shape).value_or(DType::kBfloat16));
  uint64_t most = 0;
  for (int r = 0; r < nranks; ++r) {
    uint64_t sent = 0, received = 0;
    for (int p = 0; p < nranks; ++p) {
      sent += rows[static_cast<size_t>(r) * nranks + p];
      received += rows[static_cast<size_t>(p) * nranks + r];
    }
    most = std::max(most, (sent + received) * row_bytes);
  }
  return most;
}

MoeRowsByPath MoeRowsPerRank(const MoeShape& shape, int nranks,
                             const std::vector<std::string>& rank_nodes) {
  const std::vector<uint64_t> rows = MoeRowMatrix(shape, nranks);
  MoeRowsByPath out;
  for (int s = 0; s < nranks; ++s) {
    for (int d = 0; d < nranks; ++d) {
      const double n = static_cast<double>(rows[s * nranks + d]);
      const bool same_node = static_cast<int>(rank_nodes.size()) == nranks &&
                             !rank_nodes[s].empty() &&
                             rank_nodes[s] == rank_nodes[d];
      if (s == d) {
        out.self += n;
      } else if (same_node) {
        out.intra_node += n;
      } else {
        out.network += n;
      }
    }
  }
  out.self /= nranks;
  out.intra_node /= nranks;
  out.network /= nranks;
  return out;
}

}  // namespace fabricpulse::core
