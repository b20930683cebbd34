#include "daemon/coordinator/step_series_index.h"

namespace fabricpulse::coordinator {

bool StepSeriesIndex::Admit(const std::string& plan, const Labels& labels,
                            size_t cap, std::vector<Labels>* evicted) {
  Plan& p = plans_[plan];
  auto it = p.entries.find(labels);
  if (it != p.entries.end()) {
    if (!it->second.current) {
      p.old.erase(it->second.old_position);
      it->second.current = true;
    }
    return true;
  }
  if (p.entries.size() >= cap) {
    if (p.old.empty()) return false;  // the sweeps now running fill the cap
    evicted->push_back(p.old.front());
    p.entries.erase(p.old.front());
    p.old.pop_front();
  }
  p.entries.emplace(labels, Entry{});
  return true;
}

std::vector<StepSeriesIndex::Labels> StepSeriesIndex::Replace(
    const std::string& plan) {
  auto found = plans_.find(plan);
  if (found == plans_.end()) return {};
  Plan& p = found->second;
  // A sweep that measured nothing leaves the earlier one's series.
  if (p.old.size() == p.entries.size()) return {};
  std::vector<Labels> removed(p.old.begin(), p.old.end());
  for (const Labels& labels : removed) p.entries.erase(labels);
  p.old.clear();
  for (auto& [labels, entry] : p.entries) {
    entry.current = false;
    entry.old_position = p.old.insert(p.old.end(), labels);
  }
  return removed;
}

size_t StepSeriesIndex::size(const std::string& plan) const {
  auto found = plans_.find(plan);
  return found == plans_.end() ? 0 : found->second.entries.size();
}

}  // namespace fabricpulse::coordinator
