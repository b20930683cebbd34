#include "tests/integration/fake_gpu_state.h"

#include <stdio.h>
#include <stdlib.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "daemon/common/process.h"
#include "gtest/gtest.h"

namespace fabricpulse::testing {

FakeGpuState::FakeGpuState(const std::string& dir, int gpus)
    : path_(dir + "/fake-nvml-state"), processes_(gpus) {
  Write();
}

void FakeGpuState::Set(int gpu, const std::vector<int64_t>& pids) {
  std::vector<std::string>& out = processes_.at(gpu);
  out.clear();
  for (int64_t pid : pids) out.push_back(absl::StrCat(pid));
  Write();
}

void FakeGpuState::SetWithMemory(
    int gpu, const std::vector<std::pair<int64_t, uint64_t>>& processes) {
  std::vector<std::string>& out = processes_.at(gpu);
  out.clear();
  for (const auto& [pid, bytes] : processes) {
    out.push_back(absl::StrCat(pid, ":", bytes));
  }
  Write();
}

void FakeGpuState::Write() const {
  // The agent's probe reads the file at any moment: it sees the old one or
  // the new one, never half of one.
  const std::string next = path_ + ".next";
  {
    std::ofstream out(next, std::ios::trunc);
    for (const std::vector<std::string>& processes : processes_) {
      out << absl::StrJoin(processes, " ") << "\n";
    }
    ASSERT_TRUE(out.good()) << next;
  }
  ASSERT_EQ(rename(next.c_str(), path_.c_str()), 0) << path_;
}

std::vector<std::string> FakeGpuState::ClusterEnv() const {
  const char* old = getenv("LD_LIBRARY_PATH");
  std::vector<int> gpus;
  for (size_t i = 0; i < processes_.size(); ++i) {
    gpus.push_back(static_cast<int>(i));
  }
  return {
      absl::StrCat("LD_LIBRARY_PATH=", FAKE_NVML_DIR,
                   old != nullptr ? absl::StrCat(":", old) : ""),
      absl::StrCat("FAKE_NVML_STATE_FILE=", path_),
      absl::StrCat("FABRICPULSE_GLOO_PROBE_GPUS=", absl::StrJoin(gpus, ","))};
}

ForeignProcess::ForeignProcess() {
  common::SpawnOptions spawn;
  spawn.argv = {"/bin/sleep", "600"};
  auto pid = common::Spawn(spawn);
  EXPECT_TRUE(pid.ok()) << pid.status();
  if (pid.ok()) pid_ = *pid;
}

ForeignProcess::~ForeignProcess() {
  if (pid_ > 0) common::TerminateProcess(pid_, absl::Seconds(1));
}

}  // namespace fabricpulse::testing
