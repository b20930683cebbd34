#include "client/output/sweep_compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/output/units.h"

namespace fabricpulse::client {
namespace {

using RowKey =
    std::tuple<std::string, uint64_t, bool, std::string, std::string>;

RowKey KeyOf(const v1::StepResult& r) {
  const v1::StepKey& s = r.step();
  return {s.op(), s.bytes(), s.in_place(), s.dtype(), s.redop()};
}

// The row's relative spread, (p99 - p50) / p50, when both were measured.
std::optional<double> Spread(const v1::StepResult& r) {
  if (!r.has_p50_seconds() || !r.has_p99_seconds() || r.p50_seconds() <= 0) {
    return std::nullopt;
  }
  return std::max(0.0, (r.p99_seconds() - r.p50_seconds()) / r.p50_seconds());
}

CompareRow Compare(const v1::StepResult& a, const v1::StepResult& b,
                   double threshold) {
  CompareRow row;
  row.op = a.step().op();
  row.bytes = a.step().bytes();
  row.in_place = a.step().in_place();
  row.dtype = a.step().dtype();
  row.redop = a.step().redop();
  if (a.busbw_bytes_per_second() > 0 && b.busbw_bytes_per_second() > 0) {
    row.figure = "busbw";
    row.a = a.busbw_bytes_per_second();
    row.b = b.busbw_bytes_per_second();
  } else if (a.algbw_bytes_per_second() > 0 && b.algbw_bytes_per_second() > 0) {
    row.figure = "algbw";
    row.a = a.algbw_bytes_per_second();
    row.b = b.algbw_bytes_per_second();
  } else {
    row.figure = "1/time";
    row.a = a.time_seconds() > 0 ? 1 / a.time_seconds() : 0;
    row.b = b.time_seconds() > 0 ? 1 / b.time_seconds() : 0;
  }
  row.ratio = row.a > 0 ? row.b / row.a : 0;
  const std::optional<double> sa = Spread(a), sb = Spread(b);
  if (sa && sb) row.spread = std::max(*sa, *sb);
  const double change = std::abs(row.ratio - 1);
  const bool beyond = row.a > 0 && row.b > 0 && change > threshold &&
                      (!row.spread || change > *row.spread);
  if (beyond) {
    row.verdict =
        row.ratio < 1 ? CompareVerdict::kSlower : CompareVerdict::kFaster;
  }
  return row;
}

std::string Describe(const v1::SweepSummary& s) {
  std::vector<std::string> parts;
  if (!s.plan().empty()) parts.push_back(absl::StrCat("plan ", s.plan()));
  if (s.started_unix_seconds() > 0) {
    parts.push_back(absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                                     absl::FromUnixMicros(static_cast<int64_t>(
                                         s.started_unix_seconds() * 1e6)),
                                     absl::UTCTimeZone()));
  }
  parts.push_back(absl::StrCat(s.nranks(), " ranks"));
  parts.push_back(s.backend_version().empty() ? s.backend()
                                              : s.backend_version());
  parts.push_back(s.status());
  return absl::StrCat(s.sweep_id(), " (", absl::StrJoin(parts, ", "), ")");
}

std::string Figure(const CompareRow& row, double value,
                   const OutputOptions& output) {
  if (row.figure == "1/time") return absl::StrFormat("%.3g/s", value);
  return absl::StrFormat("%.2f", ToBwUnit(output.unit, value));
}

void PrintTable(const SweepComparison& c, const OutputOptions& output,
                std::ostream& out) {
  out << "# compare A " << Describe(c.a) << "\n";
  out << "#      to B " << Describe(c.b) << "\n";
  out << absl::StrFormat(
      "# B/A > 1: B is faster. Beyond noise: |B/A - 1| above %g %% and "
      "above the rows' own p50..p99 spread.\n",
      c.threshold * 100);
  out << absl::StrFormat(
      "# %10s  %-14s %-6s %-8s %-6s %-6s %10s %10s %7s "
      "%8s  %s\n",
      "size", "op", "place", "type", "redop", "figure",
      absl::StrCat("A ", BwUnitLabel(output.unit)),
      absl::StrCat("B ", BwUnitLabel(output.unit)), "B/A", "spread%",
      "verdict");
  for (const CompareRow& r : c.rows) {
    out << absl::StrFormat(
        "  %10d  %-14s %-6s %-8s %-6s %-6s %10s %10s %7.3f %8s  %s\n", r.bytes,
        r.op, r.in_place ? "in" : "out", r.dtype, r.redop, r.figure,
        Figure(r, r.a, output), Figure(r, r.b, output), r.ratio,
        r.spread ? absl::StrFormat("%.1f", *r.spread * 100) : std::string("-"),
        r.verdict == CompareVerdict::kSame ? "" : VerdictName(r.verdict));
  }
  out << absl::StrFormat(
      "# %d row(s) compared: %d slower, %d faster beyond noise; %d only in A, "
      "%d only in B\n",
      c.rows.size(), c.slower, c.faster, c.only_in_a, c.only_in_b);
}

void PrintJson(const SweepComparison& c, std::ostream& out) {
  out << "{\"a\":\"" << c.a.sweep_id() << "\",\"b\":\"" << c.b.sweep_id()
      << "\",\"threshold\":" << FormatNumber(c.threshold) << ",\"rows\":[";
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    out << (i ? "," : "") << "{\"op\":\"" << r.op << "\",\"bytes\":" << r.bytes
        << ",\"in_place\":" << (r.in_place ? "true" : "false")
        << ",\"dtype\":\"" << r.dtype << "\",\"redop\":\"" << r.redop
        << "\",\"figure\":\"" << r.figure << "\",\"a\":" << FormatNumber(r.a)
        << ",\"b\":" << FormatNumber(r.b)
        << ",\"ratio\":" << FormatNumber(r.ratio) << ",\"spread\":"
        << (r.spread ? FormatNumber(*r.spread) : std::string("null"))
        << ",\"verdict\":\"" << VerdictName(r.verdict) << "\"}";
  }
  out << "],\"only_in_a\":" << c.only_in_a << ",\"only_in_b\":" << c.only_in_b
      << ",\"slower\":" << c.slower << ",\"faster\":" << c.faster << "}\n";
}

