// What /metrics collects (common/scrape_hooks.h): the hooks run at every
// collection, in order, before the registry is read, so a figure a hook
// sets shows in that same scrape; once cleared, none runs.
#include "daemon/common/scrape_hooks.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/gauge.h"

namespace fabricpulse::common {
namespace {

double GaugeValue(const std::vector<prometheus::MetricFamily>& families,
                  const std::string& name) {
  for (const prometheus::MetricFamily& f : families) {
    if (f.name == name && !f.metric.empty()) return f.metric[0].gauge.value;
  }
  return -1;
}

TEST(ScrapeHooksTest, HooksRunInOrderBeforeTheRegistryIsCollected) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::Gauge& gauge = prometheus::BuildGauge()
                                 .Name("test_reads")
                                 .Help("reads")
                                 .Register(*registry)
                                 .Add({});
  ScrapeHooks hooks(registry);
  std::vector<std::string> calls;
  int reads = 0;
  hooks.Add([&] {
    calls.push_back("first");
    gauge.Set(++reads);
  });
  hooks.Add([&] { calls.push_back("second"); });
  EXPECT_EQ(GaugeValue(hooks.Collect(), "test_reads"), 1);
  EXPECT_EQ(GaugeValue(hooks.Collect(), "test_reads"), 2);
  EXPECT_EQ(calls,
            (std::vector<std::string>{"first", "second", "first", "second"}));
}

TEST(ScrapeHooksTest, NoHookRunsOnceCleared) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge()
      .Name("test_up")
      .Help("up")
      .Register(*registry)
      .Add({})
      .Set(1);
  ScrapeHooks hooks(registry);
  int runs = 0;
  hooks.Add([&] { runs++; });
  hooks.Clear();
  // The registry is still collected.
  EXPECT_EQ(GaugeValue(hooks.Collect(), "test_up"), 1);
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace fabricpulse::common
