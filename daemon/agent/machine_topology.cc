#include "daemon/agent/machine_topology.h"

#include <utility>

namespace fabricpulse::agent {

bool MachineTopology::Facts::operator==(const Facts& other) const {
  if (gpus != other.gpus || nics.size() != other.nics.size()) return false;
  for (size_t i = 0; i < nics.size(); ++i) {
    const v1::NicInfo& a = nics[i];
    const v1::NicInfo& b = other.nics[i];
    if (a.name() != b.name() || a.kind() != b.kind() ||
        a.state() != b.state() ||
        a.has_speed_bits_per_second() != b.has_speed_bits_per_second() ||
        a.speed_bits_per_second() != b.speed_bits_per_second()) {
      return false;
    }
  }
  return true;
}

MachineTopology::MachineTopology(Options options)
    : options_(std::move(options)), nics_(options_.sys_class_net) {
  Facts first = ReadNow(/*quiet=*/false);
  if (options_.metrics != nullptr) options_.metrics->Nics(first.nics);
  absl::MutexLock lock(&mu_);
  confirmed_ = std::move(first);
  last_read_ = options_.clock->Now();
}

MachineTopology::Facts MachineTopology::ReadNow(bool quiet) const {
  Facts facts;
  if (options_.read_gpus) facts.gpus = options_.read_gpus(quiet);
  facts.nics = nics_.Read();
  return facts;
}

void MachineTopology::Take(Facts read) {
  last_read_ = options_.clock->Now();
  if (read == confirmed_) {
    candidate_.reset();
  } else if (candidate_ && *candidate_ == read) {
    confirmed_ = std::move(read);
    candidate_.reset();
  } else {
    candidate_ = std::move(read);
  }
}

void MachineTopology::Annotate(v1::AgentInfo& info) {
  Facts read = ReadNow(/*quiet=*/true);
  if (options_.metrics != nullptr) options_.metrics->Nics(read.nics);
  absl::MutexLock lock(&mu_);
  Take(std::move(read));
  AnnotateGpuFacts(confirmed_.gpus, info);
  info.clear_nics();
  for (const v1::NicInfo& nic : confirmed_.nics) *info.add_nics() = nic;
}

void MachineTopology::AnnotateHeartbeat(v1::HeartbeatRequest& request) {
  // Read outside the lock: NVML and sysfs take a while.
  bool due = false;
  {
    absl::MutexLock lock(&mu_);
    due = options_.clock->Now() - last_read_ >= options_.refresh;
  }
  std::optional<Facts> read;
  if (due) read = ReadNow(/*quiet=*/true);
  absl::MutexLock lock(&mu_);
  if (read) Take(std::move(*read));
  AnnotateGpuFacts(confirmed_.gpus, *request.mutable_workers());
  v1::NicList* nics = request.mutable_nics();
  nics->clear_nics();
  for (const v1::NicInfo& nic : confirmed_.nics) *nics->add_nics() = nic;
}

void MachineTopology::ExportNics() const {
  if (options_.metrics != nullptr) options_.metrics->Nics(nics_.Read());
}

}  // namespace fabricpulse::agent
