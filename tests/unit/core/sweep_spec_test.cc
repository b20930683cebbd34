#include "daemon/core/sweep_spec.h"

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kKiB = 1ull << 10;
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kTiB = 1ull << 40;

// Asserts that Validate refuses `spec` with INVALID_ARGUMENT whose message
// starts with "<field>: " and contains each of `parts` (the bad value, the
// allowed range).
void ExpectInvalid(const SweepSpec& spec, int nranks, absl::string_view field,
                   std::initializer_list<absl::string_view> parts) {
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, nranks);
  ASSERT_FALSE(resolved.ok()) << "expected an error naming " << field;
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(resolved.status().message());
  EXPECT_THAT(message, StartsWith(absl::StrCat(field, ": ")));
  for (absl::string_view part : parts) {
    EXPECT_THAT(message, HasSubstr(std::string(part)));
  }
  // Expand reports the same error.
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, nranks);
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.status(), resolved.status());
}

bool SameStep(const Step& a, const Step& b) {
  return a.index == b.index && a.op == b.op && a.bytes == b.bytes &&
         a.count == b.count && a.dtype == b.dtype && a.redop == b.redop &&
         a.root == b.root && a.in_place == b.in_place;
}

TEST(PlacementTest, NamesRoundTrip) {
  for (Placement p :
       {Placement::kOutOfPlace, Placement::kInPlace, Placement::kBoth}) {
    absl::StatusOr<Placement> parsed = ParsePlacement(PlacementName(p));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_EQ(PlacementName(Placement::kOutOfPlace), "out_of_place");
  EXPECT_EQ(PlacementName(Placement::kInPlace), "in_place");
  EXPECT_EQ(PlacementName(Placement::kBoth), "both");
  absl::StatusOr<Placement> upper = ParsePlacement("IN_PLACE");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, Placement::kInPlace);
}

TEST(ValidateTest, DefaultsAreValid) {
  for (int nranks : {1, 2, 3, 8, 1024}) {
    absl::StatusOr<ResolvedSpec> resolved = Validate(SweepSpec{}, nranks);
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    EXPECT_THAT(resolved->ops, ElementsAre(Op::kAllReduce));
    EXPECT_EQ(resolved->dtype, DType::kFloat);
    EXPECT_EQ(resolved->redop, RedOp::kSum);
    EXPECT_EQ(resolved->placement, Placement::kBoth);
  }
}

TEST(ValidateTest, ResolvesNamesAndDropsDuplicateOps) {
  SweepSpec spec;
  spec.ops = {"all_gather", "allreduce", "ALL_REDUCE", "pt2pt", "all_gather"};
  spec.dtype = "bf16";
  spec.redop = "MAX";
  spec.placement = "in_place";
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 4);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_THAT(resolved->ops,
              ElementsAre(Op::kAllGather, Op::kAllReduce, Op::kSendRecv));
  EXPECT_EQ(resolved->dtype, DType::kBfloat16);
  EXPECT_EQ(resolved->redop, RedOp::kMax);
  EXPECT_EQ(resolved->placement, Placement::kInPlace);
}

TEST(ValidateTest, MinBytesGreaterThanMaxBytes) {
  SweepSpec spec;
  spec.min_bytes = 2 * kKiB;
  spec.max_bytes = kKiB;
  ExpectInvalid(spec, 2, "min_bytes", {"2K", "1K", "min_bytes <= max_bytes"});
}

TEST(ValidateTest, MinBytesEqualToMaxBytesIsFine) {
  SweepSpec spec;
  spec.min_bytes = kMiB;
  spec.max_bytes = kMiB;
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, MinBytesZero) {
  SweepSpec spec;
  spec.min_bytes = 0;
  ExpectInvalid(spec, 2, "min_bytes", {": 0 ", "1 to 1T"});
}

