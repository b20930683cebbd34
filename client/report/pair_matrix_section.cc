#include "client/report/pair_matrix_section.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/report/heatmap.h"
#include "client/report/html_escape.h"
#include "client/report/plot_scale.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client::report {
namespace {

using MatrixKey = std::tuple<std::string, uint64_t, bool>;  // op, bytes, in

struct Matrix {
  MatrixKey key;
  std::vector<const v1::PairResult*> pairs;  // every round's
  int ranks = 0;
};

std::string DescribePair(const v1::PairResult& p) {
  std::string text = absl::StrFormat(
      "ranks %d (%s) and %d (%s), %s: busbw %.4g GB/s, time %s", p.rank_a(),
      p.node_a(), p.rank_b(), p.node_b(), p.path(),
      p.busbw_bytes_per_second() / 1e9, SecondsTickLabel(p.time_seconds()));
  if (p.wrong() > 0) absl::StrAppend(&text, "; ", p.wrong(), " wrong");
  if (p.flagged()) absl::StrAppend(&text, "; FLAGGED");
  return text;
}

std::string MatrixTitle(const MatrixKey& key) {
  return absl::StrCat(
      std::get<0>(key), " ", core::HumanByteSize(std::get<1>(key)), " ",
      std::get<2>(key) ? "in-place" : "out-of-place", ": busbw per rank pair");
}

std::string FlaggedList(const Matrix& m) {
  std::string out = absl::StrCat(
      "<p class=\"note\">", EscapeHtml(MatrixTitle(m.key)), ": ", m.ranks,
      " ranks, more than a heatmap shows (at most ", kMaxHeatmapRanks,
      "); flagged pairs:</p><ul class=\"flagged-pairs\">");
  int listed = 0, flagged = 0;
  for (const v1::PairResult* p : m.pairs) {
    if (!p->flagged()) continue;
    ++flagged;
    if (listed < kMaxListedPairs) {
      absl::StrAppend(&out, "<li>", EscapeHtml(DescribePair(*p)), "</li>");
      ++listed;
    }
  }
  if (flagged == 0) out += "<li>none</li>";
  out += "</ul>";
  if (flagged > listed) {
    absl::StrAppend(&out, "<p class=\"note\">", flagged - listed,
                    " more flagged pairs not listed (at most ", kMaxListedPairs,
                    ")</p>");
  }
  return out;
}

}  // namespace

std::string RenderPairMatrices(const v1::GetSweepResponse& sweep,
                               absl::string_view id_prefix) {
  std::vector<Matrix> matrices;
  std::map<MatrixKey, size_t> index;
  for (const v1::StepResult& r : sweep.results()) {
    if (r.pairs_size() == 0) continue;
    MatrixKey key{r.step().op(), r.step().bytes(), r.step().in_place()};
    auto [it, added] = index.try_emplace(key, matrices.size());
    if (added) matrices.push_back(Matrix{key, {}, sweep.sweep().nranks()});
    Matrix& m = matrices[it->second];
    for (const v1::PairResult& p : r.pairs()) {
      m.pairs.push_back(&p);
      m.ranks = std::max({m.ranks, p.rank_a() + 1, p.rank_b() + 1});
    }
  }
  if (matrices.empty()) return "";
  std::string out =
      "<section class=\"pair-matrix\"><h3>Pairwise matrix</h3><p "
      "class=\"note\">Each cell is one rank pair's bidirectional sendrecv "
      "busbw (GB/s per direction); red outlines are pairs flagged far below "
      "the median of their path class at that size.</p><div "
      "class=\"heatmaps\">";
  const int drawn =
      std::min(static_cast<int>(matrices.size()), kMaxHeatmapsPerSweep);
  for (int i = 0; i < drawn; ++i) {
    const Matrix& m = matrices[i];
    if (m.ranks > kMaxHeatmapRanks) {
      out += FlaggedList(m);
      continue;
    }
    HeatmapSpec spec;
    spec.id = absl::StrCat(id_prefix, "-pairs-", std::get<0>(m.key), "-",
                           std::get<1>(m.key), "-",
                           std::get<2>(m.key) ? "in-place" : "out-of-place");
    spec.title = MatrixTitle(m.key);
    spec.value_label = "busbw (GB/s)";
    spec.ranks = m.ranks;
    for (const v1::PairResult* p : m.pairs) {
      spec.cells.push_back(HeatmapCell{p->rank_a(), p->rank_b(),
                                       p->busbw_bytes_per_second() / 1e9,
                                       p->flagged(), DescribePair(*p)});
    }
    out += RenderHeatmap(spec);
  }
  out += "</div>";
  if (static_cast<int>(matrices.size()) > drawn) {
    absl::StrAppend(&out, "<p class=\"note\">",
                    static_cast<int>(matrices.size()) - drawn,
                    " more matrices (sizes) not drawn (at most ",
                    kMaxHeatmapsPerSweep, " per sweep)</p>");
  }
  out += "</section>";
  return out;
}

}  // namespace fabricpulse::client::report
