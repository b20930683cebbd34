#include "daemon/core/auto_max_bytes.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

std::vector<RankMemory> Ranks(const std::vector<uint64_t>& free) {
  std::vector<RankMemory> ranks;
  for (size_t i = 0; i < free.size(); ++i) {
    ranks.push_back({static_cast<int>(i), free[i],
                     absl::StrCat("rank ", i, " (node n, GPU ", i, ")")});
  }
  return ranks;
}

SweepSpec AutoSpec(std::vector<std::string> ops, double fraction) {
  SweepSpec spec;
  spec.ops = std::move(ops);
  spec.max_bytes_auto.fraction = fraction;
  return spec;
}

// Resolves `spec` for `nranks` ranks of `free` memory each (or as listed).
absl::Status Resolve(SweepSpec& spec, const std::vector<uint64_t>& free,
                     uint64_t limit = kNoLimit) {
  const int nranks = static_cast<int>(free.size());
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, nranks);
  if (!resolved.ok()) return resolved.status();
  return ResolveMaxBytesAuto(spec, *resolved, nranks, Ranks(free), limit);
}

uint64_t PickedFor(const SweepSpec& spec, const std::string& op) {
  for (const OpMaxBytes& entry : spec.max_bytes_auto.ops) {
    if (entry.op == op) return entry.max_bytes;
  }
  ADD_FAILURE() << "no size for " << op;
  return 0;
}

// The largest step Expand gives `op`.
uint64_t LargestStep(const std::vector<Step>& steps, Op op) {
  uint64_t largest = 0;
  for (const Step& s : steps) {
    if (s.op == op) largest = std::max(largest, s.bytes);
  }
  return largest;
}

TEST(ParseMaxBytesTest, SizesAndAuto) {
  auto size = ParseMaxBytes("1G", "--max-bytes");
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->bytes, 1ull << 30);
  EXPECT_EQ(size->auto_fraction, 0);

  auto plain = ParseMaxBytes("auto", "--max-bytes");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->auto_fraction, kDefaultAutoFraction);
  EXPECT_EQ(kDefaultAutoFraction, 0.25);

  for (const auto& [text, fraction] :
       std::vector<std::pair<std::string, double>>{{"auto:0.5", 0.5},
                                                   {"AUTO:1", 1},
                                                   {" auto:1e-3 ", 0.001},
                                                   {"Auto:0.05", 0.05}}) {
    auto parsed = ParseMaxBytes(text, "--max-bytes");
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_DOUBLE_EQ(parsed->auto_fraction, fraction) << text;
  }
}

TEST(ParseMaxBytesTest, BadFractionNamesTheFlagAndTheRange) {
  for (const char* text : {"auto:0", "auto:1.5", "auto:x", "auto:", "auto:-0.1",
                           "auto:nan", "auto:inf", "autox", "auto0.5"}) {
    auto parsed = ParseMaxBytes(text, "--max-bytes");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              absl::StrCat("--max-bytes: '", text,
                           "': FRACTION must be a number with 0 < FRACTION "
                           "<= 1; allowed: auto (FRACTION 0.25), "
                           "auto:FRACTION (e.g. auto:0.5) or a byte size "
                           "such as 1G"));
  }
}

TEST(ParseMaxBytesTest, BadSizeAlsoOffersAuto) {
  auto parsed = ParseMaxBytes("lots", "--max-bytes");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()),
              StartsWith("--max-bytes: 'lots' is not a byte size"));
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("or auto[:FRACTION]"));
}

TEST(SetMaxBytesTest, FixedSizeOrAuto) {
  SweepSpec spec;
  spec.max_bytes_auto.ops.push_back({"all_reduce", 8, 16});
  SetMaxBytes({.bytes = 0, .auto_fraction = 0.5}, spec);
  EXPECT_EQ(spec.max_bytes_auto.fraction, 0.5);
  EXPECT_TRUE(spec.max_bytes_auto.ops.empty());
  EXPECT_TRUE(HasMaxBytesAuto(spec));
  SetMaxBytes({.bytes = 4096, .auto_fraction = 0}, spec);
  EXPECT_FALSE(HasMaxBytesAuto(spec));
  EXPECT_EQ(spec.max_bytes, 4096u);
}

