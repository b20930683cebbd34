#include "daemon/coordinator/link_health.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace fabricpulse::coordinator {
namespace {

struct Sample {
  std::string node;
  int gpu = -1;  // -1: the node's NICs
  double value = 0;
};

double Median(std::vector<double> v) {
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const double upper = v[n / 2];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + n / 2);
  return (lower + upper) / 2;
}

struct PeerFigures {
  double median = 0;
  double spread = 0;  // MAD x 1.4826
  size_t samples = 0;
  size_t nodes = 0;
};

// The figures of `samples`, or none with fewer than kMinLinkPeerNodes nodes.
std::optional<PeerFigures> Figures(const std::vector<Sample>& samples) {
  std::set<std::string> nodes;
  std::vector<double> values;
  for (const Sample& s : samples) {
    nodes.insert(s.node);
    values.push_back(s.value);
  }
  if (nodes.size() < static_cast<size_t>(kMinLinkPeerNodes)) {
    return std::nullopt;
  }
  PeerFigures f;
  f.median = Median(values);
  for (double& v : values) v = std::abs(v - f.median);
  f.spread = 1.4826 * Median(values);
  f.samples = samples.size();
  f.nodes = nodes.size();
  return f;
}

bool Below(double value, const PeerFigures& f) {
  return value < f.median && f.median - value > 3 * f.spread;
}

std::string Gbps(double bits) { return absl::StrFormat("%g Gb/s", bits / 1e9); }

// The node's first GPU model ("" without GPU ranks).
std::string NodeModel(const v1::AgentInfo& a) {
  for (const v1::WorkerInfo& w : a.workers()) {
    if (w.gpu() >= 0 && !w.gpu_model().empty()) return w.gpu_model();
  }
  return "";
}

void JudgeNvlinks(const std::vector<const v1::AgentInfo*>& agents,
                  const core::LinkExpectations& expectations,
                  std::map<std::string, std::vector<std::string>>& out) {
  std::map<std::string, std::vector<Sample>> by_model;
  for (const v1::AgentInfo* agent : agents) {
    const v1::AgentInfo& a = *agent;
    std::set<int> seen;  // a GPU once, however many ranks use it
    for (const v1::WorkerInfo& w : a.workers()) {
      if (w.gpu() < 0 || w.gpu_model().empty() ||
          !w.has_nvlink_active_links() || !seen.insert(w.gpu()).second) {
        continue;
      }
      by_model[w.gpu_model()].push_back(
          {a.node_name(), w.gpu(),
           static_cast<double>(w.nvlink_active_links())});
    }
  }
  for (const auto& [model, samples] : by_model) {
    if (auto e = expectations.find(model);
        e != expectations.end() && e->second.nvlinks) {
      for (const Sample& s : samples) {
        if (s.value >= *e->second.nvlinks) continue;
        out[s.node].push_back(absl::StrFormat(
            "gpu %d (%s): %g NVLinks active, expected %d (link_expectations)",
            s.gpu, model, s.value, *e->second.nvlinks));
      }
      continue;
    }
    const std::optional<PeerFigures> f = Figures(samples);
    if (!f) continue;
    for (const Sample& s : samples) {
      if (!Below(s.value, *f)) continue;
      out[s.node].push_back(absl::StrFormat(
          "gpu %d (%s): %g NVLinks active, the model's median %g over %d "
          "GPUs of %d nodes",
          s.gpu, model, s.value, f->median, f->samples, f->nodes));
    }
  }
}

void JudgeNics(const std::vector<const v1::AgentInfo*>& agents,
               const core::LinkExpectations& expectations,
               std::map<std::string, std::vector<std::string>>& out) {
  std::map<std::string, std::vector<Sample>> by_model;
  std::map<std::string, std::string> down;  // node: its fabric NICs not up
  for (const v1::AgentInfo* agent : agents) {
    const v1::AgentInfo& a = *agent;
    double up = 0;
    bool any = false;
    std::vector<std::string> not_up;
    for (const v1::NicInfo& nic : a.nics()) {
      if (nic.kind() != "infiniband" && nic.kind() != "ethernet") continue;
      any = true;
      if (nic.state() == "up" && nic.has_speed_bits_per_second()) {
        up += static_cast<double>(nic.speed_bits_per_second());
      } else if (nic.state() != "up") {
        not_up.push_back(absl::StrCat(nic.name(), " ", nic.state()));
      }
    }
    if (!any) continue;
    by_model[NodeModel(a)].push_back({a.node_name(), -1, up});
    if (!not_up.empty()) down[a.node_name()] = absl::StrJoin(not_up, ", ");
  }
  auto down_text = [&down](const std::string& node) {
    auto d = down.find(node);
    return d == down.end() ? std::string() : absl::StrCat(" (", d->second, ")");
  };
  for (const auto& [model, samples] : by_model) {
    if (auto e = expectations.find(model);
        e != expectations.end() && e->second.nics_gbit) {
      const double expected = *e->second.nics_gbit * 1e9;
      for (const Sample& s : samples) {
        if (s.value >= expected) continue;
        out[s.node].push_back(absl::StrCat(
            "nics: ", Gbps(s.value), " up", down_text(s.node), ", expected ",
            Gbps(expected), " (link_expectations)"));
      }
      continue;
    }
    const std::optional<PeerFigures> f = Figures(samples);
    if (!f) continue;
    for (const Sample& s : samples) {
      if (!Below(s.value, *f)) continue;
      out[s.node].push_back(
          absl::StrCat("nics: ", Gbps(s.value), " up", down_text(s.node),
                       ", the median of ", f->nodes, " nodes with ",
                       model.empty() ? "no GPU" : model, " ", Gbps(f->median)));
    }
  }
}

}  // namespace

std::map<std::string, std::vector<std::string>> LinksBelowPeers(
    const std::vector<v1::AgentInfo>& agents,
    const core::LinkExpectations& expectations) {
  std::vector<const v1::AgentInfo*> alive;
  for (const v1::AgentInfo& a : agents) {
    if (a.state() != "lost") alive.push_back(&a);
  }
  std::map<std::string, std::vector<std::string>> out;
  JudgeNvlinks(alive, expectations, out);
  JudgeNics(alive, expectations, out);
  return out;
}

}  // namespace fabricpulse::coordinator