TEST(ValidateTest, MaxBytesAboveLimit) {
  SweepSpec spec;
  spec.max_bytes = 2 * kTiB;
  ExpectInvalid(spec, 2, "max_bytes", {"2T", "up to 1T"});
  spec.max_bytes = kTiB;
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, ItersZeroAndNegative) {
  for (int iters : {0, -1, kMaxIters + 1}) {
    SCOPED_TRACE(iters);
    SweepSpec spec;
    spec.iters = iters;
    ExpectInvalid(spec, 2, "iters",
                  {absl::StrCat(": ", iters, " "), "1 to 1000000"});
  }
  SweepSpec spec;
  spec.iters = 1;
  EXPECT_TRUE(Validate(spec, 2).ok());
  spec.iters = kMaxIters;
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, WarmupNegative) {
  SweepSpec spec;
  spec.warmup_iters = -1;
  ExpectInvalid(spec, 2, "warmup_iters", {": -1 ", "0 to 100000"});
  spec.warmup_iters = kMaxWarmupIters + 1;
  ExpectInvalid(spec, 2, "warmup_iters", {": 100001 ", "0 to 100000"});
  spec.warmup_iters = 0;
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, UnknownOp) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "bogus_op"};
  ExpectInvalid(spec, 2, "ops", {"'bogus_op'", AllOpNames()});
}

TEST(ValidateTest, NoOps) {
  SweepSpec spec;
  spec.ops = {};
  ExpectInvalid(spec, 2, "ops", {"empty", AllOpNames()});
}

TEST(ValidateTest, UnknownDType) {
  SweepSpec spec;
  spec.dtype = "float128";
  ExpectInvalid(spec, 2, "dtype", {"'float128'", AllDTypeNames()});
}

TEST(ValidateTest, UnknownRedOp) {
  SweepSpec spec;
  spec.redop = "mean";
  ExpectInvalid(spec, 2, "redop", {"'mean'", "sum, prod, min, max, avg"});
}

TEST(ValidateTest, UnknownPlacement) {
  SweepSpec spec;
  spec.placement = "sideways";
  ExpectInvalid(spec, 2, "placement",
                {"'sideways'", "out_of_place, in_place, both"});
}

TEST(ValidateTest, FactorBelowTwoNeedsStepBytes) {
  SweepSpec spec;
  spec.factor = 1.5;
  ExpectInvalid(spec, 2, "factor", {"1.5", "2 to 1024", "step_bytes"});
  // With an arithmetic schedule the factor is not used.
  spec.step_bytes = kKiB;
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 2);
  EXPECT_TRUE(resolved.ok()) << resolved.status();
}

TEST(ValidateTest, FactorOutOfRange) {
  for (double factor : {0.0, 1.0, -2.0, 1025.0}) {
    SCOPED_TRACE(factor);
    SweepSpec spec;
    spec.factor = factor;
    ExpectInvalid(spec, 2, "factor",
                  {absl::StrCat(": ", factor, " "), "2 to 1024"});
  }
  SweepSpec spec;
  spec.factor = 1024;
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, StepBytesAboveLimit) {
  SweepSpec spec;
  spec.step_bytes = 2 * kTiB;
  ExpectInvalid(spec, 2, "step_bytes", {"2199023255552", "0 to 1T"});
}

TEST(ValidateTest, RootOutOfRangeForNranks) {
  SweepSpec spec;
  spec.ops = {"broadcast"};
  spec.root = 4;
  ExpectInvalid(spec, 4, "root", {": 4 ", "0 to 3", "4 ranks"});
  spec.root = -1;
  ExpectInvalid(spec, 4, "root", {": -1 ", "0 to 3"});
  spec.root = 3;
  EXPECT_TRUE(Validate(spec, 4).ok());
  spec.root = 1;
  ExpectInvalid(spec, 1, "root", {": 1 ", "0 to 0", "1 ranks"});
}

TEST(ValidateTest, TimeoutZero) {
  SweepSpec spec;
  spec.timeout = absl::ZeroDuration();
  ExpectInvalid(spec, 2, "timeout", {": 0 ", "more than 0s, up to 1h"});
  spec.timeout = absl::Seconds(-1);
  ExpectInvalid(spec, 2, "timeout", {"-1s", "more than 0s, up to 1h"});
  spec.timeout = absl::Hours(2);
  ExpectInvalid(spec, 2, "timeout", {"2h", "more than 0s, up to 1h"});
  spec.timeout = absl::Hours(1);
  EXPECT_TRUE(Validate(spec, 2).ok());
  spec.timeout = absl::Milliseconds(1);
  EXPECT_TRUE(Validate(spec, 2).ok());
}