// 4 ranks, float, both placements; the budget is 0.5 x 100 MiB = 50 MiB.
// Out of place, all_reduce, alltoall and broadcast hold 2 copies (2P), and
// all_gather a quarter copy plus one (1.25P): each op gets its own size.
TEST(ResolveMaxBytesAutoTest, EachOpGetsTheLargestPowerOfTwoThatFits) {
  SweepSpec spec =
      AutoSpec({"all_reduce", "all_gather", "alltoall", "broadcast"}, 0.5);
  ASSERT_TRUE(
      Resolve(spec, {100 * kMiB, 100 * kMiB, 100 * kMiB, 100 * kMiB}).ok());
  const MaxBytesAuto& a = spec.max_bytes_auto;
  EXPECT_EQ(a.budget_bytes, 50 * kMiB);
  EXPECT_EQ(a.free_bytes, 100 * kMiB);
  ASSERT_EQ(a.ops.size(), 4u);
  EXPECT_EQ(a.ops[0].op, "all_reduce");
  EXPECT_EQ(a.ops[0].max_bytes, 16 * kMiB);
  EXPECT_EQ(a.ops[0].buffer_bytes, 32 * kMiB);
  EXPECT_EQ(a.ops[1].op, "all_gather");
  EXPECT_EQ(a.ops[1].max_bytes, 32 * kMiB);
  EXPECT_EQ(a.ops[1].buffer_bytes, 40 * kMiB);
  EXPECT_EQ(PickedFor(spec, "alltoall"), 16 * kMiB);
  EXPECT_EQ(PickedFor(spec, "broadcast"), 16 * kMiB);
  // max_bytes is the largest op's size.
  EXPECT_EQ(spec.max_bytes, 32 * kMiB);

  // Every rank expands the resolved spec to the same steps, each op up to
  // its own size, min_bytes and factor as usual.
  auto steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(LargestStep(*steps, Op::kAllReduce), 16 * kMiB);
  EXPECT_EQ(LargestStep(*steps, Op::kAllGather), 32 * kMiB);
  EXPECT_EQ(LargestStep(*steps, Op::kAllToAll), 16 * kMiB);
  EXPECT_LE(MaxBufferBytes(*steps, 4), a.budget_bytes);
  auto again = Expand(spec, 4);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), steps->size());
}

TEST(ResolveMaxBytesAutoTest, InPlaceOnlyNeedsOneCopy) {
  SweepSpec spec = AutoSpec({"all_reduce"}, 0.5);
  spec.placement = "in_place";
  ASSERT_TRUE(Resolve(spec, {100 * kMiB, 100 * kMiB}).ok());
  EXPECT_EQ(PickedFor(spec, "all_reduce"), 32 * kMiB);
}

TEST(ResolveMaxBytesAutoTest, TheLeastFreeRankSetsTheBudget) {
  SweepSpec spec = AutoSpec({"all_reduce"}, 1);
  ASSERT_TRUE(
      Resolve(spec, {200 * kMiB, 64 * kMiB, 300 * kMiB, 64 * kMiB}).ok());
  EXPECT_EQ(spec.max_bytes_auto.free_bytes, 64 * kMiB);
  // The lowest rank on a tie.
  EXPECT_EQ(spec.max_bytes_auto.least_free, "rank 1 (node n, GPU 1)");
  EXPECT_EQ(spec.max_bytes_auto.budget_bytes, 64 * kMiB);
  EXPECT_EQ(PickedFor(spec, "all_reduce"), 32 * kMiB);
}

