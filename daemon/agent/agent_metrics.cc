#include "daemon/agent/agent_metrics.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace fabricpulse::agent {

AgentMetrics::AgentMetrics(prometheus::Registry& registry, std::string node)
    : node_(std::move(node)),
      restarts_(prometheus::BuildCounter()
                    .Name("fabricpulse_agent_worker_restarts_total")
                    .Help("Workers restarted after dying unexpectedly or being "
                          "killed after a failure")
                    .Register(registry)
                    .Add({{"node", node_}})),
      abort_kills_(prometheus::BuildCounter()
                       .Name("fabricpulse_agent_worker_abort_kills_total")
                       .Help("Workers killed and respawned because they did "
                             "not return within the grace of an abort an "
                             "operator requested (not faults)")
                       .Register(registry)
                       .Add({{"node", node_}})),
      workers_(prometheus::BuildGauge()
                   .Name("fabricpulse_agent_workers")
                   .Help("Workers configured")
                   .Register(registry)
                   .Add({{"node", node_}})),
      workers_ready_(prometheus::BuildGauge()
                         .Name("fabricpulse_agent_workers_ready")
                         .Help("Workers ready")
                         .Register(registry)
                         .Add({{"node", node_}})),
      rank_latency_(
          prometheus::BuildGauge()
              .Name("fabricpulse_agent_rank_latency_seconds")
              .Help("This rank's mean time per op at the smallest and the "
                    "largest size of each op in its plan's last "
                    "sweep on the node")
              .Register(registry)),
      gpu_busy_(prometheus::BuildGauge()
                    .Name("fabricpulse_agent_gpu_busy")
                    .Help("Other compute processes on the GPU (NVML)")
                    .Register(registry)),
      worker_gpu_memory_(
          prometheus::BuildGauge()
              .Name("fabricpulse_agent_worker_gpu_memory_bytes")
              .Help("GPU memory this worker holds (NVML, per process)")
              .Register(registry)),
      nic_up_(prometheus::BuildGauge()
                  .Name("fabricpulse_agent_nic_up")
                  .Help("1 while the network interface's link is up "
                        "(sysfs operstate), else 0")
                  .Register(registry)),
      nic_speed_(prometheus::BuildGauge()
                     .Name("fabricpulse_agent_nic_speed_bytes")
                     .Help("The network interface's link speed in bytes "
                           "per second (sysfs; node_exporter's "
                           "node_network_speed_bytes)")
                     .Register(registry)) {}

void AgentMetrics::Nics(const std::vector<v1::NicInfo>& nics) {
  absl::MutexLock lock(&nic_mu_);
  std::set<std::string> now;
  for (const v1::NicInfo& nic : nics) {
    const prometheus::Labels labels = {{"node", node_}, {"nic", nic.name()}};
    now.insert(nic.name());
    nic_up_.Add(labels).Set(nic.state() == "up" ? 1 : 0);
    if (nic.has_speed_bits_per_second()) {
      nic_speed_.Add(labels).Set(
          static_cast<double>(nic.speed_bits_per_second()) / 8);
    } else if (nic_speed_.Has(labels)) {
      nic_speed_.Remove(&nic_speed_.Add(labels));
    }
  }
  for (const std::string& gone : nic_names_) {
    if (now.count(gone) > 0) continue;
    const prometheus::Labels labels = {{"node", node_}, {"nic", gone}};
    if (nic_up_.Has(labels)) nic_up_.Remove(&nic_up_.Add(labels));
    if (nic_speed_.Has(labels)) nic_speed_.Remove(&nic_speed_.Add(labels));
  }
  nic_names_ = std::move(now);
}

void AgentMetrics::WorkerRestarted() { restarts_.Increment(); }

void AgentMetrics::WorkerKilledOnRequestedAbort() { abort_kills_.Increment(); }

void AgentMetrics::SetWorkers(int configured, int ready) {
  workers_.Set(configured);
  workers_ready_.Set(ready);
}

