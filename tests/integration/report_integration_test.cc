// `fabricpulse report` against real daemons and real Gloo sweeps, and the
// page it writes loaded in headless Chromium: the charts are in the DOM
// (one point per measured step), the console stays empty, a screenshot is
// taken, and the file names nothing to fetch. Bad input writes nothing.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/report/html_escape.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/headless_browser.h"
#include "tests/integration/test_support.h"
#include "tests/unit/client/count_substrings.h"

namespace fabricpulse::testing {
namespace {
namespace FP_UNITY_ID {

// Baselines from one earlier sweep, so that the second sweep's steps carry
// one (and the first's none).
constexpr char kConfig[] = R"(baseline:
  window: 5
  min_sweeps: 1
plans:
  report-quick:
    ops: [all_reduce, all_gather]
    min_bytes: 1K
    max_bytes: 16K
    factor: 4
    iters: 3
    warmup: 1
    placement: both
)";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The <svg ...> element whose id is `id`, up to its </svg>; empty if none.
std::string SvgById(const std::string& dom, const std::string& id) {
  const size_t at = dom.find(absl::StrCat("id=\"", id, "\""));
  if (at == std::string::npos) return "";
  const size_t start = dom.rfind("<svg", at);
  const size_t end = dom.find("</svg>", at);
  if (start == std::string::npos || end == std::string::npos) return "";
  return dom.substr(start, end - start);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Everything a page could fetch with: none may appear in the report.
void ExpectFetchesNothing(const std::string& html) {
  for (const char* what :
       {"src=", "href=", "url(", "@import", "<link", "<script", "<img",
        "<iframe", "http://", "https://", "//cdn"}) {
    EXPECT_FALSE(absl::StrContains(html, what)) << what;
  }
}

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/fabricpulse-report-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = new std::string(dir);
    const std::string config = *dir_ + "/config.yaml";
    std::ofstream(config) << kConfig;
    client::LocalClusterOptions options;
    options.agents = 1;
    options.ranks = 2;
    options.config_file = config;
    auto cluster = StartCluster(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = cluster->release();
    for (int i = 0; i < 2; ++i) {
      CliResult sweep = RunCli({"--coordinator", cluster_->coordinator(),
                                "sweep", "--plan", "report-quick"});
      ASSERT_EQ(sweep.exit_code, 0) << sweep.out << sweep.err;
    }
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    if (dir_ != nullptr &&
        std::getenv("FABRICPULSE_KEEP_REPORT_DIR") == nullptr) {
      std::filesystem::remove_all(*dir_);
    } else if (dir_ != nullptr) {
      std::fprintf(stderr, "report test files kept in %s\n", dir_->c_str());
    }
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    stub_ = Connect(cluster_->coordinator());
    sweeps_ = ListSweeps(*stub_, 10);
    ASSERT_EQ(sweeps_.size(), 2u);
  }

  CliResult Report(std::vector<std::string> args) {
    args.insert(args.begin(),
                {"--coordinator", cluster_->coordinator(), "report"});
    return RunCli(args);
  }
  std::string Path(const std::string& name) const {
    return absl::StrCat(*dir_, "/", name);
  }
  v1::GetSweepResponse GetSweep(const std::string& id) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    v1::GetSweepRequest req;
    req.set_sweep_id(id);
    v1::GetSweepResponse resp;
    EXPECT_TRUE(stub_->GetSweep(&ctx, req, &resp).ok());
    return resp;
  }
  // Loads `html` in Chromium; fails the test on a console message.
  std::string LoadInChromium(const std::string& html, const std::string& tag) {
    const std::string chromium = FindChromium();
    if (chromium.empty()) return "";
    BrowserPage page = LoadPage(chromium, html, Path("profile-" + tag));
    EXPECT_EQ(page.exit_code, 0) << page.stderr_text;
    EXPECT_TRUE(page.console.empty()) << "console: " << page.console.front();
    EXPECT_TRUE(absl::StrContains(page.dom, "</html>")) << page.dom;
    return page.dom;
  }