void PrintCsv(const SweepComparison& c, std::ostream& out) {
  out << "op,bytes,in_place,dtype,redop,figure,a,b,ratio,spread,verdict\n";
  for (const CompareRow& r : c.rows) {
    out << r.op << "," << r.bytes << "," << (r.in_place ? "true" : "false")
        << "," << r.dtype << "," << r.redop << "," << r.figure << ","
        << FormatNumber(r.a) << "," << FormatNumber(r.b) << ","
        << FormatNumber(r.ratio) << ","
        << (r.spread ? FormatNumber(*r.spread) : std::string()) << ","
        << VerdictName(r.verdict) << "\n";
  }
}

}  // namespace

const char* VerdictName(CompareVerdict verdict) {
  switch (verdict) {
    case CompareVerdict::kSlower:
      return "slower";
    case CompareVerdict::kFaster:
      return "faster";
    case CompareVerdict::kSame:
      break;
  }
  return "same";
}

SweepComparison CompareSweeps(const v1::GetSweepResponse& a,
                              const v1::GetSweepResponse& b, double threshold) {
  SweepComparison c;
  c.a = a.sweep();
  c.b = b.sweep();
  c.threshold = threshold;
  std::multimap<RowKey, const v1::StepResult*> in_b;
  for (const v1::StepResult& r : b.results()) in_b.emplace(KeyOf(r), &r);
  for (const v1::StepResult& r : a.results()) {
    auto match = in_b.find(KeyOf(r));
    if (match == in_b.end()) {
      ++c.only_in_a;
      continue;
    }
    c.rows.push_back(Compare(r, *match->second, threshold));
    in_b.erase(match);
    if (c.rows.back().verdict == CompareVerdict::kSlower) ++c.slower;
    if (c.rows.back().verdict == CompareVerdict::kFaster) ++c.faster;
  }
  c.only_in_b = static_cast<int>(in_b.size());
  return c;
}

void PrintComparison(const SweepComparison& comparison,
                     const OutputOptions& output, std::ostream& out) {
  switch (output.format) {
    case OutputFormat::kJson:
      PrintJson(comparison, out);
      return;
    case OutputFormat::kCsv:
      PrintCsv(comparison, out);
      return;
    case OutputFormat::kTable:
      break;
  }
  PrintTable(comparison, output, out);
}

}  // namespace fabricpulse::client
