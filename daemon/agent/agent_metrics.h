// The agent's Prometheus series (the contract is docs/metrics.md).
//
// Every family is registered once, at construction, and the node's fixed
// series are created there too. Every series carries node=<this node>. The
// per-rank latency series belong to one sweep at a time (the node's last
// sweep, at most kMaxRankLatencySteps steps of it), so the number of series
// does not grow with the number of sweeps (docs/metrics.md, "Series
// count").
#pragma once

#include <cstdint>
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

// Steps of one sweep whose per-rank latency is exported; later steps of a
// longer sweep are not.
inline constexpr size_t kMaxRankLatencySteps = 512;

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

  // Sets fabricpulse_agent_rank_latency_seconds{node, rank, op, dtype,
  // size, placement}: global rank `rank`'s mean time per op in step `key`
  // of sweep `sweep_id` (size: decimal bytes; placement: in_place or
  // out_of_place). The series are those of one sweep: the first step of a
  // new sweep removes the earlier sweep's. Steps beyond the sweep's first
  // kMaxRankLatencySteps are not exported.
  void RankLatency(const std::string& sweep_id, int rank,
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
  // fabricpulse_agent_nic_speed_bits_per_second{node, nic} (absent when the
  // interface reports no speed) for each of `nics`, and removes the series
  // of interfaces no longer listed. At most core::kMaxNicsPerAgent
  // interfaces (nic_reader.h), so at most that many series of each.
  void Nics(const std::vector<v1::NicInfo>& nics);

 private:
  const std::string node_;
  prometheus::Counter& restarts_;
  prometheus::Counter& abort_kills_;
  prometheus::Gauge& workers_;
  prometheus::Gauge& workers_ready_;
  prometheus::Family<prometheus::Gauge>& rank_latency_;
  absl::Mutex rank_mu_;
  std::string rank_sweep_ ABSL_GUARDED_BY(rank_mu_);
  // The steps (op, dtype, size, placement) of rank_sweep_ exported.
  std::set<std::tuple<std::string, std::string, uint64_t, bool>> rank_steps_
      ABSL_GUARDED_BY(rank_mu_);
  std::vector<prometheus::Gauge*> rank_series_ ABSL_GUARDED_BY(rank_mu_);
  prometheus::Family<prometheus::Gauge>& gpu_busy_;
  prometheus::Family<prometheus::Gauge>& worker_gpu_memory_;
  prometheus::Family<prometheus::Gauge>& nic_up_;
  prometheus::Family<prometheus::Gauge>& nic_speed_;
  absl::Mutex nic_mu_;
  std::set<std::string> nic_names_ ABSL_GUARDED_BY(nic_mu_);
};

}  // namespace fabricpulse::agent
