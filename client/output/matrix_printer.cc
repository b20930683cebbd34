#include "client/output/matrix_printer.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/output/csv_printer.h"
#include "client/output/json_printer.h"
#include "client/output/units.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/regression.h"

namespace fabricpulse::client {
namespace {

void PrintTable(const PairMatrix& m, const OutputOptions& o,
                std::ostream& out) {
  const std::string unit(BwUnitLabel(o.unit));
  out << "# pairwise matrix of sweep " << m.sweep_id << ": " << m.pairs
      << " pairs of " << m.nranks << " ranks, both ways at once\n";
  out << absl::StrFormat("#%9s %6s %6s %-10s %10s %10s %10s %7s %s\n", "size",
                         "rank_a", "rank_b", "path", "time(us)",
                         "algbw(" + unit + ")", "busbw(" + unit + ")", "wrong",
                         "flag");
  for (const NodePairGroup& g : m.groups) {
    out << absl::StrFormat(
        "# %s <-> %s  %s  %d pair(s)  busbw min %.2f median %.2f %s%s\n",
        g.node_a, g.node_b, g.path, static_cast<int>(g.pairs.size()),
        ToBwUnit(o.unit, g.min_busbw), ToBwUnit(o.unit, g.median_busbw), unit,
        g.flagged > 0 ? absl::StrCat("  ", g.flagged, " flagged") : "");
    for (const v1::PairResult& p : g.pairs) {
      out << absl::StrFormat(" %9s %6d %6d %-10s %10s %10.2f %10.2f %7d %s\n",
                             core::FormatByteSize(g.bytes), p.rank_a(),
                             p.rank_b(), p.path(),
                             FormatTableMicros(ToMicros(p.time_seconds())),
                             ToBwUnit(o.unit, p.algbw_bytes_per_second()),
                             ToBwUnit(o.unit, p.busbw_bytes_per_second()),
                             p.wrong(), p.flagged() ? "SLOW" : "");
    }
  }
  out << "# " << m.flagged << " of " << m.pairs
      << " pair(s) flagged: busbw below half the median of their path class "
         "at their size"
      << (m.confirmed_by.empty()
              ? ""
              : absl::StrCat(", each again in sweep ", m.confirmed_by))
      << "\n";
}

void PrintJson(const PairMatrix& m, std::ostream& out) {
  out << "{\"sweep_id\": " << JsonString(m.sweep_id)
      << ", \"nranks\": " << m.nranks << ", \"flagged\": " << m.flagged
      << ", \"pairs\": [";
  bool first = true;
  for (const NodePairGroup& g : m.groups) {
    for (const v1::PairResult& p : g.pairs) {
      out << (first ? "" : ", ") << "{\"bytes\": " << g.bytes
          << ", \"rank_a\": " << p.rank_a() << ", \"rank_b\": " << p.rank_b()
          << ", \"node_a\": " << JsonString(p.node_a())
          << ", \"node_b\": " << JsonString(p.node_b())
          << ", \"path\": " << JsonString(p.path())
          << ", \"time_seconds\": " << FormatNumber(p.time_seconds())
          << ", \"algbw_bytes_per_second\": "
          << FormatNumber(p.algbw_bytes_per_second())
          << ", \"busbw_bytes_per_second\": "
          << FormatNumber(p.busbw_bytes_per_second())
          << ", \"wrong\": " << p.wrong()
          << ", \"flagged\": " << (p.flagged() ? "true" : "false") << "}";
      first = false;
    }
  }
  out << "], \"node_pairs\": [";
  first = true;
  for (const NodePairGroup& g : m.groups) {
    out << (first ? "" : ", ") << "{\"bytes\": " << g.bytes
        << ", \"node_a\": " << JsonString(g.node_a)
        << ", \"node_b\": " << JsonString(g.node_b)
        << ", \"path\": " << JsonString(g.path)
        << ", \"pairs\": " << g.pairs.size()
        << ", \"min_busbw_bytes_per_second\": " << FormatNumber(g.min_busbw)
        << ", \"median_busbw_bytes_per_second\": "
        << FormatNumber(g.median_busbw) << ", \"flagged\": " << g.flagged
        << "}";
    first = false;
  }
  out << "], \"confirmed_by\": "
      << (m.confirmed_by.empty() ? "null" : JsonString(m.confirmed_by))
      << "}\n";
}

void PrintCsv(const PairMatrix& m, std::ostream& out) {
  out << "sweep_id,bytes,rank_a,rank_b,node_a,node_b,path,time_seconds,"
         "algbw_bytes_per_second,busbw_bytes_per_second,wrong,flagged\n";
  for (const NodePairGroup& g : m.groups) {
    for (const v1::PairResult& p : g.pairs) {
      out << CsvField(m.sweep_id) << ',' << g.bytes << ',' << p.rank_a() << ','
          << p.rank_b() << ',' << CsvField(p.node_a()) << ','
          << CsvField(p.node_b()) << ',' << CsvField(p.path()) << ','
          << FormatNumber(p.time_seconds()) << ','
          << FormatNumber(p.algbw_bytes_per_second()) << ','
          << FormatNumber(p.busbw_bytes_per_second()) << ',' << p.wrong() << ','
          << (p.flagged() ? "true" : "false") << '\n';
    }
  }
}

}  // namespace

PairMatrix BuildPairMatrix(const std::string& sweep_id, int nranks,
                           const std::vector<v1::StepResult>& results) {
  PairMatrix m;
  m.sweep_id = sweep_id;
  m.nranks = nranks;
  std::map<std::tuple<uint64_t, std::string, std::string>, NodePairGroup>
      groups;
  for (const v1::StepResult& r : results) {
    for (const v1::PairResult& p : r.pairs()) {
      auto [a, b] = std::minmax(p.node_a(), p.node_b());
      NodePairGroup& g = groups[{r.step().bytes(), a, b}];
      g.node_a = a;
      g.node_b = b;
      g.bytes = r.step().bytes();
      if (g.path.empty()) g.path = p.path();
      g.pairs.push_back(p);
      m.pairs++;
      m.wrong += p.wrong();
      if (p.flagged()) {
        g.flagged++;
        m.flagged++;
      }
    }
  }
  for (auto& [key, g] : groups) {
    std::sort(g.pairs.begin(), g.pairs.end(),
              [](const v1::PairResult& x, const v1::PairResult& y) {
                return std::make_pair(x.rank_a(), x.rank_b()) <
                       std::make_pair(y.rank_a(), y.rank_b());
              });
    std::vector<double> busbw;
    for (const v1::PairResult& p : g.pairs) {
      busbw.push_back(p.busbw_bytes_per_second());
    }
    g.min_busbw = *std::min_element(busbw.begin(), busbw.end());
    g.median_busbw = core::Median(busbw);
    m.groups.push_back(std::move(g));
  }
  return m;
}

void PrintPairMatrix(const PairMatrix& matrix, const OutputOptions& options,
                     std::ostream& out) {
  switch (options.format) {
    case OutputFormat::kTable:
      return PrintTable(matrix, options, out);
    case OutputFormat::kJson:
      return PrintJson(matrix, out);
    case OutputFormat::kCsv:
      return PrintCsv(matrix, out);
  }
}

}  // namespace fabricpulse::client
