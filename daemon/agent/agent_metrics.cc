#include "daemon/agent/agent_metrics.h"

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
      rank_latency_(prometheus::BuildGauge()
                        .Name("fabricpulse_agent_rank_latency_seconds")
                        .Help("This rank's last mean time per op")
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
                     .Name("fabricpulse_agent_nic_speed_bits_per_second")
                     .Help("The network interface's link speed (sysfs)")
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
          static_cast<double>(nic.speed_bits_per_second()));
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

void AgentMetrics::RankLatency(const std::string& sweep_id, int rank,
                               const v1::StepKey& key, double mean_seconds) {
  absl::MutexLock lock(&rank_mu_);
  if (sweep_id != rank_sweep_) {
    // Another sweep's steps (another plan, placement or member set) must not
    // mix with this one's.
    for (prometheus::Gauge* series : rank_series_) {
      rank_latency_.Remove(series);
    }
    rank_series_.clear();
    rank_steps_.clear();
    rank_sweep_ = sweep_id;
  }
  const auto step =
      std::make_tuple(key.op(), key.dtype(), key.bytes(), key.in_place());
  if (!rank_steps_.count(step)) {
    if (rank_steps_.size() >= kMaxRankLatencySteps) return;
    rank_steps_.insert(step);
  }
  const prometheus::Labels labels = {
      {"node", node_},
      {"rank", absl::StrCat(rank)},
      {"op", key.op()},
      {"dtype", key.dtype()},
      {"size", absl::StrCat(key.bytes())},
      {"placement", key.in_place() ? "in_place" : "out_of_place"}};
  const bool is_new = !rank_latency_.Has(labels);
  prometheus::Gauge& series = rank_latency_.Add(labels);
  if (is_new) rank_series_.push_back(&series);
  series.Set(mean_seconds);
}

void AgentMetrics::GpuBusy(int gpu, bool busy) {
  gpu_busy_.Add({{"node", node_}, {"gpu", absl::StrCat(gpu)}})
      .Set(busy ? 1 : 0);
}

void AgentMetrics::WorkerGpuMemory(int worker, int gpu,
                                   std::optional<uint64_t> bytes) {
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
