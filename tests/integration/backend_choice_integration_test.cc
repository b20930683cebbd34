// The agent's and `fabricpulse local`'s backend choice against the real
// binaries, which link neither CUDA nor NCCL (only the worker does): they
// count GPUs through NVML, loaded at run time. On any machine, with a GPU
// and driver or without: an empty CUDA_VISIBLE_DEVICES hides every GPU, and
// a stand-in libnvidia-ml.so.1 (tests/fakes/fake_libnvidia_ml.cc, put first
// on LD_LIBRARY_PATH) shows two.
#include <stdlib.h>

#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// Sets (or, with nullopt, unsets) an environment variable of this process,
// which the binaries it runs inherit, for its lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    Set(value);
  }
  ~ScopedEnv() { Set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void Set(const std::optional<std::string>& value) {
    if (value.has_value()) {
      setenv(name_, value->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  const char* const name_;
  std::optional<std::string> old_;
};

class NoVisibleGpuTest : public ::testing::Test {
 private:
  ScopedEnv cuda_visible_devices_{"CUDA_VISIBLE_DEVICES", ""};
};

// Two GPUs, as far as NVML says (no worker is started on them).
class FakeNvmlTest : public ::testing::Test {
 protected:
  // The GPU count `fabricpulse local` sees, read from its error for more
  // NCCL ranks than any machine here has.
  std::string LocalSees() {
    CliResult r = RunCli({"local", "--backend", "nccl", "--agents", "1",
                          "--ranks", "64", "agents"},
                         30);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    const size_t at = r.err.find("need 64 GPUs; ");
    if (at == std::string::npos) return r.err;
    return r.err.substr(at + 14, r.err.find(' ', at + 14) - at - 14);
  }

  static bool WorkerHasNccl() {
    CliResult r = RunBinary("fabricpulse-worker", {"--backends"}, 30);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return absl::StrContains(r.out, "nccl");
  }

 private:
  ScopedEnv library_path_{
      "LD_LIBRARY_PATH",
      absl::StrCat(FAKE_NVML_DIR,
                   getenv("LD_LIBRARY_PATH") != nullptr
                       ? absl::StrCat(":", getenv("LD_LIBRARY_PATH"))
                       : "")};
  ScopedEnv count_{"FAKE_NVML_DEVICE_COUNT", "2"};
  ScopedEnv cuda_visible_devices_{"CUDA_VISIBLE_DEVICES", std::nullopt};
};

TEST_F(NoVisibleGpuTest, AgentWithNcclStopsWithOneLine) {
  for (std::vector<std::string> extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--gpus", "0"}}) {
    // The backend is chosen before the TLS files are read.
    std::vector<std::string> args = {"--coordinator", "127.0.0.1:1",
                                     "--backend", "nccl", "--insecure"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = RunBinary("fabricpulse-agent", args, 30);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(
        r.err, "--backend: nccl needs a GPU, and none is visible"))
        << r.err;
  }
}

TEST_F(NoVisibleGpuTest, LocalWithNcclStopsWithOneLine) {
  CliResult r = RunCli(
      {"local", "--backend", "nccl", "--agents", "1", "--ranks", "1", "agents"},
      30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(
      r.err, "--backend nccl: 1 agents x 1 ranks need 1 GPUs; 0 visible"))
      << r.err;
}

TEST_F(NoVisibleGpuTest, AutoRunsGlooAndReportsTheWorkersVersion) {
  client::LocalClusterOptions options;
  options.bin_dir = BinDir();
  options.agents = 1;
  options.ranks = 2;
  options.backend = "auto";
  auto cluster = StartCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto stub = Connect((*cluster)->coordinator());
  std::vector<v1::AgentInfo> agents = ListAgents(*stub);
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].backend(), "gloo");
  EXPECT_EQ(agents[0].workers_size(), 2);

  SweepOutcome outcome = RunSweep(*stub, QuickSpec({"all_reduce"}, 1024));
  ASSERT_TRUE(outcome.status.ok()) << outcome.status;
  std::vector<v1::SweepSummary> sweeps = ListSweeps(*stub, 1);
  ASSERT_EQ(sweeps.size(), 1u);
  // The version the workers reported ("gloo X.Y.Z"), not the agent's
  // placeholder ("gloo"): the agent does not link the backend.
  EXPECT_TRUE(absl::StartsWith(sweeps[0].backend_version(), "gloo "))
      << sweeps[0].backend_version();
}

TEST_F(FakeNvmlTest, LocalCountsTheGpusNvmlShows) {
  EXPECT_EQ(LocalSees(), "2");
}

TEST_F(FakeNvmlTest, LocalChecksFlagsAgainstTheRanksItWillRun) {
  // Without --ranks, NCCL runs one rank per visible GPU: eight here, not
  // Gloo's two, and --root is checked against those before anything starts.
  if (!WorkerHasNccl()) GTEST_SKIP() << "the worker is built without NCCL";
  ScopedEnv gpus("FAKE_NVML_DEVICE_COUNT", "8");
  CliResult r = RunCli({"local", "sweep", "--root", "8"}, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(
      r.err, "root: 8 is out of range; allowed: 0 to 7 (8 ranks"))
      << r.err;
}

TEST_F(FakeNvmlTest, LocalAppliesCudaVisibleDevices) {
  for (const auto& [value, visible] :
       std::vector<std::pair<std::string, std::string>>{{"1", "1"},
                                                        {"1,0", "2"},
                                                        {"", "0"},
                                                        {"0,0", "0"},
                                                        {"1,5,0", "1"},
                                                        {"GPU-aa", "1"}}) {
    ScopedEnv visible_devices("CUDA_VISIBLE_DEVICES", value);
    EXPECT_EQ(LocalSees(), visible) << "CUDA_VISIBLE_DEVICES=" << value;
  }
}

TEST_F(FakeNvmlTest, AgentChecksGpusAndRanksAgainstNvml) {
  const bool nccl = WorkerHasNccl();
  for (const auto& [flags, error] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--gpus", "0,5"}, "--gpus: GPU 5 is not visible; allowed: 0 to 1"},
           {{"--ranks", "3"},
            "--ranks: 3 NCCL ranks need 3 GPUs; 2 visible"}}) {
    // The backend is chosen before the TLS files are read.
    std::vector<std::string> args = {"--coordinator", "127.0.0.1:1",
                                     "--backend", "nccl", "--insecure"};
    args.insert(args.end(), flags.begin(), flags.end());
    CliResult r = RunBinary("fabricpulse-agent", args, 30);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(
        r.err, nccl ? error : "nccl is not built into fabricpulse-worker"))
        << r.err;
  }
}

}  // namespace
}  // namespace fabricpulse::testing