void AgentMetrics::RankLatency(const RankLatencySweep& sweep, int rank,
                               const v1::StepKey& key, double mean_seconds) {
  if (key.in_place() != (sweep.placement == "in_place")) return;
  const std::string plan = sweep.plan.empty() ? "adhoc" : sweep.plan;
  absl::MutexLock lock(&rank_mu_);
  auto found = rank_plans_.find(plan);
  if (found == rank_plans_.end()) {
    if (rank_plans_.size() >= kMaxRankLatencyPlans) {
      auto oldest = std::min_element(
          rank_plans_.begin(), rank_plans_.end(), [](auto& a, auto& b) {
            return a.second.last_used < b.second.last_used;
          });
      RemoveRankSeries(oldest->second);
      rank_plans_.erase(oldest);
    }
    found = rank_plans_.emplace(plan, RankPlanSeries{}).first;
  }
  RankPlanSeries& p = found->second;
  p.last_used = ++rank_uses_;
  if (p.sweep_id != sweep.sweep_id) {
    // The plan's earlier sweep (its members or spec may differ).
    RemoveRankSeries(p);
    p.ops.clear();
    p.sweep_id = sweep.sweep_id;
  }
  auto op = p.ops.find(key.op());
  if (op == p.ops.end()) {
    if (p.ops.size() >= kMaxRankLatencyOps) return;
    op = p.ops
             .emplace(
                 key.op(),
                 RankPlanSeries::OpSizes{key.dtype(), key.bytes(), key.bytes()})
             .first;
  }
  RankPlanSeries::OpSizes& sizes = op->second;
  if (key.dtype() != sizes.dtype) return;
  const uint64_t bytes = key.bytes();
  if (bytes < sizes.smallest) {
    const uint64_t passed = sizes.smallest;
    sizes.smallest = bytes;
    if (passed != sizes.largest) RemoveRankSeries(p, key.op(), passed);
  }
  if (bytes > sizes.largest) {
    const uint64_t passed = sizes.largest;
    sizes.largest = bytes;
    if (passed != sizes.smallest) RemoveRankSeries(p, key.op(), passed);
  }
  if (bytes != sizes.smallest && bytes != sizes.largest) return;
  prometheus::Gauge*& series = p.series[{key.op(), bytes, rank}];
  if (series == nullptr) {
    series = &rank_latency_.Add({{"node", node_},
                                 {"rank", absl::StrCat(rank)},
                                 {"plan", plan},
                                 {"op", key.op()},
                                 {"size", absl::StrCat(bytes)}});
  }
  series->Set(mean_seconds);
}

void AgentMetrics::RemoveRankSeries(RankPlanSeries& plan, const std::string& op,
                                    uint64_t size) {
  auto it = plan.series.lower_bound({op, size, INT_MIN});
  while (it != plan.series.end() && std::get<0>(it->first) == op &&
         std::get<1>(it->first) == size) {
    rank_latency_.Remove(it->second);
    it = plan.series.erase(it);
  }
}

void AgentMetrics::RemoveRankSeries(RankPlanSeries& plan) {
  for (auto& [key, series] : plan.series) rank_latency_.Remove(series);
  plan.series.clear();
}

void AgentMetrics::GpuBusy(int gpu, bool busy) {
  if (gpu < 0) return;  // a CPU rank: no GPU, no series
  gpu_busy_.Add({{"node", node_}, {"gpu", absl::StrCat(gpu)}})
      .Set(busy ? 1 : 0);
}

void AgentMetrics::WorkerGpuMemory(int worker, int gpu,
                                   std::optional<uint64_t> bytes) {
  if (gpu < 0) return;  // a CPU rank: no GPU memory, no series
  const prometheus::Labels labels = {{"node", node_},
                                     {"worker", absl::StrCat(worker)},
                                     {"gpu", absl::StrCat(gpu)}};
  if (!bytes) {
    if (worker_gpu_memory_.Has(labels)) {
      worker_gpu_memory_.Remove(&worker_gpu_memory_.Add(labels));
    }
    return;
  }
  worker_gpu_memory_.Add(labels).Set(static_cast<double>(*bytes));
}

}  // namespace fabricpulse::agent
