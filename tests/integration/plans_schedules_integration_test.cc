// `fabricpulse plans` and `fabricpulse schedules` against a real coordinator
// started with a config file: what it lists is the config as loaded, each
// schedule's next firing as its scheduler computed it, and the last run of
// a schedule that fired, from the history.
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "daemon/core/cron.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/integration/test_support.h"

namespace fabricpulse::testing {
namespace {

// "minutely" fires at the next full minute; "yearly" never in a test.
constexpr char kConfig[] = R"(timezone: UTC
baseline:
  window: 4
  min_sweeps: 2
  threshold: 0.8
plans:
  quick:
    ops: [all_reduce]
    min_bytes: 1K
    max_bytes: 4K
    factor: 4
    iters: 2
    warmup: 1
  pinned:
    ops: [broadcast, all_gather]
    iters: auto
    nodes: [local-0]
schedules:
  - name: minutely
    plan: quick
    cron: "* * * * *"
  - name: yearly
    plan: pinned
    cron: "0 0 1 1 *"
    timezone: Europe/Paris
    allow_busy_gpus: true
)";

class PlansSchedulesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/fabricpulse-plans-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string config = std::string(dir) + "/config.yaml";
    std::ofstream(config) << kConfig;
    client::LocalClusterOptions options;
    options.bin_dir = BinDir();
    options.agents = 1;
    options.ranks = 2;
    options.config_file = config;
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    UseClientIdentityOf(*cluster_);
  }
  static CliResult Cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--coordinator", cluster_->coordinator()});
    return RunCli(args);
  }

  static client::LocalCluster* cluster_;
};

client::LocalCluster* PlansSchedulesTest::cluster_ = nullptr;

