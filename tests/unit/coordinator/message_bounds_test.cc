// The message-size limits of core/limits.h hold at every other bound: the
// largest ListAgents, GetSweep and request each bound allows is built field
// by field at its longest and must fit the receive size the other side
// sets. A new field or a raised bound that breaks this fails here.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/core/limits.h"
#include "daemon/core/sweep_spec.h"
#include "daemon/core/topology_limits.h"
#include "fabricpulse/v1/agent.pb.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "gtest/gtest.h"

namespace fabricpulse {
namespace {

std::string Long(size_t n, char c = 'n') { return std::string(n, c); }

v1::WorkerInfo LongestWorker(int index) {
  v1::WorkerInfo w;
  w.set_local_index(index);
  w.set_incarnation(Long(core::kMaxIdLength, 'i'));
  w.set_ready(true);
  w.set_pid(std::numeric_limits<int32_t>::max());
  w.set_restarts(std::numeric_limits<int32_t>::max());
  w.set_gpu(-1);  // a negative int32 takes 10 bytes
  w.set_gpu_busy(true);
  w.set_gpu_other_processes(std::numeric_limits<int32_t>::max());
  w.set_free_memory_bytes(std::numeric_limits<uint64_t>::max());
  w.set_gpu_model(Long(core::kMaxGpuModelLength, 'm'));
  w.set_pci_bus_id(Long(core::kMaxPciBusIdLength, 'p'));
  for (size_t i = 0; i < core::kMaxNvlinkPeersPerGpu; ++i) {
    w.add_nvlink_peers(1023);  // the largest index: two bytes each
  }
  return w;
}

v1::AgentInfo LongestAgent(int workers) {
  v1::AgentInfo a;
  a.set_node_name(Long(core::kMaxNodeNameLength));
  a.set_address(Long(core::kMaxAddressLength, 'a'));
  a.set_backend(Long(16, 'b'));
  a.set_backend_version(Long(core::kMaxFreeTextLength, 'v'));
  a.set_state("alive");
  a.set_seconds_since_heartbeat(1e9);
  a.set_agent_id(Long(core::kMaxAgentIdLength, 'd'));
  a.set_running_sweep(Long(core::kMaxIdLength, 's'));
  a.set_instance_id(Long(core::kMaxIdLength, 'x'));
  a.set_boot_id(Long(core::kMaxIdLength, 'y'));
  for (int i = 0; i < workers; ++i) *a.add_workers() = LongestWorker(i);
  for (size_t i = 0; i < core::kMaxNicsPerAgent; ++i) {
    v1::NicInfo* nic = a.add_nics();
    nic->set_name(Long(core::kMaxNicNameLength, 'e'));
    nic->set_kind("infiniband");
    nic->set_state("unknown");
    nic->set_speed_bits_per_second(std::numeric_limits<uint64_t>::max());
  }
  return a;
}

TEST(MessageBoundsTest, ListAgentsAtTheAgentAndRankBoundsFitsTheClient) {
  v1::ListAgentsResponse response;
  const int per_agent = core::kMaxRanks / core::kMaxAgentsLimit;
  for (int i = 0; i < core::kMaxAgentsLimit; ++i) {
    *response.add_agents() = LongestAgent(per_agent);
  }
  response.set_membership_epoch(std::numeric_limits<uint64_t>::max());
  const size_t bytes = response.ByteSizeLong();
  RecordProperty("bytes", static_cast<int>(bytes));
  EXPECT_LT(bytes, static_cast<size_t>(core::kMaxClientReceiveBytes)) << bytes;
  // The ranks on the fewest agents (each at the per-agent bound) are no
  // larger: a worker costs the same wherever it is.
  v1::ListAgentsResponse dense;
  for (int i = 0; i < core::kMaxRanks / core::kMaxWorkersPerAgent; ++i) {
    *dense.add_agents() = LongestAgent(core::kMaxWorkersPerAgent);
  }
  EXPECT_LT(dense.ByteSizeLong(), bytes);
}

v1::StepResult LongestResult(int index) {
  v1::StepResult r;
  v1::StepKey* k = r.mutable_step();
  k->set_index(index);
  k->set_op("reduce_scatter");
  k->set_bytes(core::kMaxBytes);
  k->set_count(core::kMaxBytes);
  k->set_dtype("bfloat16");
  k->set_redop("prod");
  k->set_root(-1);
  k->set_in_place(true);
  for (auto set :
       {&v1::StepResult::set_time_seconds,
        &v1::StepResult::set_algbw_bytes_per_second,
        &v1::StepResult::set_busbw_bytes_per_second,
        &v1::StepResult::set_min_rank_time_seconds,
        &v1::StepResult::set_max_rank_time_seconds,
        &v1::StepResult::set_p50_seconds, &v1::StepResult::set_p99_seconds,
        &v1::StepResult::set_baseline_busbw_bytes_per_second,
        &v1::StepResult::set_arrival_lateness_seconds,
        &v1::StepResult::set_baseline_time_seconds}) {
    (r.*set)(1.5);
  }
  r.set_wrong(std::numeric_limits<int64_t>::max());
  r.set_slowest_rank(core::kMaxRanks - 1);
  r.set_regression(true);
  r.set_last_arrival_rank(core::kMaxRanks - 1);
  r.set_baseline_sweeps(1000);
  r.set_iterations(core::kMaxIters);
  for (size_t i = 0; i < core::kMaxWrongRanksPerStep; ++i) {
    (*r.mutable_wrong_by_rank())[core::kMaxRanks - 1 - static_cast<int>(i)] =
        std::numeric_limits<int64_t>::max();
  }
  return r;
}

v1::SweepSpec LongestSpec() {
  v1::SweepSpec spec;
  for (size_t i = 0; i < core::kMaxOpsPerSpec; ++i) {
    spec.add_ops(Long(core::kMaxSpecTokenLength, 'o'));
  }
  spec.set_dtype(Long(core::kMaxSpecTokenLength));
  spec.set_redop(Long(core::kMaxSpecTokenLength));
  spec.set_placement(Long(core::kMaxSpecTokenLength));
  spec.set_min_bytes(core::kMaxBytes);
  spec.set_max_bytes(core::kMaxBytes);
  spec.set_step_bytes(core::kMaxBytes);
  spec.set_factor(1024);
  spec.set_timeout_seconds(3600);
  spec.set_root(-1);
  spec.set_iters(core::kMaxIters);
  spec.set_warmup_iters(core::kMaxWarmupIters);
  // --max-bytes auto resolved: one entry per op (Validate's bound).
  v1::MaxBytesAuto* resolved = spec.mutable_max_bytes_auto();
  resolved->set_fraction(0.123456789);
  resolved->set_free_bytes(std::numeric_limits<uint64_t>::max());
  resolved->set_least_free(Long(core::kMaxLeastFreeLength, 'l'));
  resolved->set_budget_bytes(std::numeric_limits<uint64_t>::max());
  for (size_t i = 0; i < core::kMaxOpsPerSpec; ++i) {
    v1::OpMaxBytes* op = resolved->add_ops();
    op->set_op(Long(core::kMaxSpecTokenLength, 'o'));
    op->set_max_bytes(core::kMaxBytes);
    op->set_buffer_bytes(std::numeric_limits<uint64_t>::max());
  }
  spec.mutable_adaptive()->set_tolerance(0.5);
  spec.mutable_adaptive()->set_min_iters(core::kMaxIters);
  spec.mutable_adaptive()->set_max_iters(core::kMaxIters);
  spec.mutable_adaptive()->set_step_time_cap_seconds(3600);
  return spec;
}

TEST(MessageBoundsTest, GetSweepOfTheLargestSweepFitsTheClient) {
  v1::GetSweepResponse response;
  v1::SweepSummary* s = response.mutable_sweep();
  s->set_sweep_id(Long(core::kMaxIdLength));
  s->set_plan(Long(63));
  s->set_trigger("schedule:" + Long(63));
  s->set_status("interrupted");
  s->set_error(Long(core::kMaxStoredErrorLength + 64, 'e'));
  s->set_nranks(core::kMaxRanks);
  std::string topology = Long(16, 'b') + ":";
  for (size_t i = 0; i < core::kMaxNodesPerSweep; ++i) {
    s->add_nodes(Long(core::kMaxNodeNameLength));
    absl::StrAppend(&topology, Long(core::kMaxNodeNameLength), "x",
                    core::kMaxWorkersPerAgent, ",");
  }
  s->set_topology(topology);
  s->set_backend(Long(16));
  s->set_backend_version(Long(core::kMaxFreeTextLength));
  *s->mutable_spec() = LongestSpec();
  s->set_straggler(Long(512, 's'));
  for (size_t i = 0; i < core::kMaxSteps; ++i) {
    *response.add_results() = LongestResult(static_cast<int>(i));
  }
  const size_t bytes = response.ByteSizeLong();
  RecordProperty("bytes", static_cast<int>(bytes));
  EXPECT_LT(bytes, static_cast<size_t>(core::kMaxClientReceiveBytes)) << bytes;
  // A page of ListSweeps never exceeds its budget by more than one summary,
  // which is itself within the client's size.
  EXPECT_LT(core::kMaxListResponseBytes + response.sweep().ByteSizeLong(),
            static_cast<size_t>(core::kMaxClientReceiveBytes));
}

TEST(MessageBoundsTest, TheLargestRequestsFitTheServers) {
  v1::SweepRequest sweep;
  *sweep.mutable_spec() = LongestSpec();
  for (size_t i = 0; i < core::kMaxNodesPerSweep; ++i) {
    sweep.add_nodes(Long(core::kMaxNodeNameLength));
  }
  sweep.set_plan(Long(63));
  EXPECT_LT(sweep.ByteSizeLong(),
            static_cast<size_t>(core::kCoordinatorMaxRequestBytes));

  v1::RegisterRequest reg;
  *reg.mutable_agent() = LongestAgent(core::kMaxWorkersPerAgent);
  EXPECT_LT(reg.ByteSizeLong(),
            static_cast<size_t>(core::kCoordinatorMaxRequestBytes));
  v1::HeartbeatRequest beat;
  beat.set_agent_id(Long(core::kMaxAgentIdLength));
  for (int i = 0; i < core::kMaxWorkersPerAgent; ++i) {
    *beat.add_workers() = LongestWorker(i);
  }
  EXPECT_LT(beat.ByteSizeLong(),
            static_cast<size_t>(core::kCoordinatorMaxRequestBytes));

  v1::AgentSweepRequest agent_sweep;
  agent_sweep.set_sweep_id(Long(core::kMaxIdLength));
  agent_sweep.set_comm_id(Long(1024));
  agent_sweep.set_nranks(core::kMaxRanks);
  *agent_sweep.mutable_spec() = LongestSpec();
  for (int i = 0; i < core::kMaxWorkersPerAgent; ++i) {
    v1::RankAssignment* a = agent_sweep.add_ranks();
    a->set_local_index(i);
    a->set_rank(core::kMaxRanks - 1);
  }
  agent_sweep.set_coordinator(Long(core::kMaxAddressLength));
  agent_sweep.set_membership_epoch(std::numeric_limits<uint64_t>::max());
  agent_sweep.set_lease_seconds(1e9);
  EXPECT_LT(agent_sweep.ByteSizeLong(),
            static_cast<size_t>(core::kAgentMaxRequestBytes));
}

}  // namespace
}  // namespace fabricpulse
