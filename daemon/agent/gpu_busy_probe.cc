#include "daemon/agent/gpu_busy_probe.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/core/gpu_busy.h"
#include "daemon/core/log.h"

namespace fabricpulse::agent {
namespace {

bool PidExists(int64_t pid) {
  if (pid <= 0 || pid > INT32_MAX) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// The GPU memory NVML lists for worker `pid` on one GPU: the sum of its
// entries, 0 when it is not listed (no CUDA context: before its first sweep
// or after an idle release). nullopt when it cannot be told: NVML's pids
// are another namespace's, the worker has no pid, or an entry has no
// figure.
std::optional<uint64_t> WorkerMemory(
    const std::vector<nvml::ComputeProcess>& listing, int64_t pid,
    bool pids_local) {
  if (!pids_local || pid <= 0) return std::nullopt;
  uint64_t bytes = 0;
  for (const nvml::ComputeProcess& p : listing) {
    if (p.pid != pid) continue;
    if (!p.used_bytes) return std::nullopt;
    bytes += *p.used_bytes;
  }
  return bytes;
}

}  // namespace

GpuBusyProbe::GpuBusyProbe(std::shared_ptr<nvml::Nvml> nvml,
                           GpuBusyProbeOptions options)
    : nvml_(std::move(nvml)), options_(std::move(options)) {}

GpuBusyProbe::~GpuBusyProbe() { Stop(); }

void GpuBusyProbe::Start() {
  thread_ = std::thread([this] { Run(); });
}

void GpuBusyProbe::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void GpuBusyProbe::Run() {
  while (true) {
    PollOnce();
    absl::MutexLock lock(&mu_);
    auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopping_ || poll_now_;
    };
    mu_.AwaitWithTimeout(absl::Condition(&woken), watches_ > 0
                                                      ? options_.sweep_interval
                                                      : options_.interval);
    if (stopping_) return;
    poll_now_ = false;
  }
}

GpuBusyProbe::SweepWatch::SweepWatch(GpuBusyProbe* probe) : probe_(probe) {
  if (probe_ == nullptr) return;
  absl::MutexLock lock(&probe_->mu_);
  if (probe_->watches_++ == 0) probe_->poll_now_ = true;
}

GpuBusyProbe::SweepWatch::~SweepWatch() {
  if (probe_ == nullptr) return;
  absl::MutexLock lock(&probe_->mu_);
  probe_->watches_--;
}

std::optional<v1::PreemptedEvent> GpuBusyProbe::ForeignProcess(
    const std::vector<v1::WorkerInfo>& workers) const {
  absl::MutexLock lock(&mu_);
  for (const v1::WorkerInfo& w : workers) {
    if (w.gpu() < 0) continue;
    auto it = gpus_.find(w.gpu());
    if (it == gpus_.end() || it->second.other_processes == 0) continue;
    v1::PreemptedEvent event;
    event.set_gpu(w.gpu());
    event.set_other_processes(it->second.other_processes);
    event.set_local_index(w.local_index());
    return event;
  }
  return std::nullopt;
}

void GpuBusyProbe::PollOnce() {
  absl::MutexLock poll_lock(&poll_mu_);
  // Our live workers' pids by GPU.
  std::map<int, std::vector<int64_t>> ours;
  const std::vector<v1::WorkerInfo> workers = options_.workers();
  for (const v1::WorkerInfo& w : workers) {
    if (w.gpu() < 0) continue;
    std::vector<int64_t>& pids = ours[w.gpu()];
    if (w.pid() > 0) pids.push_back(w.pid());
  }
  std::vector<core::GpuProcesses> views;
  std::map<int, std::vector<nvml::ComputeProcess>> listings;
  std::map<int, std::string> errors;
  for (const auto& [gpu, pids] : ours) {
    auto listed = nvml_->ComputeProcesses(gpu);
    if (!listed.ok()) {
      errors[gpu] = std::string(listed.status().message());
      continue;
    }
    core::GpuProcesses view;
    view.gpu = gpu;
    for (const nvml::ComputeProcess& p : *listed) {
      view.compute_pids.push_back(p.pid);
    }
    view.worker_pids = pids;
    views.push_back(std::move(view));
    listings[gpu] = std::move(*listed);
  }
  const bool pids_local = core::NvmlPidsAreLocal(
      views, options_.pid_exists ? options_.pid_exists : PidExists);

  std::map<int, GpuState> now;
  for (const auto& [gpu, error] : errors) now[gpu].error = error;
  for (const core::GpuProcesses& view : views) {
    now[view.gpu].other_processes =
        core::OtherComputeProcesses(view, pids_local);
  }
  bool changed = false;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [gpu, state] : now) {
      auto old = gpus_.find(gpu);
      const bool was_busy =
          old != gpus_.end() && old->second.other_processes > 0;
      const bool busy = state.other_processes > 0;
      if (busy != was_busy) {
        changed = true;
        FP_LOG_INFO(absl::StrCat(
            "GPU ", gpu,
            busy ? absl::StrCat(" busy: ", state.other_processes,
                                " other compute process(es) (NVML",
                                pids_local ? "" : ", counted: host pids", ")")
                 : " free: no other compute process (NVML)"));
      }
      const std::string old_error = old != gpus_.end() ? old->second.error : "";
      if (state.error != old_error) {
        if (!state.error.empty()) {
          FP_LOG_WARNING(absl::StrCat(
              "GPU ", gpu, ": busy check failed, counted free: ", state.error));
        } else {
          FP_LOG_INFO(absl::StrCat("GPU ", gpu, ": busy check answers again"));
        }
      }
    }
    gpus_ = now;
  }
  if (options_.metrics != nullptr) {
    for (const auto& [gpu, state] : now) {
      options_.metrics->GpuBusy(gpu, state.other_processes > 0);
    }
    for (const v1::WorkerInfo& w : workers) {
      if (w.gpu() < 0) continue;
      auto listing = listings.find(w.gpu());
      options_.metrics->WorkerGpuMemory(
          w.local_index(), w.gpu(),
          listing == listings.end()
              ? std::nullopt
              : WorkerMemory(listing->second, w.pid(), pids_local));
    }
  }
  if (changed && options_.on_change) options_.on_change();
}

