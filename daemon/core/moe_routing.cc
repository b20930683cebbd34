#include "daemon/core/moe_routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

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

// Salts: the draws of the routing, the masks, the group scores and the
// weights stay unrelated.
constexpr uint64_t kMaskSalt = 0x4D41534B53454C53ull;
constexpr uint64_t kScoreSalt = 0x53434F5245475250ull;
constexpr uint64_t kWeightSalt = 0x5745494748545321ull;

double Unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Free top-k: token `key`'s topk distinct experts, drawn one by one.
void DrawnExperts(const MoeShape& shape, int experts, uint64_t key,
                  const std::vector<double>& cdf, std::vector<int>& chosen) {
  chosen.clear();
  const int max_attempts = 64 * shape.topk;
  for (int attempt = 0;
       attempt < max_attempts && static_cast<int>(chosen.size()) < shape.topk;
       ++attempt) {
    const uint64_t bits = SplitMix64(shape.seed ^ (key + attempt));
    const int e = DrawExpert(Unit(bits), experts, cdf);
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
}

// DeepEP's group-limited routing (tests/legacy/test_internode.py): a score
// per expert, a group's score is its best expert's, the token keeps the
// MoeTopkGroups best groups and takes the topk best experts of those
// (ties: the lower index), best first.
void GroupedExperts(const MoeShape& shape, int nranks, int src, int token,
                    std::vector<double>& scores, std::vector<int>& order,
                    std::vector<int>& chosen) {
  const int experts = shape.experts_per_rank * nranks;
  const int groups = MoeGroups(shape, nranks);
  const int per_group = experts / groups;
  scores.resize(experts);
  for (int e = 0; e < experts; ++e) {
    scores[e] = MoeExpertScore(shape, src, token, e);
  }
  std::vector<double> best(groups, -1);
  for (int e = 0; e < experts; ++e) {
    best[e / per_group] = std::max(best[e / per_group], scores[e]);
  }
  auto better = [](const std::vector<double>& v) {
    return
        [&v](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); };
  };
  order.resize(groups);
  std::iota(order.begin(), order.end(), 0);
  const int picked = MoeTopkGroups(shape, nranks);
  std::partial_sort(order.begin(), order.begin() + picked, order.end(),
                    better(best));
  std::vector<int> candidates;
  candidates.reserve(static_cast<size_t>(picked) * per_group);
  for (int i = 0; i < picked; ++i) {
    for (int e = order[i] * per_group; e < (order[i] + 1) * per_group; ++e) {
      candidates.push_back(e);
    }
  }
  std::partial_sort(candidates.begin(), candidates.begin() + shape.topk,
                    candidates.end(), better(scores));
  chosen.assign(candidates.begin(), candidates.begin() + shape.topk);
}

// Rank `src`'s masked selections, as token * topk + slot, sorted (a
// position may repeat, as DeepEP's random masking).
std::vector<uint64_t> MaskedSelections(const MoeShape& shape, int src) {
  std::vector<uint64_t> masked;
  for (int i = 0; i < shape.masked; ++i) {
    const uint64_t bits = SplitMix64(shape.seed ^ kMaskSalt ^ TokenKey(src, i));
    const uint64_t token = (bits & 0xFFFFFFFFull) % shape.tokens;
    const uint64_t slot = (bits >> 32) % shape.topk;
    masked.push_back(token * shape.topk + slot);
  }
  std::sort(masked.begin(), masked.end());
  return masked;
}

}  // namespace

double MoeExpertScore(const MoeShape& shape, int src, int token, int expert) {
  return Unit(
      SplitMix64(shape.seed ^ kScoreSalt ^ (TokenKey(src, token) + expert)));
}

float MoeWeight(const MoeShape& shape, int src, int token, int slot) {
  const uint64_t bits =
      SplitMix64(shape.seed ^ kWeightSalt ^ (TokenKey(src, token) + slot));
  return static_cast<float>(bits % 8 + 1) / 8;
}

SourceRouting RouteSource(const MoeShape& shape, int nranks, int src) {
  const int experts = shape.experts_per_rank * nranks;
  const bool grouped = MoeTopkGroups(shape, nranks) < MoeGroups(shape, nranks);
  const std::vector<double> cdf = PopularityCdf(shape, experts);
  const std::vector<uint64_t> masked = MaskedSelections(shape, src);
  SourceRouting routing;
  routing.begin.reserve(shape.tokens + 1);
  routing.begin.push_back(0);
  routing.expert_begin.reserve(shape.tokens + 1);
  routing.expert_begin.push_back(0);
  std::vector<int> chosen;
  std::vector<double> scores;
  std::vector<int> order;
  // (rank, weight) per kept selection of the token.
  std::vector<std::pair<int32_t, float>> picks;
  chosen.reserve(shape.topk);
  for (int t = 0; t < shape.tokens; ++t) {
    const uint64_t key = TokenKey(src, t);
    if (grouped) {
      GroupedExperts(shape, nranks, src, t, scores, order, chosen);
    } else {
      DrawnExperts(shape, experts, key, cdf, chosen);
    }
    picks.clear();
    for (int k = 0; k < shape.topk; ++k) {
      const uint64_t position = static_cast<uint64_t>(t) * shape.topk + k;
      if (std::binary_search(masked.begin(), masked.end(), position)) continue;
      routing.experts.push_back(chosen[k]);
      picks.emplace_back(chosen[k] / shape.experts_per_rank,
                         MoeWeight(shape, src, t, k));
    }
    std::stable_sort(
        picks.begin(), picks.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [rank, weight] : picks) {
      if (!shape.per_selection && routing.dests.size() > routing.begin.back() &&
          routing.dests.back() == rank) {
        routing.weights.back() += weight;
        continue;
      }
      routing.dests.push_back(rank);
      routing.weights.push_back(weight);
    }
    routing.begin.push_back(static_cast<uint32_t>(routing.dests.size()));
    routing.expert_begin.push_back(
        static_cast<uint32_t>(routing.experts.size()));
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
  if (!IsMoe(op)) {
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
        const MoeRowId id{s, t, routing.weights[i]};
        if (s == rank) to[d].push_back(id);
        if (d == rank) from[s].push_back(id);
      }
    }
  }
  if (IsMoeCombine(op)) std::swap(to, from);
  MoeExchange x;
  x.row_elements = MoeRowElements(shape, op);
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

double MoeBusBandwidthFactor(const MoeShape& shape, Op op, int nranks) {
  const MoeRowsByPath rows = MoeRowsPerRank(shape, nranks, {});
  return (rows.intra_node + rows.network) / shape.tokens *
         static_cast<double>(MoeRowElements(shape, op)) / shape.hidden;
}

uint64_t MoeMaxBufferBytes(const MoeShape& shape, int nranks) {
  const std::vector<uint64_t> rows = MoeRowMatrix(shape, nranks);
  uint64_t row_bytes = 0;
  for (Op op : {Op::kMoeDispatch, Op::kMoeCombine}) {
    row_bytes = std::max(row_bytes, MoeRowElements(shape, op) *
                                        DTypeSize(MoeStepDType(shape, op)));
  }
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

uint64_t MoeWeightedOutputBytes(const MoeShape& shape) {
  return static_cast<uint64_t>(shape.tokens) * shape.hidden * sizeof(float);
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
