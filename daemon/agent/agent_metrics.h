// The agent's Prometheus series (the contract is docs/metrics.md).
//
// Every family is registered once, at construction, and the node's fixed
// series are created there too. Every series carries node=<this node>; the
// other label values (ranks, op names, the plans' size schedules, GPU
// indices) are bounded, so the number of series does not grow with the
// number of sweeps.
#pragma once

#include <cstdint>
#include <string>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace fabricpulse::agent {

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

  // Sets fabricpulse_agent_rank_latency_seconds{node, rank, op, size}:
  // global rank `rank`'s last mean time per op of `op` at `bytes` (size:
  // decimal bytes). The contract has no placement label: a sweep measuring
  // both placements of a size leaves the one measured last.
  void RankLatency(int rank, const std::string& op, uint64_t bytes,
                   double mean_seconds);

  // Sets fabricpulse_agent_gpu_busy{node, gpu} to 1 when other compute
  // processes use GPU `gpu`, 0 otherwise. The NVML probe
  // (gpu_busy_probe.h) calls it at each poll; the series is absent for CPU
  // ranks and on nodes without NVML.
  void GpuBusy(int gpu, bool busy);

 private:
  const std::string node_;
  prometheus::Counter& restarts_;
  prometheus::Counter& abort_kills_;
  prometheus::Gauge& workers_;
  prometheus::Gauge& workers_ready_;
  prometheus::Family<prometheus::Gauge>& rank_latency_;
  prometheus::Family<prometheus::Gauge>& gpu_busy_;
};

}  // namespace fabricpulse::agent