TEST(ValidateTest, NranksBelowOne) {
  ExpectInvalid(SweepSpec{}, 0, "nranks", {": 0 ", "1 or more"});
  ExpectInvalid(SweepSpec{}, -3, "nranks", {": -3 ", "1 or more"});
}

TEST(SizeScheduleTest, DefaultIsPowersOfTwoFrom8To32M) {
  std::vector<uint64_t> sizes = SizeSchedule(SweepSpec{});
  ASSERT_EQ(sizes.size(), 23u);  // 2^3 .. 2^25
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(sizes[i], uint64_t{8} << i);
  }
}

TEST(SizeScheduleTest, GeometricStopsAtMaxBytes) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 100;
  EXPECT_THAT(SizeSchedule(spec), ElementsAre(8u, 16u, 32u, 64u));
  spec.min_bytes = 1;
  spec.factor = 3;
  EXPECT_THAT(SizeSchedule(spec), ElementsAre(1u, 3u, 9u, 27u, 81u));
  // Non-integer factors round down: 8, 20, 50, 125.
  spec.min_bytes = 8;
  spec.max_bytes = 200;
  spec.factor = 2.5;
  EXPECT_THAT(SizeSchedule(spec), ElementsAre(8u, 20u, 50u, 125u));
  spec.min_bytes = spec.max_bytes = 64;
  EXPECT_THAT(SizeSchedule(spec), ElementsAre(64u));
}

TEST(SizeScheduleTest, ArithmeticWithStepBytes) {
  SweepSpec spec;
  spec.min_bytes = 1 * kKiB;
  spec.max_bytes = 4 * kKiB;
  spec.step_bytes = kKiB;
  spec.factor = 1.5;  // ignored
  EXPECT_THAT(SizeSchedule(spec), ElementsAre(1024u, 2048u, 3072u, 4096u));
}

TEST(SizeScheduleTest, MoreThan64SizesIsFine) {
  SweepSpec spec;
  spec.min_bytes = 1;
  spec.max_bytes = kMiB;
  spec.step_bytes = kKiB;
  std::vector<uint64_t> sizes = SizeSchedule(spec);
  // 1 + k * 1024 <= 1048576 for k = 0 .. 1023.
  ASSERT_EQ(sizes.size(), 1024u);
  EXPECT_EQ(sizes.front(), 1u);
  EXPECT_EQ(sizes[1], 1025u);
  EXPECT_EQ(sizes.back(), 1u + 1023u * 1024u);
}

TEST(ExpandTest, IsDeterministic) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "all_gather", "alltoall", "broadcast"};
  spec.min_bytes = 8;
  spec.max_bytes = kMiB;
  spec.root = 1;
  absl::StatusOr<std::vector<Step>> first = Expand(spec, 3);
  absl::StatusOr<std::vector<Step>> second = Expand(spec, 3);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(first->size(), second->size());
  for (size_t i = 0; i < first->size(); ++i) {
    EXPECT_TRUE(SameStep((*first)[i], (*second)[i])) << i;
  }
}

TEST(ExpandTest, ForEachOpForEachSizeOutOfPlaceThenInPlace) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "all_gather"};
  spec.min_bytes = 8;
  spec.max_bytes = 32;
  spec.dtype = "float";
  spec.redop = "min";
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  struct Want {
    Op op;
    uint64_t bytes;
    bool in_place;
  };
  const Want kWant[] = {
      {Op::kAllReduce, 8, false},  {Op::kAllReduce, 8, true},
      {Op::kAllReduce, 16, false}, {Op::kAllReduce, 16, true},
      {Op::kAllReduce, 32, false}, {Op::kAllReduce, 32, true},
      {Op::kAllGather, 8, false},  {Op::kAllGather, 8, true},
      {Op::kAllGather, 16, false}, {Op::kAllGather, 16, true},
      {Op::kAllGather, 32, false}, {Op::kAllGather, 32, true},
  };
  ASSERT_EQ(steps->size(), std::size(kWant));
  for (size_t i = 0; i < steps->size(); ++i) {
    SCOPED_TRACE(i);
    const Step& step = (*steps)[i];
    EXPECT_EQ(step.index, static_cast<int>(i));
    EXPECT_EQ(step.op, kWant[i].op);
    EXPECT_EQ(step.bytes, kWant[i].bytes);
    EXPECT_EQ(step.count, kWant[i].bytes / 4);
    EXPECT_EQ(step.in_place, kWant[i].in_place);
    EXPECT_EQ(step.dtype, DType::kFloat);
    EXPECT_EQ(step.redop, RedOp::kMin);
    EXPECT_EQ(step.root, -1);
  }
}