TEST(ResolveMaxBytesAutoTest, FractionScalesTheBudget) {
  for (const auto& [fraction, expected] :
       std::vector<std::pair<double, uint64_t>>{{1, 512 * kMiB},
                                                {0.5, 256 * kMiB},
                                                {0.3, 128 * kMiB},
                                                {0.25, 128 * kMiB},
                                                {0.05, 16 * kMiB}}) {
    SweepSpec spec = AutoSpec({"all_reduce"}, fraction);
    ASSERT_TRUE(Resolve(spec, {1024 * kMiB, 1024 * kMiB}).ok());
    EXPECT_EQ(spec.max_bytes_auto.budget_bytes,
              static_cast<uint64_t>(std::floor(fraction * 1024 * kMiB)));
    EXPECT_EQ(PickedFor(spec, "all_reduce"), expected) << fraction;
  }
}

// Over many figures, rank counts and ops: a power of two, at least
// min_bytes, whose buffers fit, and the next power of two's do not.
TEST(ResolveMaxBytesAutoTest, AlwaysTheLargestFittingPowerOfTwo) {
  const std::vector<std::string> ops = {"all_reduce",     "all_gather",
                                        "reduce_scatter", "alltoall",
                                        "gather",         "sendrecv"};
  for (int nranks : {1, 2, 3, 8}) {
    for (uint64_t free = 3 * kMiB + 17; free < (64ull << 30);
         free = free * 3 + 5) {
      SweepSpec spec = AutoSpec(ops, 0.3);
      ASSERT_TRUE(Resolve(spec, std::vector<uint64_t>(nranks, free)).ok());
      auto resolved = Validate(spec, nranks);
      ASSERT_TRUE(resolved.ok());
      for (const OpMaxBytes& entry : spec.max_bytes_auto.ops) {
        SCOPED_TRACE(absl::StrCat(entry.op, " n=", nranks, " free=", free));
        const uint64_t p = entry.max_bytes;
        EXPECT_EQ(p & (p - 1), 0u);
        EXPECT_GE(p, spec.min_bytes);
        EXPECT_LE(entry.buffer_bytes, spec.max_bytes_auto.budget_bytes);
        const Op op = *ParseOp(entry.op);
        const auto next = StepsAtSize(*resolved, 0, op, 2 * p, nranks);
        EXPECT_GT(MaxBufferBytes(next, nranks),
                  spec.max_bytes_auto.budget_bytes);
      }
    }
  }
}

TEST(ResolveMaxBytesAutoTest, MinBytesStillApplies) {
  SweepSpec spec = AutoSpec({"all_reduce"}, 0.5);
  spec.min_bytes = 1 * kMiB;
  spec.factor = 4;
  ASSERT_TRUE(Resolve(spec, {100 * kMiB, 100 * kMiB}).ok());
  EXPECT_EQ(PickedFor(spec, "all_reduce"), 16 * kMiB);
  auto steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  std::vector<uint64_t> sizes;
  for (const Step& s : *steps) {
    if (!s.in_place) sizes.push_back(s.bytes);
  }
  EXPECT_EQ(sizes, (std::vector<uint64_t>{1 * kMiB, 4 * kMiB, 16 * kMiB}));
}

TEST(ResolveMaxBytesAutoTest, NothingFitsIsOneErrorNamingTheRank) {
  SweepSpec spec = AutoSpec({"all_gather", "all_reduce"}, 0.5);
  spec.min_bytes = 64 * kMiB;
  absl::Status status = Resolve(spec, {200 * kMiB, 100 * kMiB});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // all_gather at 2 ranks needs 1.5 x 64 MiB = 96 MiB: no fit at 50 MiB.
  EXPECT_EQ(status.message(),
            "max_bytes: auto:0.5 leaves no size for all_gather: min_bytes "
            "64M needs 96 MiB of buffers on each rank, more than the budget "
            "of 50 MiB (0.5 x 100 MiB free on rank 1 (node n, GPU 1)); "
            "lower --min-bytes, raise FRACTION or free memory on that rank");
  EXPECT_TRUE(spec.max_bytes_auto.ops.empty());
}

