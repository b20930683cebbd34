// A worker expands --max-bytes auto only as the coordinator resolved it.
#include "daemon/worker/worker_sweep_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fabricpulse::worker {
namespace {

using ::testing::HasSubstr;

v1::WorkerSweepRequest AutoRequest() {
  v1::WorkerSweepRequest request;
  request.set_rank(1);
  request.set_nranks(2);
  v1::SweepSpec* spec = request.mutable_spec();
  spec->add_ops("all_reduce");
  spec->add_ops("all_gather");
  spec->set_min_bytes(1024);
  spec->set_placement("out_of_place");
  spec->mutable_max_bytes_auto()->set_fraction(0.5);
  return request;
}

TEST(WorkerSweepCheckTest, UnresolvedMaxBytesAutoIsRefused) {
  auto checked = CheckWorkerSweep(AutoRequest(), "gloo");
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(checked.status().message()),
              HasSubstr("max_bytes: auto:0.5 has no size for all_reduce"));
}

TEST(WorkerSweepCheckTest, ResolvedMaxBytesAutoExpandsEachOpToItsSize) {
  v1::WorkerSweepRequest request = AutoRequest();
  v1::MaxBytesAuto* resolved = request.mutable_spec()->mutable_max_bytes_auto();
  v1::OpMaxBytes* ar = resolved->add_ops();
  ar->set_op("all_reduce");
  ar->set_max_bytes(4096);
  v1::OpMaxBytes* ag = resolved->add_ops();
  ag->set_op("all_gather");
  ag->set_max_bytes(16384);
  request.mutable_spec()->set_max_bytes(16384);
  auto checked = CheckWorkerSweep(request, "gloo");
  ASSERT_TRUE(checked.ok()) << checked.status();
  std::vector<std::pair<std::string, uint64_t>> steps;
  for (const core::Step& s : checked->steps) {
    steps.emplace_back(std::string(core::OpName(s.op)), s.bytes);
  }
  EXPECT_EQ(steps, (std::vector<std::pair<std::string, uint64_t>>{
                       {"all_reduce", 1024},
                       {"all_reduce", 2048},
                       {"all_reduce", 4096},
                       {"all_gather", 1024},
                       {"all_gather", 2048},
                       {"all_gather", 4096},
                       {"all_gather", 8192},
                       {"all_gather", 16384}}));
}

}  // namespace
}  // namespace fabricpulse::worker
