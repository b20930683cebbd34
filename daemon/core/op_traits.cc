#include "daemon/core/op_traits.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/core/name_rules.h"

namespace fabricpulse::core {
namespace {

struct OpInfo {
  Op op;
  absl::string_view name;
  bool reduction;
  bool rooted;
  bool splits;
  bool in_place;
};

constexpr std::array<OpInfo, 13> kOps = {{
    {Op::kAllReduce, "all_reduce", true, false, false, true},
    {Op::kAllGather, "all_gather", false, false, true, true},
    {Op::kReduceScatter, "reduce_scatter", true, false, true, true},
    {Op::kBroadcast, "broadcast", false, true, false, true},
    {Op::kReduce, "reduce", true, true, false, true},
    {Op::kAllToAll, "alltoall", false, false, true, false},
    {Op::kSendRecv, "sendrecv", false, false, false, false},
    {Op::kGather, "gather", false, true, true, true},
    {Op::kScatter, "scatter", false, true, true, true},
    {Op::kPairwise, "pairwise", false, false, false, false},
    {Op::kMoeDispatch, "moe_dispatch", false, false, false, false},
    {Op::kMoeCombine, "moe_combine", false, false, false, false},
    {Op::kMoeCombineWeighted, "moe_combine_weighted", false, false, false,
     false},
}};

constexpr std::array<std::pair<absl::string_view, Op>, 7> kAliases = {{
    {"allreduce", Op::kAllReduce},
    {"allgather", Op::kAllGather},
    {"reducescatter", Op::kReduceScatter},
    {"all_to_all", Op::kAllToAll},
    {"all2all", Op::kAllToAll},
    {"pt2pt", Op::kSendRecv},
    {"send_recv", Op::kSendRecv},
}};

const OpInfo& Info(Op op) {
  for (const auto& info : kOps) {
    if (info.op == op) return info;
  }
  return kOps[0];
}

}  // namespace

absl::string_view OpName(Op op) { return Info(op).name; }
bool IsReduction(Op op) { return Info(op).reduction; }
bool IsRooted(Op op) { return Info(op).rooted; }
bool SplitsCount(Op op) { return Info(op).splits; }
bool SupportsInPlace(Op op) { return Info(op).in_place; }
bool IsMoe(Op op) { return op == Op::kMoeDispatch || IsMoeCombine(op); }
bool IsMoeCombine(Op op) {
  return op == Op::kMoeCombine || op == Op::kMoeCombineWeighted;
}

absl::StatusOr<Op> ParseOp(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (const auto& info : kOps) {
    if (info.name == lower) return info.op;
  }
  for (const auto& [alias, op] : kAliases) {
    if (alias == lower) return op;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "ops: unknown op ", QuotePrefix(name), "; allowed: ", AllOpNames()));
}

std::string AllOpNames() {
  return absl::StrJoin(kOps, ", ", [](std::string* out, const OpInfo& i) {
    absl::StrAppend(out, i.name);
  });
}

double BusBandwidthFactor(Op op, int nranks) {
  const double n = nranks;
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAllToAll:
    case Op::kGather:
    case Op::kScatter:
      return (n - 1) / n;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kSendRecv:
    case Op::kPairwise:
    case Op::kMoeDispatch:
    case Op::kMoeCombine:
    case Op::kMoeCombineWeighted:
      return 1.0;
  }
  return 1.0;
}

uint64_t StepCount(Op op, uint64_t bytes, size_t element_size, int nranks) {
  uint64_t count = bytes / element_size;
  if (SplitsCount(op)) count = (count / nranks) * nranks;
  return count;
}

BufferLayout LayoutFor(Op op, uint64_t count, int nranks, int rank,
                       bool in_place) {
  BufferLayout layout;
  const uint64_t chunk = count / nranks;
  switch (op) {
    case Op::kAllGather:
    case Op::kGather:
      layout.send_count = chunk;
      layout.recv_count = count;
      layout.send_offset = in_place ? rank * chunk : 0;
      break;
    case Op::kReduceScatter:
    case Op::kScatter:
      layout.send_count = count;
      layout.recv_count = chunk;
      layout.recv_offset = in_place ? rank * chunk : 0;
      break;
    default:
      layout.send_count = count;
      layout.recv_count = count;
      break;
  }
  layout.in_place = in_place;
  layout.alloc_count = in_place ? count : 0;
  return layout;
}

}  // namespace fabricpulse::core