void GpuBusyProbe::Annotate(v1::AgentInfo& info) const {
  absl::MutexLock lock(&mu_);
  for (v1::WorkerInfo& w : *info.mutable_workers()) {
    auto it = gpus_.find(w.gpu());
    const int others = it != gpus_.end() ? it->second.other_processes : 0;
    w.set_gpu_busy(others > 0);
    w.set_gpu_other_processes(others);
  }
}

std::unique_ptr<GpuBusyProbe> MakeGpuBusyProbe(
    const std::vector<int>& gpus,
    absl::StatusOr<std::shared_ptr<nvml::Nvml>> nvml,
    GpuBusyProbeOptions options) {
  if (std::none_of(gpus.begin(), gpus.end(), [](int g) { return g >= 0; })) {
    return nullptr;
  }
  if (!nvml.ok()) {
    FP_LOG_INFO(
        absl::StrCat("busy-GPU check off (sweeps on this node are "
                     "neither refused nor held back, and never yield): ",
                     nvml.status().message()));
    return nullptr;
  }
  if (const char* visible = getenv("CUDA_VISIBLE_DEVICES")) {
    FP_LOG_WARNING(absl::StrCat(
        "CUDA_VISIBLE_DEVICES=", visible,
        " is set: the busy-GPU check takes --gpus as NVML (nvidia-smi) "
        "indices, which CUDA_VISIBLE_DEVICES does not renumber"));
  }
  FP_LOG_INFO("busy-GPU check on (NVML, every " +
              absl::FormatDuration(options.interval) + ", every " +
              absl::FormatDuration(options.sweep_interval) +
              " while a sweep runs)");
  return std::make_unique<GpuBusyProbe>(std::move(*nvml), std::move(options));
}

}  // namespace fabricpulse::agent