  static client::LocalCluster* cluster_;
  static std::string* dir_;
  std::unique_ptr<v1::CoordinatorService::Stub> stub_;
  std::vector<v1::SweepSummary> sweeps_;  // newest first
};
client::LocalCluster* ReportTest::cluster_ = nullptr;
std::string* ReportTest::dir_ = nullptr;

TEST_F(ReportTest, ASweepsChartsAreInTheBrowsersDomWithOnePointPerStep) {
  if (FindChromium().empty()) {
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh "
                    "--with-test-tools installs it)";
  }
  const std::string id = sweeps_[0].sweep_id();  // the one with baselines
  const std::string html = Path("one.html");
  CliResult r = Report({"--sweep", id, "-o", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "report: wrote " + html)) << r.out;
  const std::string file = ReadAll(html);
  ExpectFetchesNothing(file);

  const std::string dom = LoadInChromium(html, "one");
  const v1::GetSweepResponse sweep = GetSweep(id);
  ASSERT_GT(sweep.results_size(), 0);
  std::map<std::string, int> steps, regressions;
  std::map<std::string, bool> has_busbw_baseline, has_time_baseline;
  for (const v1::StepResult& s : sweep.results()) {
    steps[s.step().op()]++;
    regressions[s.step().op()] += s.regression();
    const std::string key =
        absl::StrCat(s.step().op(), s.step().in_place() ? "/in" : "/out");
    has_busbw_baseline[key] |= s.baseline_busbw_bytes_per_second() > 0;
    has_time_baseline[key] |= s.has_baseline_time_seconds();
  }
  EXPECT_EQ(steps.size(), 2u);
  for (const auto& [op, n] : steps) {
    const std::string token = client::report::CssToken(op);
    const std::string busbw = SvgById(dom, "s0-busbw-" + token);
    const std::string latency = SvgById(dom, "s0-latency-" + token);
    ASSERT_FALSE(busbw.empty()) << op;
    ASSERT_FALSE(latency.empty()) << op;
    EXPECT_TRUE(absl::StrContains(busbw, "data-op=\"" + op + "\"")) << op;
    EXPECT_EQ(CountSubstrings(busbw, "class=\"point "), n) << op;
    EXPECT_EQ(CountSubstrings(latency, "class=\"point "), n) << op;
    EXPECT_EQ(CountSubstrings(busbw, "class=\"point regression"),
              regressions[op]);
    // Both placements, told apart.
    EXPECT_EQ(
        CountSubstrings(busbw, "class=\"point out-of-place\"") +
            CountSubstrings(busbw, "class=\"point regression out-of-place\""),
        n / 2);
    EXPECT_EQ(CountSubstrings(busbw, "<rect class=\"point "),
              n / 2);  // in-place
  }
  // The band where, and only where, the steps carry a baseline: the
  // second sweep of the plan has one from the first (min_sweeps: 1).
  int bands = 0;
  for (const auto& [key, has] : has_busbw_baseline) bands += has;
  for (const auto& [key, has] : has_time_baseline) bands += has;
  EXPECT_GT(bands, 0);
  EXPECT_EQ(CountSubstrings(dom, "<path class=\"band "), bands);
  // The metadata, the rank map; no matrix (no step has pairs).
  EXPECT_TRUE(absl::StrContains(dom, "<td class=\"plan\">report-quick</td>"));
  EXPECT_TRUE(absl::StrContains(dom, "<td class=\"status\">succeeded</td>"));
  EXPECT_TRUE(absl::StrContains(dom, "<td class=\"backend\">gloo"));
  EXPECT_TRUE(absl::StrContains(dom, "2 ranks on 1 node")) << dom;
  EXPECT_FALSE(absl::StrContains(dom, "class=\"pair-matrix\""));

  const std::string png = Path("one.png");
  ASSERT_EQ(
      Screenshot(FindChromium(), html, Path("profile-shot"), png, 1280, 2200),
      0);
  const std::string image = ReadAll(png);
  EXPECT_GT(image.size(), 20000u);
  EXPECT_EQ(image.substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST_F(ReportTest, AFirstSweepHasNoBaselineBand) {
  const std::string html = Path("first.html");
  CliResult r = Report({"--sweep", sweeps_[1].sweep_id(), "-o", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string file = ReadAll(html);
  EXPECT_GT(CountSubstrings(file, "class=\"point "), 0);
  EXPECT_EQ(CountSubstrings(file, "class=\"band "), 0);
}

TEST_F(ReportTest, LastAndPlanTrendsRenderWithoutConsoleErrors) {
  const std::string last = Path("last.html");
  CliResult r = Report({"--last", "2", "-o", last});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string file = ReadAll(last);
  ExpectFetchesNothing(file);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(absl::StrContains(
        file, absl::StrCat("<section class=\"sweep\" id=\"s", i,
                           "\" data-sweep-id=\"", sweeps_[i].sweep_id(), "\"")))
        << i;
  }
  LoadInChromium(last, "last");

  const std::string plan = Path("plan.html");
  r = Report({"--plan", "report-quick", "--since", "1d", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  file = ReadAll(plan);
  ExpectFetchesNothing(file);
  // 1, 4 and 16 KiB over the plan's 2 sweeps, per op and placement.
  const std::string dom = LoadInChromium(plan, "plan");
  const std::string& page = dom.empty() ? file : dom;
  for (const char* id :
       {"trend-all-reduce-out-of-place", "trend-all-reduce-in-place",
        "trend-all-gather-out-of-place", "trend-all-gather-in-place"}) {
    const std::string svg = SvgById(page, id);
    ASSERT_FALSE(svg.empty()) << id;
    EXPECT_EQ(CountSubstrings(svg, "class=\"point "), 3 * 2) << id;
  }
  // And the plan's newest sweep in full.
  EXPECT_TRUE(absl::StrContains(
      page, "data-sweep-id=\"" + sweeps_[0].sweep_id() + "\""));
}

TEST_F(ReportTest, BadInputExitsTwoAndWritesNothing) {
  const std::string kept = Path("kept.html");
  std::ofstream(kept) << "old";
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--sweep", "20000101-000000-0000", "-o", kept}, "20000101-000000-0000"},
      {{"--plan", "no-such-plan", "-o", kept}, "no sweeps of plan"},
      {{"--plan", "report-quick", "--since", "7x", "-o", kept}, "--since"},
      {{"--plan", "report-quick", "--since", "0d", "-o", kept}, "--since"},
      {{"--since", "7d", "-o", kept}, "--since"},
      {{"--last", "0", "-o", kept}, "--last"},
      {{"--sweep", sweeps_[0].sweep_id()}, "-o"},
      {{"--sweep", sweeps_[0].sweep_id(), "-o", "/nonexistent-dir/x.html"},
       "-o"},
  };
  for (const Case& c : cases) {
    CliResult r = Report(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << ": " << r.err;
    EXPECT_EQ(CountSubstrings(r.err, "\n"), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, c.error)) << r.err;
  }
  EXPECT_EQ(ReadAll(kept), "old");
  // No temporary file was left behind either.
  for (const auto& entry : std::filesystem::directory_iterator(*dir_)) {
    EXPECT_FALSE(absl::StrContains(entry.path().string(), ".tmp-"))
        << entry.path();
  }
}

TEST_F(ReportTest, AnUnreachableCoordinatorExitsThree) {
  // Port 1 on loopback: nothing listens there.
  const std::string html = Path("unreachable.html");
  CliResult r = RunCli({"--coordinator", "127.0.0.1:1", "report", "-o", html});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(Exists(html));
}

TEST_F(ReportTest, UnderLocalTheFlagsAreCheckedFirstAndAnEmptyHistorySaysSo) {
  CliResult no_file = RunCli({"local", "--backend", "gloo", "report"});
  EXPECT_EQ(no_file.exit_code, 2) << no_file.err;
  EXPECT_TRUE(absl::StrContains(no_file.err, "-o: ")) << no_file.err;
  // A fresh local cluster has no history: nothing to draw, nothing written.
  const std::string html = Path("local.html");
  CliResult empty = RunCli(
      {"local", "--backend", "gloo", "--ranks", "1", "report", "-o", html});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_TRUE(absl::StrContains(empty.err, "no sweeps")) << empty.err;
  EXPECT_FALSE(Exists(html));
}

TEST(ReportBrowserCheckTest, AConsoleErrorIsCaught) {
  // The check above is only worth something if it sees errors: a page that
  // throws must show up in the console lines.
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed";
  char dir[] = "/tmp/fabricpulse-browser-check-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string html = absl::StrCat(dir, "/throws.html");
  std::ofstream(html) << "<!DOCTYPE html><html><body><p>x</p><script>throw "
                         "new Error('fp-boom')</script></body></html>";
  BrowserPage page = LoadPage(chromium, html, absl::StrCat(dir, "/profile"));
  EXPECT_EQ(page.exit_code, 0);
  ASSERT_EQ(page.console.size(), 1u) << page.stderr_text;
  EXPECT_TRUE(absl::StrContains(page.console[0], "Uncaught Error: fp-boom"));
  std::filesystem::remove_all(dir);
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::testing
