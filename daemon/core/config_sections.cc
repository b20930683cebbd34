#include "daemon/core/config_sections.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/core/byte_size.h"
#include "daemon/core/limits.h"
#include "daemon/core/name_rules.h"
#include "daemon/core/status_macros.h"
#include "daemon/core/topology_limits.h"

namespace fabricpulse::core::config_internal {
namespace {

std::string FormatDays(absl::Duration d) {
  if (d % absl::Hours(24) == absl::ZeroDuration()) {
    return absl::StrCat(d / absl::Hours(24), "d");
  }
  return absl::FormatDuration(d);
}

absl::Status DurationInRange(const Field& field, absl::string_view path,
                             absl::Duration value, absl::Duration min,
                             absl::Duration max) {
  if (value < min || value > max) {
    return ConfigError(
        field.line, path,
        absl::StrCat(FormatDays(value), " is out of range; allowed: ",
                     FormatDays(min), " to ", FormatDays(max)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<absl::Duration> ReadLongDuration(const Field& field,
                                                absl::string_view path) {
  absl::StatusOr<std::string> text = ReadString(field, path);
  if (!text.ok()) return text.status();
  absl::string_view days_text = *text;
  double days = 0;
  if (absl::ConsumeSuffix(&days_text, "d") &&
      absl::SimpleAtod(days_text, &days) && std::isfinite(days) && days >= 0 &&
      days < 1e6) {
    return absl::Hours(24 * days);
  }
  absl::Duration duration;
  if (absl::ParseDuration(*text, &duration) &&
      duration != absl::InfiniteDuration() &&
      duration >= absl::ZeroDuration()) {
    return duration;
  }
  return ConfigError(field.line, path,
                     absl::StrCat(QuotePrefix(*text),
                                  " is not a duration; use e.g. 90d, 36h or "
                                  "1h30m"));
}

absl::Status ParseHistory(const Field& field, CoordinatorConfig& config) {
  absl::StatusOr<Fields> fields =
      ReadMap(field.value, field.line, "history", {"max_age", "max_bytes"});
  if (!fields.ok()) return fields.status();
  if (auto it = fields->find("max_age"); it != fields->end()) {
    absl::StatusOr<absl::Duration> age =
        ReadLongDuration(it->second, "history.max_age");
    if (!age.ok()) return age.status();
    if (absl::Status range =
            DurationInRange(it->second, "history.max_age", *age,
                            kMinHistoryMaxAge, kMaxHistoryMaxAge);
        !range.ok()) {
      return range;
    }
    config.history_max_age = *age;
  }
  if (auto it = fields->find("max_bytes"); it != fields->end()) {
    absl::StatusOr<std::string> text =
        ReadString(it->second, "history.max_bytes");
    if (!text.ok()) return text.status();
    absl::StatusOr<uint64_t> bytes = ParseByteSize(*text, "max_bytes");
    if (!bytes.ok()) {
      return Relabel(bytes.status(), it->second.line, "history.max_bytes");
    }
    if (*bytes < kMinHistoryMaxBytes || *bytes > kMaxHistoryMaxBytes) {
      return ConfigError(
          it->second.line, "history.max_bytes",
          absl::StrCat(FormatByteSize(*bytes), " is out of range; allowed: ",
                       FormatByteSize(kMinHistoryMaxBytes), " to ",
                       FormatByteSize(kMaxHistoryMaxBytes)));
    }
    config.history_max_bytes = *bytes;
  }
  return absl::OkStatus();
}

absl::Status ParseAgents(const Field& field, CoordinatorConfig& config) {
  absl::StatusOr<Fields> fields =
      ReadMap(field.value, field.line, "agents", {"max", "forget_lost_after"});
  if (!fields.ok()) return fields.status();
  if (auto it = fields->find("max"); it != fields->end()) {
    absl::StatusOr<int64_t> max = ReadInt(it->second, "agents.max");
    if (!max.ok()) return max.status();
    if (*max < 1 || *max > kMaxAgentsLimit) {
      return ConfigError(it->second.line, "agents.max",
                         absl::StrCat(*max, " is out of range; allowed: 1 to ",
                                      kMaxAgentsLimit));
    }
    config.max_agents = static_cast<int>(*max);
  }
  if (auto it = fields->find("forget_lost_after"); it != fields->end()) {
    absl::StatusOr<absl::Duration> after =
        ReadLongDuration(it->second, "agents.forget_lost_after");
    if (!after.ok()) return after.status();
    if (absl::Status range =
            DurationInRange(it->second, "agents.forget_lost_after", *after,
                            kMinForgetLostAfter, kMaxForgetLostAfter);
        !range.ok()) {
      return range;
    }
    config.forget_lost_agents_after = *after;
  }
  return absl::OkStatus();
}

namespace {

// The path keys of `fields` into `limits`; `prefix` names them in errors.
absl::Status ReadPathLimits(const Fields& fields, absl::string_view prefix,
                            PathLimits& limits) {
  for (const auto& [key, target] :
       {std::pair{"nvlink", &limits.nvlink_gbps},
        std::pair{"pcie_shm", &limits.pcie_shm_gbps},
        std::pair{"network", &limits.network_gbps}}) {
    auto it = fields.find(key);
    if (it == fields.end()) continue;
    const std::string path = absl::StrCat(prefix, ".", key);
    absl::StatusOr<double> gbps = ReadDouble(it->second, path);
    if (!gbps.ok()) return gbps.status();
    if (!(*gbps > 0 && *gbps <= kMaxPhysicalLimitGbps)) {
      return ConfigError(it->second.line, path,
                         absl::StrCat(*gbps,
                                      " is out of range; allowed: more than 0, "
                                      "up to 1000000 (GB/s)"));
    }
    *target = *gbps;
  }
  return absl::OkStatus();
}

// A map keyed by GPU model as NVML names it (`path` names it in errors):
// at most `max` models, each name 1 to kMaxGpuModelLength characters.
absl::StatusOr<Fields> ReadGpuModelMap(const Field& field,
                                       const std::string& path, size_t max) {
  absl::StatusOr<Fields> models = ReadMap(field.value, field.line, path, {});
  if (!models.ok()) return models.status();
  if (models->size() > max) {
    return ConfigError(
        field.line, path,
        absl::StrCat(models->size(), " models; allowed: at most ", max));
  }
  for (const auto& [model, entry] : *models) {
    if (model.empty() || model.size() > kMaxGpuModelLength) {
      return ConfigError(
          entry.line, absl::StrCat(path, "[", model, "]"),
          absl::StrCat("a GPU model name of 1 to ", kMaxGpuModelLength,
                       " characters, as NVML names it"));
    }
  }
  return models;
}

}  // namespace

absl::Status ParsePhysicalLimits(const Field& field,
                                 CoordinatorConfig& config) {
  absl::StatusOr<Fields> fields =
      ReadMap(field.value, field.line, "physical_limits",
              {"nvlink", "pcie_shm", "network", "by_gpu_model"});
  if (!fields.ok()) return fields.status();
  PhysicalLimits& limits = config.physical_limits;
  FP_RETURN_IF_ERROR(ReadPathLimits(*fields, "physical_limits", limits));
  auto models = fields->find("by_gpu_model");
  if (models == fields->end()) return absl::OkStatus();
  absl::StatusOr<Fields> by_model = ReadGpuModelMap(
      models->second, "physical_limits.by_gpu_model", kMaxPhysicalLimitModels);
  if (!by_model.ok()) return by_model.status();
  for (const auto& [model, entry] : *by_model) {
    const std::string path =
        absl::StrCat("physical_limits.by_gpu_model[", model, "]");
    absl::StatusOr<Fields> paths = ReadMap(entry.value, entry.line, path,
                                           {"nvlink", "pcie_shm", "network"});
    if (!paths.ok()) return paths.status();
    PathLimits own = limits;  // the paths it leaves out: the plain ceilings
    FP_RETURN_IF_ERROR(ReadPathLimits(*paths, path, own));
    limits.by_gpu_model[model] = own;
  }
  return absl::OkStatus();
}

absl::Status ParseLinkExpectations(const Field& field,
                                   CoordinatorConfig& config) {
  absl::StatusOr<Fields> models =
      ReadGpuModelMap(field, "link_expectations", kMaxLinkExpectationModels);
  if (!models.ok()) return models.status();
  for (const auto& [model, entry] : *models) {
    const std::string path = absl::StrCat("link_expectations[", model, "]");
    absl::StatusOr<Fields> keys =
        ReadMap(entry.value, entry.line, path, {"nvlinks", "nics_gbit"});
    if (!keys.ok()) return keys.status();
    LinkExpectation expect;
    if (auto it = keys->find("nvlinks"); it != keys->end()) {
      absl::StatusOr<int64_t> n = ReadInt(it->second, path + ".nvlinks");
      if (!n.ok()) return n.status();
      if (*n < 0 || *n > kMaxExpectedNvlinks) {
        return ConfigError(it->second.line, path + ".nvlinks",
                           absl::StrCat(*n, " is out of range; allowed: 0 to ",
                                        kMaxExpectedNvlinks));
      }
      expect.nvlinks = static_cast<int>(*n);
    }
    if (auto it = keys->find("nics_gbit"); it != keys->end()) {
      absl::StatusOr<double> g = ReadDouble(it->second, path + ".nics_gbit");
      if (!g.ok()) return g.status();
      if (!(*g > 0 && *g <= 1e6)) {
        return ConfigError(it->second.line, path + ".nics_gbit",
                           absl::StrCat(*g,
                                        " is out of range; allowed: more than "
                                        "0, up to 1000000 (Gbit/s)"));
      }
      expect.nics_gbit = *g;
    }
    config.link_expectations[model] = expect;
  }
  return absl::OkStatus();
}

}  // namespace fabricpulse::core::config_internal
