#include "client/output/sweep_json.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/output/isolation_output.h"
#include "client/output/json_writer.h"
#include "client/output/max_bytes_auto_text.h"
#include "client/output/moe_traffic.h"
#include "client/output/result_fields.h"
#include "client/output/table_devices.h"
#include "client/output/units.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/adaptive_iters.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/version.h"

namespace fabricpulse::client {
namespace {

void WriteField(JsonWriter& json, const ResultField& field) {
  json.Key(field.key);
  switch (field.kind) {
    case ResultField::Kind::kString:
      json.String(field.text);
      break;
    case ResultField::Kind::kNull:
      json.Null();
      break;
    case ResultField::Kind::kLiteral:
    case ResultField::Kind::kObject:
      json.Raw(field.text);
      break;
  }
}

std::optional<double> Known(double unix_seconds) {
  if (unix_seconds <= 0) return std::nullopt;
  return unix_seconds;
}

void WriteTime(JsonWriter& json, absl::string_view name, double unix_seconds) {
  json.Key(absl::StrCat(name, "_at")).StringOrNull(Rfc3339(unix_seconds));
  // Milliseconds, as the RFC 3339 form.
  json.Key(absl::StrCat(name, "_unix_seconds")).Fixed(Known(unix_seconds), 3);
}

// The spec as it ran, every field with its unit in its name; an absent
// optional field is its default as the coordinator fills it.
void WriteSpec(JsonWriter& json, const v1::SweepSpec& spec) {
  json.BeginObject();
  json.Key("ops").StringArray({spec.ops().begin(), spec.ops().end()});
  json.Key("min_bytes").Unsigned(spec.min_bytes());
  json.Key("max_bytes").Unsigned(spec.max_bytes());
  json.Key("factor").Number(spec.factor());
  json.Key("step_bytes").Unsigned(spec.step_bytes());
  json.Key("dtype").String(spec.dtype());
  json.Key("redop").String(spec.redop());
  json.Key("root").Int(spec.root());
  json.Key("warmup_iters");
  spec.has_warmup_iters() ? json.Int(spec.warmup_iters()) : json.Null();
  json.Key("iters");
  spec.has_iters() && !spec.has_adaptive() ? json.Int(spec.iters())
                                           : json.Null();
  json.Key("adaptive");
  if (spec.has_adaptive()) {
    const v1::AdaptiveIters& a = spec.adaptive();
    json.BeginObject();
    json.Key("tolerance")
        .Number(a.has_tolerance() ? a.tolerance() : core::kDefaultTolerance);
    json.Key("min_iters")
        .Int(a.has_min_iters() ? a.min_iters() : core::kDefaultMinIters);
    json.Key("max_iters")
        .Int(a.has_max_iters() ? a.max_iters() : core::kDefaultMaxIters);
    json.Key("step_time_cap_seconds")
        .Number(a.has_step_time_cap_seconds()
                    ? a.step_time_cap_seconds()
                    : absl::ToDoubleSeconds(core::kDefaultStepTimeCap));
    json.EndObject();
  } else {
    json.Null();
  }
  json.Key("check").Bool(spec.check());
  json.Key("placement").String(spec.placement());
  json.Key("graph").Bool(spec.graph());
  json.Key("timeout_seconds").Number(spec.timeout_seconds());
  json.Key("fresh_comm").Bool(spec.fresh_comm());
  const std::string max_bytes_auto = MaxBytesAutoJson(spec);
  json.Key("max_bytes_auto");
  max_bytes_auto.empty() ? json.Null() : json.Raw(max_bytes_auto);
  json.Key("moe");
  if (spec.has_moe()) {
    const core::MoeShape moe = common::SpecFromProto(spec).moe;
    json.BeginObject();
    json.Key("tokens").Int(moe.tokens);
    json.Key("hidden").Int(moe.hidden);
    json.Key("topk").Int(moe.topk);
    json.Key("experts_per_rank").Int(moe.experts_per_rank);
    json.Key("skew").Number(moe.skew);
    json.Key("seed").Unsigned(moe.seed);
    json.Key("dtype").String(moe.dtype);
    // DeepEP's fields (moe_preset.h); null preset and defaults otherwise.
    json.Key("preset").StringOrNull(moe.preset);
    json.Key("experts_total").Int(moe.experts_total);
    json.Key("group_ranks").Int(moe.group_ranks);
    json.Key("topk_groups").Int(moe.topk_groups);
    json.Key("masked").Int(moe.masked);
    json.Key("per_selection").Bool(moe.per_selection);
    json.Key("fp8_scales").Bool(moe.fp8_scales);
    json.Key("header_bytes").Int(moe.header_bytes);
    json.Key("combine_dtype")
        .String(moe.combine_dtype.empty() ? moe.dtype : moe.combine_dtype);
    json.EndObject();
  } else {
    json.Null();
  }
  json.EndObject();
}

void WriteRanks(JsonWriter& json, const SweepDocument& doc) {
  json.BeginArray();
  for (const v1::RankPlacement& r : doc.sweep.ranks()) {
    json.BeginObject();
    json.Key("rank").Int(r.rank());
    json.Key("node").String(r.node());
    json.Key("local_index").Int(r.local_index());
    json.Key("gpu");
    r.gpu() >= 0 ? json.Int(r.gpu()) : json.Null();
    json.Key("gpu_model").StringOrNull(r.gpu_model());
    json.Key("pci_bus_id").StringOrNull(r.pci_bus_id());
    json.Key("pid");
    auto pid = doc.pids.find(r.rank());
    pid != doc.pids.end() ? json.Int(pid->second) : json.Null();
    json.EndObject();
  }
  json.EndArray();
}

// A figure and its bandwidth over `seconds` (null when not known).
void WriteBytes(JsonWriter& json, absl::string_view key,
                const std::optional<double>& bytes, double seconds) {
  json.Key(key);
  bytes ? json.Number(*bytes) : json.Null();
  json.Key(absl::StrCat(key, "_per_second"));
  bytes&& seconds > 0 ? json.Number(*bytes / seconds) : json.Null();
}

void WriteMoeTraffic(JsonWriter& json, const std::optional<MoeTraffic>& traffic,
                     core::Op op, double seconds) {
  if (!traffic) {
    json.Null();
    return;
  }
  json.BeginObject();
  json.Key("self_bytes").Number(traffic->self_bytes);
  json.Key("intra_node_bytes").Number(traffic->intra_node_bytes);
  json.Key("network_bytes").Number(traffic->network_bytes);
  const core::DeepEpBytes& d = traffic->deepep;
  json.Key("deepep").BeginObject();
  json.Key("accounting").String(d.low_latency ? "low_latency" : "normal");
  json.Key("combine_timing").StringOrNull(MoeCombineTiming(op));
  WriteBytes(json, "bytes", d.bytes, seconds);
  WriteBytes(json, "nvl_bytes", d.nvl_bytes, seconds);
  WriteBytes(json, "rdma_bytes", d.rdma_bytes, seconds);
  json.EndObject();
  json.EndObject();
}

void WriteStep(JsonWriter& json, const SweepDocument& doc,
               const v1::StepResult& result, const OutputOptions& options) {
  json.BeginObject();
  for (const ResultField& field : ResultFields(result, options)) {
    WriteField(json, field);
  }
  absl::StatusOr<core::Op> op = core::ParseOp(result.step().op());
  if (op.ok() && core::IsMoe(*op)) {
    json.Key("moe_traffic");
    const std::optional<ReportedFigures> shown =
        Reported(result, options.time_across_ranks);
    WriteMoeTraffic(json,
                    MoeTrafficOf(doc.sweep.spec(), doc.sweep.ranks(), *op), *op,
                    shown ? shown->time_seconds : 0);
  }
  if (result.pairs_size() > 0) {
    json.Key("pairs").BeginArray();
    for (const v1::PairResult& pair : result.pairs()) {
      json.BeginObject();
      for (const ResultField& field : PairFields(pair, options)) {
        WriteField(json, field);
      }
      json.EndObject();
    }
    json.EndArray();
  }
  json.EndObject();
}

void WriteSweep(JsonWriter& json, const SweepDocument& doc,
                const OutputOptions& options) {
  const v1::SweepSummary& s = doc.sweep;
  json.BeginObject();
  json.Key("sweep_id").String(s.sweep_id());
  json.Key("plan").StringOrNull(s.plan());
  json.Key("trigger").StringOrNull(s.trigger());
  json.Key("status").String(s.status());
  json.Key("error").StringOrNull(s.error());
  WriteTime(json, "started", s.started_unix_seconds());
  WriteTime(json, "finished", s.finished_unix_seconds());
  std::optional<double> duration = doc.duration_seconds;
  if (!duration && s.started_unix_seconds() > 0 &&
      s.finished_unix_seconds() > 0) {
    duration = s.finished_unix_seconds() - s.started_unix_seconds();
  }
  json.Key("duration_seconds").Number(duration);
  json.Key("nranks").Int(s.nranks());
  json.Key("nodes").StringArray({s.nodes().begin(), s.nodes().end()});
  json.Key("backend").StringOrNull(s.backend());
  json.Key("backend_version").StringOrNull(s.backend_version());
  json.Key("topology").StringOrNull(s.topology());
  json.Key("spec");
  WriteSpec(json, s.spec());
  json.Key("ranks");
  WriteRanks(json, doc);
  json.Key("straggler").StringOrNull(s.straggler());
  json.Key("comm");
  // A communicator that was neither reused nor timed never became ready.
  if (s.comm_reused() || s.comm_init_seconds() > 0) {
    json.BeginObject();
    json.Key("reused").Bool(s.comm_reused());
    json.Key("init_seconds").Number(s.comm_init_seconds());
    json.EndObject();
  } else {
    json.Null();
  }
  json.Key("step_count").Int(s.steps());
  json.Key("regressions").Int(s.regressions());
  // Only `results SWEEP_ID` of a sweep the coordinator isolated after.
  if (s.has_isolation()) {
    json.Key("isolation");
    WriteIsolation(json, s.isolation());
  }
  json.Key("steps");
  if (doc.steps) {
    json.BeginArray();
    for (const v1::StepResult& r : *doc.steps) {
      WriteStep(json, doc, r, options);
    }
    json.EndArray();
  } else {
    json.Null();
  }
  json.EndObject();
}

}  // namespace

std::string Rfc3339(double unix_seconds) {
  if (unix_seconds <= 0) return "";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ",
                          absl::UnixEpoch() + absl::Seconds(unix_seconds),
                          absl::UTCTimeZone());
}

std::string SweepsJson(const std::vector<SweepDocument>& sweeps,
                       const OutputOptions& options) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").String(kSweepsSchema);
  json.Key("tool").BeginObject();
  json.Key("name").String("fabricpulse");
  json.Key("version").String(core::VersionNumber());
  json.Key("commit").StringOrNull(core::GitCommit());
  json.Key("dirty").Bool(core::GitDirty());
  json.EndObject();
  json.Key("bandwidth_unit").String(MachineBwUnit(options));
  json.Key("sweeps").BeginArray();
  for (const SweepDocument& doc : sweeps) WriteSweep(json, doc, options);
  json.EndArray();
  json.EndObject();
  return json.Finish();
}

}  // namespace fabricpulse::client