TEST(ExpandTest, AllToAllAndSendRecvGetNoInPlaceStep) {
  SweepSpec spec;
  spec.ops = {"alltoall", "sendrecv"};
  spec.min_bytes = 64;
  spec.max_bytes = 256;
  for (const char* placement : {"both", "out_of_place", "in_place"}) {
    SCOPED_TRACE(placement);
    spec.placement = placement;
    absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
    ASSERT_TRUE(steps.ok()) << steps.status();
    ASSERT_EQ(steps->size(), 6u);  // 2 ops x 3 sizes, out of place only
    for (const Step& step : *steps) EXPECT_FALSE(step.in_place);
    EXPECT_EQ((*steps)[0].op, Op::kAllToAll);
    EXPECT_EQ((*steps)[3].op, Op::kSendRecv);
  }
}

TEST(ExpandTest, PlacementSelectsVariants) {
  SweepSpec spec;
  spec.min_bytes = 64;
  spec.max_bytes = 256;
  spec.placement = "out_of_place";
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), 3u);
  for (const Step& step : *steps) EXPECT_FALSE(step.in_place);

  spec.placement = "in_place";
  steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), 3u);
  for (const Step& step : *steps) EXPECT_TRUE(step.in_place);
  EXPECT_EQ((*steps)[2].index, 2);
}

TEST(ExpandTest, RootedOpsCarryTheRoot) {
  SweepSpec spec;
  spec.ops = {"broadcast", "reduce", "gather", "scatter", "all_reduce"};
  spec.min_bytes = spec.max_bytes = 1024;
  spec.root = 2;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), 10u);
  for (const Step& step : *steps) {
    EXPECT_EQ(step.root, step.op == Op::kAllReduce ? -1 : 2) << OpName(step.op);
  }
}

TEST(ExpandTest, BytesAreRoundedToWholeSplitCounts) {
  // 100 bytes of float over 3 ranks: all_gather takes 24 elements (96 B),
  // all_reduce 25 (100 B).
  SweepSpec spec;
  spec.ops = {"all_gather", "all_reduce"};
  spec.min_bytes = spec.max_bytes = 100;
  spec.placement = "out_of_place";
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 3);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].count, 24u);
  EXPECT_EQ((*steps)[0].bytes, 96u);
  EXPECT_EQ((*steps)[1].count, 25u);
  EXPECT_EQ((*steps)[1].bytes, 100u);
}

TEST(ExpandTest, SizesTooSmallForSplitOpsAreDropped) {
  // Float over 4 ranks: split ops need 16 bytes, all_reduce 4.
  SweepSpec spec;
  spec.ops = {"all_reduce", "all_gather"};
  spec.min_bytes = 4;
  spec.max_bytes = 64;
  spec.placement = "out_of_place";
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  std::vector<uint64_t> all_reduce;
  std::vector<uint64_t> all_gather;
  for (const Step& step : *steps) {
    (step.op == Op::kAllReduce ? all_reduce : all_gather).push_back(step.bytes);
  }
  EXPECT_THAT(all_reduce, ElementsAre(4u, 8u, 16u, 32u, 64u));
  EXPECT_THAT(all_gather, ElementsAre(16u, 32u, 64u));
  for (size_t i = 0; i < steps->size(); ++i) {
    EXPECT_EQ((*steps)[i].index, static_cast<int>(i));
  }
}

TEST(ExpandTest, NoStepAtAllIsRefused) {
  SweepSpec spec;
  spec.ops = {"all_gather"};
  spec.min_bytes = spec.max_bytes = 8;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(steps.status().message()),
              StartsWith("max_bytes: 8 "));
  // all_gather of float over 4 ranks needs 4 x 4 = 16 bytes.
  EXPECT_THAT(std::string(steps.status().message()), HasSubstr("16 bytes"));
}

