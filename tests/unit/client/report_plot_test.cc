// The report's SVG plotting: scales, ticks, labels, escaping.
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "client/report/heatmap.h"
#include "client/report/html_escape.h"
#include "client/report/line_chart.h"
#include "client/report/plot_scale.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/count_substrings.h"

namespace fabricpulse::client::report {
namespace {
namespace FP_UNITY_ID {

using ::testing::ElementsAre;

int Count(const std::string& text, const std::string& what) {
  return testing::CountSubstrings(text, what);
}

TEST(PlotScaleTest, Log2CoversWholePowersAndMapsThemEvenly) {
  const Scale s = Scale::Fit(ScaleKind::kLog2, 8, 32 * 1024, 0, 120);
  EXPECT_EQ(s.lo(), 8);
  EXPECT_EQ(s.hi(), 32 * 1024);
  EXPECT_DOUBLE_EQ(s.Map(8), 0);
  EXPECT_DOUBLE_EQ(s.Map(32 * 1024), 120);
  // 2^3 .. 2^15: 12 doublings, 10 px each.
  EXPECT_NEAR(s.Map(16), 10, 1e-9);
  EXPECT_NEAR(s.Map(1024), 70, 1e-9);
  // Sizes between powers round outwards.
  const Scale odd = Scale::Fit(ScaleKind::kLog2, 24, 3000, 0, 1);
  EXPECT_EQ(odd.lo(), 16);
  EXPECT_EQ(odd.hi(), 4096);
}

TEST(PlotScaleTest, Log2TicksArePowersThinnedToTheLimit) {
  const Scale s = Scale::Fit(ScaleKind::kLog2, 8, 1024, 0, 1);
  EXPECT_THAT(s.Ticks(12), ElementsAre(8, 16, 32, 64, 128, 256, 512, 1024));
  // 2^0 .. 2^30 (31 powers) in at most 12 ticks: every 3rd power.
  const Scale wide = Scale::Fit(ScaleKind::kLog2, 1, 1 << 30, 0, 1);
  const auto ticks = wide.Ticks(12);
  EXPECT_LE(ticks.size(), 12u);
  EXPECT_EQ(ticks.front(), 1);
  EXPECT_EQ(ticks[1], 8);
}

TEST(PlotScaleTest, Log10TicksAreDecadesAndAnEqualRangeIsWidened) {
  const Scale s = Scale::Fit(ScaleKind::kLog10, 3e-6, 2e-3, 100, 0);
  EXPECT_NEAR(s.lo(), 1e-6, 1e-18);
  EXPECT_NEAR(s.hi(), 1e-2, 1e-14);
  const auto ticks = s.Ticks(7);
  ASSERT_EQ(ticks.size(), 5u);
  EXPECT_NEAR(ticks[0], 1e-6, 1e-18);
  EXPECT_NEAR(ticks[4], 1e-2, 1e-14);
  EXPECT_NEAR(s.Map(1e-4), 50, 1e-9);  // y drawn upwards: 100 -> 0
  // Exact powers (1000 = 10^3 despite log10's rounding).
  const Scale one = Scale::Fit(ScaleKind::kLog10, 1000, 1000, 0, 1);
  EXPECT_EQ(one.lo(), 1000);
  EXPECT_EQ(one.hi(), 10000);
  // One decade: 1, 2 and 5 of it.
  EXPECT_THAT(one.Ticks(7), ElementsAre(1000, 2000, 5000, 10000));
  EXPECT_THAT(one.Ticks(3), ElementsAre(1000, 10000));
  EXPECT_FALSE(one.Drawable(0));
  EXPECT_FALSE(one.Drawable(-1));
  EXPECT_FALSE(one.Drawable(NAN));
  EXPECT_TRUE(one.Drawable(1e-9));
}

TEST(PlotScaleTest, LinearStartsAtZeroAndEndsOnANiceTick) {
  const Scale s = Scale::Fit(ScaleKind::kLinear, 0.4, 23.7, 0, 1);
  EXPECT_EQ(s.lo(), 0);
  EXPECT_EQ(s.hi(), 25);
  EXPECT_THAT(s.Ticks(7), ElementsAre(0, 5, 10, 15, 20, 25));
  EXPECT_TRUE(s.Drawable(0));
  // All zero: still a scale.
  const Scale zero = Scale::Fit(ScaleKind::kLinear, 0, 0, 0, 1);
  EXPECT_GT(zero.hi(), zero.lo());
  // Times: not from zero; one instant is widened.
  const Scale t =
      Scale::Fit(ScaleKind::kLinear, 1e9, 1e9, 0, 1, /*from_zero=*/false);
  EXPECT_LT(t.lo(), 1e9);
  EXPECT_GT(t.hi(), 1e9);
  // Rounded out to whole steps.
  const Scale span = Scale::Fit(ScaleKind::kLinear, 1100, 4600, 0, 1, false);
  EXPECT_EQ(span.lo(), 1000);
  EXPECT_EQ(span.hi(), 5000);
  EXPECT_THAT(span.Ticks(7), ElementsAre(1000, 2000, 3000, 4000, 5000));
  // Two sweeps within a second, whole seconds at least: one tick each end.
  const Scale close = Scale::Fit(ScaleKind::kLinear, 1e9 + 0.2, 1e9 + 0.5, 0, 1,
                                 false, /*min_step=*/1);
  EXPECT_EQ(close.lo(), 1e9);
  EXPECT_EQ(close.hi(), 1e9 + 1);
  EXPECT_THAT(close.Ticks(5, 1), ElementsAre(1e9, 1e9 + 1));
}

TEST(PlotScaleTest, NiceStepsAreOneTwoFive) {
  EXPECT_DOUBLE_EQ(NiceStep(0.7), 1);
  EXPECT_DOUBLE_EQ(NiceStep(1.2), 2);
  EXPECT_DOUBLE_EQ(NiceStep(3), 5);
  EXPECT_DOUBLE_EQ(NiceStep(6), 10);
  EXPECT_DOUBLE_EQ(NiceStep(0.3), 0.5);
  EXPECT_DOUBLE_EQ(NiceStep(2000), 2000);
}

TEST(PlotScaleTest, TickLabels) {
  EXPECT_EQ(SizeTickLabel(8), "8 B");
  EXPECT_EQ(SizeTickLabel(65536), "64 KiB");
  EXPECT_EQ(SizeTickLabel(1 << 30), "1 GiB");
  EXPECT_EQ(SecondsTickLabel(1e-6), "1 us");
  EXPECT_EQ(SecondsTickLabel(std::pow(10.0, -5)), "10 us");
  EXPECT_EQ(SecondsTickLabel(2.5e-3), "2.5 ms");
  EXPECT_EQ(SecondsTickLabel(1), "1 s");
  EXPECT_EQ(SecondsTickLabel(1e-7), "100 ns");
  EXPECT_EQ(NumberTickLabel(0), "0");
  EXPECT_EQ(NumberTickLabel(12.5), "12.5");
  EXPECT_EQ(NumberTickLabel(1200), "1200");
  EXPECT_EQ(UnixTimeTickLabel(1796151600), "12-01 19:00");
  EXPECT_EQ(UnixClockTickLabel(1796151605), "19:00:05");
}

TEST(HtmlEscapeTest, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(EscapeHtml("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(EscapeHtml("plain"), "plain");
  EXPECT_EQ(CssToken("all_reduce"), "all-reduce");
  EXPECT_EQ(CssToken("A b\"<c>"), "a-b--c-");
  EXPECT_EQ(CssToken(""), "x");
}

ChartSpec TwoSeriesChart() {
  ChartSpec spec;
  spec.id = "c1";
  spec.classes = {"busbw"};
  spec.attributes = {{"op", "all_reduce"}};
  spec.title = "t";
  spec.x_kind = ScaleKind::kLog2;
  spec.x_tick_label = SizeTickLabel;
  ChartSeries a;
  a.name = "out-of-place";
  a.css_class = "out-of-place";
  a.color = PaletteColor(0);
  a.points = {{8, 1, "a8", false}, {64, 2, "a64", true}};
  ChartSeries b;
  b.name = "in-place";
  b.css_class = "in-place";
  b.color = PaletteColor(1);
  b.marker = Marker::kSquare;
  b.dashed = true;
  b.points = {{8, 1.5, "b8", false}};
  spec.series = {a, b};
  return spec;
}

TEST(LineChartTest, OnePointElementPerPointAndRegressionsRinged) {
  const std::string svg = RenderLineChart(TwoSeriesChart());
  EXPECT_TRUE(absl::StartsWith(
      svg, "<svg class=\"chart busbw\" id=\"c1\" data-op=\"all_reduce\""))
      << svg;
  EXPECT_EQ(Count(svg, "class=\"point "), 3) << svg;
  EXPECT_EQ(Count(svg, "class=\"point regression out-of-place\""), 1);
  EXPECT_EQ(Count(svg, "class=\"regression-ring\""), 1);
  EXPECT_EQ(Count(svg, "<rect class=\"point in-place\""), 1);  // square
  EXPECT_EQ(Count(svg, "stroke-dasharray"), 2);  // in-place line + legend
  EXPECT_TRUE(absl::StrContains(svg, "data-x=\"64\" data-y=\"2\""));
  EXPECT_TRUE(absl::StrContains(svg, "<title>a64</title>"));
  // The x axis is labelled in sizes: 8 B to 64 B.
  EXPECT_TRUE(absl::StrContains(svg, ">8 B</text>"));
  EXPECT_TRUE(absl::StrContains(svg, ">64 B</text>"));
  EXPECT_EQ(Count(svg, "class=\"band"), 0);
}

TEST(LineChartTest, BandsHaveNoPointsAndUndrawablePointsAreCounted) {
  ChartSpec spec = TwoSeriesChart();
  spec.y_kind = ScaleKind::kLog10;
  spec.series[1].points.push_back({16, 0, "zero time", false});
  ChartSeries band;
  band.name = "baseline";
  band.css_class = "baseline-out-of-place";
  band.color = PaletteColor(0);
  band.band = true;
  band.points = {{8, 1.2, "", false}, {64, 2.2, "", false}};
  spec.series.push_back(band);
  const std::string svg = RenderLineChart(spec);
  EXPECT_EQ(Count(svg, "<path class=\"band baseline-out-of-place\""), 1);
  EXPECT_EQ(Count(svg, "class=\"point "), 3) << svg;
  EXPECT_TRUE(absl::StrContains(svg, "1 point not drawable")) << svg;
}

TEST(LineChartTest, EverythingFromDataIsEscaped) {
  ChartSpec spec = TwoSeriesChart();
  spec.id = "x\"><script>";
  spec.title = "<script>alert(1)</script>";
  spec.attributes = {{"op\" onload=\"x", "a\"b<c>"}};
  spec.series[0].name = "<b>name</b>";
  spec.series[0].css_class = "cls\" onclick=\"x";
  spec.series[0].points[0].tooltip = "</title><script>x</script>";
  spec.x_label = "<i>";
  const std::string svg = RenderLineChart(spec);
  EXPECT_FALSE(absl::StrContains(svg, "<script")) << svg;
  EXPECT_FALSE(absl::StrContains(svg, "<b>")) << svg;
  EXPECT_FALSE(absl::StrContains(svg, "<i>")) << svg;
  EXPECT_FALSE(absl::StrContains(svg, "onclick=")) << svg;
  EXPECT_FALSE(absl::StrContains(svg, "onload=")) << svg;
  EXPECT_TRUE(absl::StrContains(svg, "&lt;script&gt;alert(1)")) << svg;
  EXPECT_TRUE(
      absl::StrContains(svg, "data-op--onload--x=\"a&quot;b&lt;c&gt;\""))
      << svg;
}

TEST(LineChartTest, NoDrawablePointSaysSo) {
  ChartSpec spec;
  spec.id = "empty";
  spec.y_kind = ScaleKind::kLog10;
  ChartSeries s;
  s.points = {{1, 0, "", false}};
  spec.series = {s};
  const std::string svg = RenderLineChart(spec);
  EXPECT_TRUE(absl::StrContains(svg, "no drawable point")) << svg;
  EXPECT_EQ(Count(svg, "class=\"point"), 0);
}

TEST(HeatmapTest, BothHalvesOfEachPairAndFlaggedOnesOutlined) {
  HeatmapSpec spec;
  spec.id = "h";
  spec.title = "<t>";
  spec.value_label = "busbw (GB/s)";
  spec.ranks = 3;
  spec.cells = {{0, 1, 10, false, "p01"},
                {0, 2, 2, true, "<p02>"},
                {1, 2, 9, false, "p12"},
                {5, 1, 1, false, "out of range"}};
  const std::string svg = RenderHeatmap(spec);
  EXPECT_EQ(Count(svg, "<rect class=\"cell"), 6) << svg;
  EXPECT_EQ(Count(svg, "<rect class=\"cell flagged\""), 2);
  EXPECT_TRUE(absl::StrContains(svg, "data-a=\"2\" data-b=\"0\""));
  EXPECT_TRUE(absl::StrContains(svg, "data-a=\"0\" data-b=\"2\""));
  EXPECT_FALSE(absl::StrContains(svg, "<p02>"));
  EXPECT_FALSE(absl::StrContains(svg, "<t>"));
  EXPECT_FALSE(absl::StrContains(svg, "out of range"));
  // Low values light, high values dark.
  EXPECT_TRUE(absl::StrContains(svg, "data-value=\"10\"")) << svg;
  EXPECT_TRUE(
      absl::StrContains(svg, "fill=\"#08306b\" data-a=\"0\" data-b=\"1\""))
      << svg;
  EXPECT_TRUE(absl::StrContains(svg, "fill=\"#f7fbff\" stroke=\"#d00\""))
      << svg;
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::client::report
