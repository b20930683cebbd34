// The agent's Prometheus series (the contract is docs/metrics.md).
//
// Every family is registered once, at construction, and the node's fixed
// series are created there too. Every series carries node=<this node>. The
// per-rank latency series are a summary of each plan's last sweep on the
// node (two sizes of each op, at most kMaxRankLatencyOps ops, at most
// kMaxRankLatencyPlans plans), so the number of series does not grow with
// sweeps, steps or plans: at most 64 per rank (docs/metrics.md, "Series
// count"). Every step's figures are in the history and the JSON.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "fabricpulse/v1/types.pb.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::agent {

// Plans whose last sweep's per-rank latency is exported (the least
// recently swept plan's series go when another comes), and ops of a sweep
// (the first ones to report; later ops are not exported).
inline constexpr size_t kMaxRankLatencyPlans = 4;
inline constexpr size_t kMaxRankLatencyOps = 8;

// The sweep a rank's step figure belongs to.
struct RankLatencySweep {
  std::string sweep_id;
  std::string plan;       // "" or "adhoc": exported as plan="adhoc"
  std::string placement;  // the spec's: in_place, out_of_place or both
};

// Thread-safe: every method may be called from any thread, concurrently
// (prometheus-cpp's metrics and families are).
class AgentMetrics {
 public:
  // Registers the agent's families in `registry`, which must outlive this
  // object, and exports fabricpulse_agent_worker_restarts_total,
  // fabricpulse_agent_worker_abort_kills_total,
  // fabricpulse_agent_workers and fabricpulse_agent_workers_ready for `node`
  // at 0. Throws (prometheus-cpp) only if a family of the same name but
  // another type is already registered there: a programming error.
  explicit AgentMetrics(prometheus::Registry& registry, std::string node);

  AgentMetrics(const AgentMetrics&) = delete;
  AgentMetrics& operator=(const AgentMetrics&) = delete;

  // A worker died unexpectedly (or was killed after an abort that followed
  // a failure) and is being restarted: increments
  // fabricpulse_agent_worker_restarts_total{node}.
  void WorkerRestarted();

  // A worker did not return within the kill grace of an abort an operator
  // requested, and was killed and respawned: increments
  // fabricpulse_agent_worker_abort_kills_total{node}. Not a fault: not in
  // the restarts counter.
  void WorkerKilledOnRequestedAbort();

  // Sets fabricpulse_agent_workers{node} (workers configured) and
  // fabricpulse_agent_workers_ready{node}.
  void SetWorkers(int configured, int ready);

  // Sets fabricpulse_agent_rank_latency_seconds{node, rank, plan, op,
  // size}: global rank `rank`'s mean time per op in step `key` of `sweep`,
  // kept only for the smallest and the largest size of each op in the
  // plan's last sweep on this node (size: decimal bytes). One placement
  // counts: out_of_place unless the spec ran in_place only; one dtype: the
  // op's first. The first step of a plan's new sweep removes the plan's
  // earlier series; a size passed by a larger one loses its series.
  void RankLatency(const RankLatencySweep& sweep, int rank,
                   const v1::StepKey& key, double mean_seconds);

  // Sets fabricpulse_agent_gpu_busy{node, gpu} to 1 when other compute
  // processes use GPU `gpu`, 0 otherwise. The NVML probe
  // (gpu_busy_probe.h) calls it at each poll; the series is absent for CPU
  // ranks and on nodes without NVML.
  void GpuBusy(int gpu, bool busy);

  // Sets fabricpulse_agent_worker_gpu_memory_bytes{node, worker, gpu}: the
  // GPU memory NVML lists for local worker `worker` on NVML GPU `gpu` (0
  // while it holds no CUDA context). nullopt removes the series: the figure
  // was not measured (no NVML answer, or NVML's pids are the host's and
  // cannot be matched to the worker). At most one series per worker.
  void WorkerGpuMemory(int worker, int gpu, std::optional<uint64_t> bytes);

  // Sets fabricpulse_agent_nic_up{node, nic} (1 when the interface's
  // operational state is up, else 0) and
  // fabricpulse_agent_nic_speed_bytes{node, nic} (bytes per second, as
  // node_exporter; absent when the interface reports no speed) for each of
  // `nics`, and removes the series of interfaces no longer listed. At most
  // core::kMaxNicsPerAgent interfaces (nic_reader.h), so at most that many
  // series of each.
  void Nics(const std::vector<v1::NicInfo>& nics);

 private:
  const std::string node_;
  prometheus::Counter& restarts_;
  prometheus::Counter& abort_kills_;
  prometheus::Gauge& workers_;
  prometheus::Gauge& workers_ready_;
  prometheus::Family<prometheus::Gauge>& rank_latency_;
  // One plan's exported per-rank series.
  struct RankPlanSeries {
    struct OpSizes {
      std::string dtype;
      uint64_t smallest = 0;
      uint64_t largest = 0;
    };
    std::string sweep_id;
    uint64_t last_used = 0;
    std::map<std::string, OpSizes> ops;
    // (op, size, rank) -> its series.
    std::map<std::tuple<std::string, uint64_t, int>, prometheus::Gauge*> series;
  };
  // Removes the plan's series of `op` at `size` (every rank's).
  void RemoveRankSeries(RankPlanSeries& plan, const std::string& op,
                        uint64_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(rank_mu_);
  void RemoveRankSeries(RankPlanSeries& plan)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(rank_mu_);
  absl::Mutex rank_mu_;
  std::map<std::string, RankPlanSeries> rank_plans_ ABSL_GUARDED_BY(rank_mu_);
  uint64_t rank_uses_ ABSL_GUARDED_BY(rank_mu_) = 0;
  prometheus::Family<prometheus::Gauge>& gpu_busy_;
  prometheus::Family<prometheus::Gauge>& worker_gpu_memory_;
  prometheus::Family<prometheus::Gauge>& nic_up_;
  prometheus::Family<prometheus::Gauge>& nic_speed_;
  absl::Mutex nic_mu_;
  std::set<std::string> nic_names_ ABSL_GUARDED_BY(nic_mu_);
};

}  // namespace fabricpulse::agent