TEST(ExpandTest, NoStepMessageGivesTheSmallestSizeAnyOpCouldRun) {
  // all_reduce does not split: one double (8 bytes) is enough, whatever
  // nranks is.
  SweepSpec spec;
  spec.ops = {"all_reduce", "all_gather"};
  spec.dtype = "double";
  spec.min_bytes = spec.max_bytes = 4;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
  ASSERT_FALSE(steps.ok());
  EXPECT_THAT(std::string(steps.status().message()),
              StartsWith("max_bytes: 4 "));
  EXPECT_THAT(std::string(steps.status().message()), HasSubstr(" 8 bytes"));
  spec.min_bytes = spec.max_bytes = 8;
  EXPECT_TRUE(Expand(spec, 4).ok());
}

TEST(ExpandTest, MoreThan64SizesIsFine) {
  SweepSpec spec;
  spec.min_bytes = 1;
  spec.max_bytes = kMiB;
  spec.step_bytes = kKiB;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  // Size 1 holds no float; sizes 1 + 1024k hold 256k floats (k = 1..1023),
  // each out of place and in place.
  ASSERT_EQ(steps->size(), 2046u);
  EXPECT_EQ(steps->front().bytes, 1024u);
  EXPECT_FALSE(steps->front().in_place);
  EXPECT_EQ((*steps)[1].bytes, 1024u);
  EXPECT_TRUE((*steps)[1].in_place);
  EXPECT_EQ(steps->back().bytes, 1023u * 1024u);
  EXPECT_EQ(steps->back().index, 2045);
}

TEST(ExpandTest, ExactlyTheStepLimitIsFine) {
  SweepSpec spec;
  spec.dtype = "int8";
  spec.min_bytes = 1;
  spec.max_bytes = kMaxSteps;
  spec.step_bytes = 1;
  spec.placement = "out_of_place";
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->size(), kMaxSteps);

  // kMaxSteps / 2 sizes x 2 placements.
  spec.max_bytes = kMaxSteps / 2;
  spec.placement = "both";
  steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->size(), kMaxSteps);
}

void ExpectTooManySteps(const SweepSpec& spec, int nranks) {
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, nranks);
  ASSERT_FALSE(steps.ok()) << steps->size() << " steps, up to "
                           << FormatByteSize(steps->back().bytes);
  EXPECT_EQ(steps.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(steps.status().message()), HasSubstr("4096"));
}

TEST(ExpandTest, MoreThanTheStepLimitIsRefused) {
  SweepSpec spec;
  spec.dtype = "int8";
  spec.min_bytes = 1;
  spec.max_bytes = kMaxSteps + 1;
  spec.step_bytes = 1;
  spec.placement = "out_of_place";
  ExpectTooManySteps(spec, 2);

  // kMaxSteps / 2 + 1 sizes x 2 placements.
  spec.max_bytes = kMaxSteps / 2 + 1;
  spec.placement = "both";
  ExpectTooManySteps(spec, 2);

  // 2 ops x 2 placements x (kMaxSteps / 4 + 1) sizes.
  spec.ops = {"all_reduce", "broadcast"};
  spec.max_bytes = kMaxSteps / 4 + 1;
  ExpectTooManySteps(spec, 2);

  // A million sizes.
  spec.ops = {"all_reduce"};
  spec.max_bytes = kMiB;
  ExpectTooManySteps(spec, 2);
}

TEST(ExpandTest, StepLimitHoldsWhenSmallSizesAreDropped) {
  // 1M sizes of 1 byte step. The first sizes hold no whole split count, but
  // the schedule as a whole is far over the limit and must not be cut short
  // silently.
  SweepSpec spec;
  spec.dtype = "double";
  spec.min_bytes = 1;
  spec.max_bytes = kMiB;
  spec.step_bytes = 1;
  spec.placement = "out_of_place";
  ExpectTooManySteps(spec, 2);

  spec.ops = {"all_gather"};
  spec.dtype = "float";
  ExpectTooManySteps(spec, 8);
  // So many ranks that none of the first kMaxSteps sizes can be split.
  ExpectTooManySteps(spec, 4096);
}