TEST_F(PlansSchedulesTest, PlansListTheConfigInEachFormat) {
  CliResult table = Cli({"plans"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(absl::StrContains(table.out, "broadcast,all_gather"))
      << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "1K to 4K (factor 4)"));
  EXPECT_TRUE(absl::StrContains(table.out, "local-0"));
  EXPECT_TRUE(absl::StrContains(table.out, "iters auto"));
  EXPECT_TRUE(absl::StrContains(
      table.out,
      "below 80 % of its baseline, the median of the plan's last 4 "
      "succeeded sweeps (none from fewer than 2)"));

  // The global --output before the command reaches it too.
  CliResult json = Cli({"--output", "json", "plans"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  v1::ListPlansResponse plans;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json.out, &plans).ok())
      << json.out;
  ASSERT_EQ(plans.plans_size(), 2);
  EXPECT_EQ(plans.plans(0).name(), "pinned");
  EXPECT_TRUE(plans.plans(0).spec().has_adaptive());
  EXPECT_EQ(plans.plans(1).name(), "quick");
  EXPECT_EQ(plans.plans(1).spec().max_bytes(), 4096u);
  EXPECT_EQ(plans.plans(1).spec().iters(), 2);
  EXPECT_DOUBLE_EQ(plans.regression().threshold(), 0.8);

  CliResult csv = Cli({"plans", "--output", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> lines =
      absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << csv.out;
  EXPECT_TRUE(absl::StartsWith(lines[0], "plan,ops,"));
  EXPECT_TRUE(absl::StartsWith(lines[2], "quick,all_reduce,1024,4096,"));

  CliResult bad = Cli({"plans", "--output", "xml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(bad.err, "allowed: table, json, csv"))
      << bad.err;
}

TEST_F(PlansSchedulesTest, SchedulesShowNextFiringsAndTheLastRun) {
  CliResult json = Cli({"schedules", "--output", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  v1::ListSchedulesResponse before;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json.out, &before).ok())
      << json.out;
  ASSERT_EQ(before.schedules_size(), 2);
  const v1::ScheduleInfo& yearly = before.schedules(1);  // file order
  EXPECT_EQ(yearly.name(), "yearly");
  EXPECT_EQ(yearly.plan(), "pinned");
  EXPECT_EQ(yearly.cron(), "0 0 1 1 *");
  EXPECT_EQ(yearly.timezone(), "Europe/Paris");
  EXPECT_TRUE(yearly.allow_busy_gpus());
  EXPECT_FALSE(yearly.has_last_run());
  auto cron = core::CronSchedule::Parse("0 0 1 1 *", "Europe/Paris");
  ASSERT_TRUE(cron.ok());
  EXPECT_EQ(
      absl::FromUnixSeconds(static_cast<int64_t>(yearly.next_unix_seconds())),
      cron->Next(absl::Now()));
  const v1::ScheduleInfo& minutely = before.schedules(0);
  EXPECT_EQ(minutely.name(), "minutely");
  EXPECT_FALSE(minutely.allow_busy_gpus());
  EXPECT_GT(minutely.next_unix_seconds(), 0);
  EXPECT_LE(minutely.next_unix_seconds(),
            absl::ToUnixSeconds(absl::Now() + absl::Minutes(1)));

  // The minutely schedule fires at the next full minute: its sweep becomes
  // its last run.
  auto stub = Connect(cluster_->coordinator());
  std::string sweep_id;
  const bool ran = Eventually(
      [&] {
        for (const auto& s : ListSweeps(*stub)) {
          if (s.trigger() == "schedule:minutely" && s.status() == "succeeded") {
            sweep_id = s.sweep_id();
            return true;
          }
        }
        return false;
      },
      absl::Seconds(90));
  ASSERT_TRUE(ran) << "no scheduled sweep succeeded within 90 s";
  CliResult csv = Cli({"schedules", "--output", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> lines =
      absl::StrSplit(csv.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << csv.out;
  EXPECT_TRUE(absl::StartsWith(lines[0], "schedule,plan,cron,timezone,"));
  // The newest run: a later firing may have started since.
  EXPECT_TRUE(absl::StartsWith(lines[1], "minutely,quick,* * * * *,UTC,false,"))
      << lines[1];
  const std::vector<std::string> fields = absl::StrSplit(lines[1], ',');
  ASSERT_EQ(fields.size(), 12u) << lines[1];
  bool found = false;
  for (const auto& s : ListSweeps(*stub)) {
    if (s.sweep_id() != fields[8]) continue;
    found = true;
    EXPECT_EQ(s.trigger(), "schedule:minutely");
    // Its status then, or a later one (it may have finished since).
    EXPECT_TRUE(fields[9] == s.status() || fields[9] == "running")
        << fields[9] << " vs " << s.status();
  }
  EXPECT_TRUE(found) << "last run " << fields[8] << " is not in the history";
  if (fields[8] == sweep_id) {
    EXPECT_EQ(fields[9], "succeeded");
  }
  EXPECT_TRUE(absl::StartsWith(lines[2],
                               "yearly,pinned,0 0 1 1 *,"
                               "Europe/Paris,true,"))
      << lines[2];
  EXPECT_TRUE(absl::EndsWith(lines[2], ",,,,")) << lines[2];  // never ran

  // `results`: a trigger longer than its header (schedule:minutely, 17
  // characters) shifts no column.
  CliResult listed = Cli({"results"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const std::vector<std::string> rows =
      absl::StrSplit(listed.out, '\n', absl::SkipEmpty());
  ASSERT_GE(rows.size(), 2u) << listed.out;
  const size_t status_at = rows[0].find("STATUS");
  for (size_t i = 1; i < rows.size(); ++i) {
    if (absl::StartsWith(rows[i], "#")) continue;
    const size_t trigger_end = rows[i].find("schedule:minutely");
    if (trigger_end == std::string::npos) continue;
    EXPECT_EQ(rows[i].find_first_not_of(' ', trigger_end + 17), status_at)
        << listed.out;
  }
  CliResult table = Cli({"schedules"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(absl::StrContains(table.out, "SCHEDULE")) << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "CET")) << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "# 2 schedule(s)"));
}

}  // namespace
}  // namespace fabricpulse::testing
