// The GPUs the stand-in libnvidia-ml.so.1 (tests/fakes/fake_libnvidia_ml.cc)
// shows the real agent, and real processes to list on them: how the
// integration tests put a "foreign compute process" on a GPU of a machine
// without one. The agents account their Gloo ranks to those GPUs through
// the test seam --gloo-probe-gpus (daemon/agent/agent_config.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fabricpulse::testing {

// Not thread-safe.
class FakeGpuState {
 public:
  // `gpus` GPUs, none with a compute process, in a state file in `dir`.
  FakeGpuState(const std::string& dir, int gpus);

  // The compute pids of `gpu` from now on (the file is replaced at once:
  // written beside it, then renamed).
  void Set(int gpu, const std::vector<int64_t>& pids);
  // The same, each process with the GPU memory NVML reports for it.
  void SetWithMemory(
      int gpu, const std::vector<std::pair<int64_t, uint64_t>>& processes);

  // Environment for LocalClusterOptions.env: the stand-in library first on
  // LD_LIBRARY_PATH, its state file, and each agent's ranks accounted to
  // GPUs 0 .. gpus-1 (FABRICPULSE_GLOO_PROBE_GPUS; one rank per GPU).
  std::vector<std::string> ClusterEnv() const;

 private:
  void Write() const;

  const std::string path_;
  // Each GPU's processes as the state file spells them (PID or PID:BYTES).
  std::vector<std::vector<std::string>> processes_;
};

// A real process that is not ours (sleep), for NVML to list; killed and
// reaped when destroyed.
class ForeignProcess {
 public:
  ForeignProcess();
  ~ForeignProcess();
  ForeignProcess(const ForeignProcess&) = delete;
  ForeignProcess& operator=(const ForeignProcess&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace fabricpulse::testing