TEST(MaxBufferBytesTest, LargestSendPlusReceiveOverSteps) {
  EXPECT_EQ(MaxBufferBytes({}, 4), 0u);

  Step all_gather;
  all_gather.op = Op::kAllGather;
  all_gather.count = 24;
  all_gather.bytes = 96;
  all_gather.dtype = DType::kFloat;
  // Out of place over 3 ranks: send 8 + receive 24 floats = 128 bytes.
  EXPECT_EQ(MaxBufferBytes({all_gather}, 3), 128u);
  // In place: one buffer of 24 floats.
  all_gather.in_place = true;
  EXPECT_EQ(MaxBufferBytes({all_gather}, 3), 96u);

  Step all_reduce;
  all_reduce.op = Op::kAllReduce;
  all_reduce.count = 25;
  all_reduce.bytes = 200;
  all_reduce.dtype = DType::kDouble;
  // Out of place: 2 x 25 doubles.
  EXPECT_EQ(MaxBufferBytes({all_gather, all_reduce}, 3), 400u);
  all_reduce.in_place = true;
  EXPECT_EQ(MaxBufferBytes({all_gather, all_reduce}, 3), 200u);
}

TEST(MaxBufferBytesTest, OfAnExpandedSweep) {
  SweepSpec spec;
  spec.ops = {"reduce_scatter", "all_reduce"};
  spec.min_bytes = 1024;
  spec.max_bytes = kMiB;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 4);
  ASSERT_TRUE(steps.ok()) << steps.status();
  // Largest: 1 MiB out of place, send and receive (all_reduce): 2 MiB.
  EXPECT_EQ(MaxBufferBytes(*steps, 4), 2 * kMiB);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

// Bounds on what a client can put into a spec (limits.h).
TEST(SpecBoundsTest, ThreeHundredThousandOpsAreRefusedBeforeParsing) {
  SweepSpec spec;
  spec.ops.assign(300000, "all_reduce");
  ExpectInvalid(spec, 2, "ops", {"300000 entries", "allowed: 1 to 32"});
}

TEST(SpecBoundsTest, ThirtyTwoOpsWithDuplicatesAreFine) {
  SweepSpec spec;
  spec.ops.assign(kMaxOpsPerSpec, "all_reduce");
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 2);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_THAT(resolved->ops, ElementsAre(Op::kAllReduce));
}

TEST(SpecBoundsTest, AThreeMegabyteOpNameIsQuotedByAShortPrefix) {
  SweepSpec spec;
  spec.ops = {"all_reduce", std::string(3 << 20, 'x')};
  absl::StatusOr<ResolvedSpec> resolved = Validate(spec, 2);
  ASSERT_FALSE(resolved.ok());
  const std::string message(resolved.status().message());
  EXPECT_LT(message.size(), 200u) << message.substr(0, 300);
  ExpectInvalid(spec, 2, "ops",
                {"'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'",
                 "is 3145728 bytes long", "allowed: 1 to 32 bytes"});
}

TEST(SpecBoundsTest, LongDtypeRedopAndPlacementAreRefused) {
  const std::string long_name(33, 'z');
  SweepSpec spec;
  spec.dtype = long_name;
  ExpectInvalid(spec, 2, "dtype", {"33 bytes long", "1 to 32"});
  spec = SweepSpec();
  spec.redop = long_name;
  ExpectInvalid(spec, 2, "redop", {"33 bytes long", "1 to 32"});
  spec = SweepSpec();
  spec.placement = long_name;
  ExpectInvalid(spec, 2, "placement", {"33 bytes long", "1 to 32"});
}

TEST(SpecBoundsTest, UnknownNamesAreQuotedEscaped) {
  SweepSpec spec;
  spec.ops = {"all_reduce\nI 00:00:00 forged"};
  ExpectInvalid(spec, 2, "ops",
                {"unknown op 'all_reduce\\nI 00:00:00 forged'"});
  spec = SweepSpec();
  spec.dtype = "flo\tat";
  ExpectInvalid(spec, 2, "dtype", {"unknown type 'flo\\tat'"});
}

TEST(SpecBoundsTest, EveryOpAtEveryFactorTwoSizeFitsTheStepBound) {
  SweepSpec spec;
  spec.ops = {"all_reduce", "all_gather", "reduce_scatter",
              "broadcast",  "reduce",     "alltoall",
              "sendrecv",   "gather",     "scatter"};
  spec.dtype = "int8";
  spec.min_bytes = 1;
  spec.max_bytes = kTiB;
  absl::StatusOr<std::vector<Step>> steps = Expand(spec, 2);
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_LE(steps->size(), kMaxSteps);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