TEST(ResolveMaxBytesAutoTest, TooSmallToSplitAndNoMemoryAreRefused) {
  SweepSpec split = AutoSpec({"all_gather"}, 1);
  split.min_bytes = 1;
  // 8 ranks of 4-byte floats: 32 bytes at least; 20 bytes free.
  absl::Status status = Resolve(split, std::vector<uint64_t>(8, 20));
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("no power of two from min_bytes 1 up fits"));

  SweepSpec none = AutoSpec({"all_reduce"}, 1);
  EXPECT_FALSE(Resolve(none, {0, 0}).ok());
  auto resolved = Validate(none, 1);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(ResolveMaxBytesAuto(none, *resolved, 1, {}, kNoLimit).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ResolveMaxBytesAutoTest, TheBackendLimitCapsTheBudget) {
  SweepSpec spec = AutoSpec({"all_reduce"}, 1);
  ASSERT_TRUE(
      Resolve(spec, {1ull << 40, 1ull << 40}, BackendBufferLimit("gloo")).ok());
  EXPECT_EQ(spec.max_bytes_auto.budget_bytes, kGlooMaxBufferBytes);
  EXPECT_EQ(PickedFor(spec, "all_reduce"), kGlooMaxBufferBytes / 2);
  EXPECT_EQ(BackendBufferLimit("nccl"), kNoLimit);
}

TEST(MaxBytesAutoValidateTest, UnresolvedAutoValidatesButDoesNotExpand) {
  SweepSpec spec = AutoSpec({"all_reduce"}, 0.5);
  spec.min_bytes = 1ull << 30;  // above max_bytes: ignored with auto
  EXPECT_TRUE(Validate(spec, 2).ok());
  auto steps = Expand(spec, 2);
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.status().message(),
            "max_bytes: auto:0.5 has no size for all_reduce yet; the "
            "coordinator picks each op's largest size from its members' free "
            "memory when it plans the sweep");
}

TEST(MaxBytesAutoValidateTest, RefusesBadFractionsAndEntries) {
  auto message = [](const SweepSpec& spec) {
    auto resolved = Validate(spec, 2);
    return resolved.ok() ? std::string("ok")
                         : std::string(resolved.status().message());
  };
  for (double bad : {1.5, -0.5, std::nan("")}) {
    EXPECT_THAT(message(AutoSpec({"all_reduce"}, bad)),
                StartsWith("max_bytes_auto.fraction: "));
  }
  EXPECT_THAT(message(AutoSpec({"all_reduce"}, 1.5)),
              HasSubstr("allowed: more than 0, up to 1"));

  SweepSpec no_fraction;
  no_fraction.max_bytes_auto.ops.push_back({"all_reduce", 1024, 2048});
  EXPECT_THAT(message(no_fraction), StartsWith("max_bytes_auto.ops: "));

  SweepSpec spec = AutoSpec({"all_reduce", "all_gather"}, 0.5);
  spec.max_bytes_auto.ops = {{"all_reduce", 1024, 2048}};
  EXPECT_THAT(message(spec), HasSubstr("1 of the spec's 2 ops have a size"));
  spec.max_bytes_auto.ops = {{"all_reduce", 1024, 0}, {"allreduce", 1024, 0}};
  EXPECT_THAT(message(spec), HasSubstr("listed twice"));
  spec.max_bytes_auto.ops = {{"all_reduce", 1024, 0}, {"broadcast", 1024, 0}};
  EXPECT_THAT(message(spec), HasSubstr("broadcast is not an op of the spec"));
  spec.max_bytes_auto.ops = {{"all_reduce", 4, 0}, {"all_gather", 1024, 0}};
  EXPECT_THAT(message(spec), HasSubstr("all_reduce 4 is out of range"));
  spec.max_bytes_auto.ops = {{"all_reduce", 1024, 0}, {"all_gather", 2048, 0}};
  EXPECT_EQ(message(spec), "ok");
  spec.max_bytes_auto.least_free = std::string(kMaxLeastFreeLength + 1, 'x');
  EXPECT_THAT(message(spec), StartsWith("max_bytes_auto.least_free: "));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
