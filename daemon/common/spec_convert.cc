#include "daemon/common/spec_convert.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/time/time.h"

namespace fabricpulse::common {

core::SweepSpec SpecFromProto(const v1::SweepSpec& proto) {
  core::SweepSpec spec;
  if (proto.ops_size() > 0) {
    spec.ops.assign(proto.ops().begin(), proto.ops().end());
  }
  if (proto.min_bytes() != 0) spec.min_bytes = proto.min_bytes();
  if (proto.max_bytes() != 0) spec.max_bytes = proto.max_bytes();
  if (proto.factor() != 0) spec.factor = proto.factor();
  spec.step_bytes = proto.step_bytes();
  if (!proto.dtype().empty()) spec.dtype = proto.dtype();
  if (!proto.redop().empty()) spec.redop = proto.redop();
  spec.root = proto.root();
  if (proto.has_warmup_iters()) spec.warmup_iters = proto.warmup_iters();
  if (proto.has_iters()) spec.iters = proto.iters();
  spec.check = proto.check();
  if (!proto.placement().empty()) spec.placement = proto.placement();
  spec.graph = proto.graph();
  if (proto.timeout_seconds() != 0) {
    // NaN and infinities stand for "out of range", which Validate refuses
    // (absl::Seconds(NaN) is undefined).
    spec.timeout = std::isfinite(proto.timeout_seconds())
                       ? absl::Seconds(proto.timeout_seconds())
                       : absl::InfiniteDuration();
  }
  spec.fresh_comm = proto.fresh_comm();
  if (proto.has_max_bytes_auto()) {
    const v1::MaxBytesAuto& a = proto.max_bytes_auto();
    spec.max_bytes_auto.fraction = a.fraction();
    spec.max_bytes_auto.free_bytes = a.free_bytes();
    spec.max_bytes_auto.least_free = a.least_free();
    spec.max_bytes_auto.budget_bytes = a.budget_bytes();
    for (const v1::OpMaxBytes& op : a.ops()) {
      spec.max_bytes_auto.ops.push_back(
          {op.op(), op.max_bytes(), op.buffer_bytes()});
    }
  }
  if (proto.has_moe()) {
    const v1::MoeShape& m = proto.moe();
    if (m.has_tokens()) spec.moe.tokens = m.tokens();
    if (m.has_hidden()) spec.moe.hidden = m.hidden();
    if (m.has_topk()) spec.moe.topk = m.topk();
    if (m.has_experts_per_rank()) {
      spec.moe.experts_per_rank = m.experts_per_rank();
    }
    if (m.has_skew()) spec.moe.skew = m.skew();
    if (m.has_seed()) spec.moe.seed = m.seed();
    if (m.has_dtype()) spec.moe.dtype = m.dtype();
    if (m.has_preset()) spec.moe.preset = m.preset();
    if (m.has_experts_total()) spec.moe.experts_total = m.experts_total();
    if (m.has_group_ranks()) spec.moe.group_ranks = m.group_ranks();
    if (m.has_topk_groups()) spec.moe.topk_groups = m.topk_groups();
    if (m.has_masked()) spec.moe.masked = m.masked();
    if (m.has_per_selection()) spec.moe.per_selection = m.per_selection();
    if (m.has_fp8_scales()) spec.moe.fp8_scales = m.fp8_scales();
    if (m.has_header_bytes()) spec.moe.header_bytes = m.header_bytes();
    if (m.has_combine_dtype()) spec.moe.combine_dtype = m.combine_dtype();
  }
  if (proto.has_adaptive()) {
    const v1::AdaptiveIters& a = proto.adaptive();
    spec.adaptive.enabled = true;
    // Absent: the default. NaN stays NaN, which ValidateAdaptive refuses.
    if (a.has_tolerance()) spec.adaptive.tolerance = a.tolerance();
    if (a.has_min_iters()) spec.adaptive.min_iters = a.min_iters();
    if (a.has_max_iters()) spec.adaptive.max_iters = a.max_iters();
    if (a.has_step_time_cap_seconds()) {
      spec.adaptive.step_time_cap =
          std::isfinite(a.step_time_cap_seconds())
              ? absl::Seconds(a.step_time_cap_seconds())
              : absl::InfiniteDuration();
    }
  }
  return spec;
}

v1::SweepSpec SpecToProto(const core::SweepSpec& spec) {
  v1::SweepSpec proto;
  for (const std::string& op : spec.ops) proto.add_ops(op);
  proto.set_min_bytes(spec.min_bytes);
  proto.set_max_bytes(spec.max_bytes);
  proto.set_factor(spec.factor);
  proto.set_step_bytes(spec.step_bytes);
  proto.set_dtype(spec.dtype);
  proto.set_redop(spec.redop);
  proto.set_root(spec.root);
  proto.set_warmup_iters(spec.warmup_iters);
  proto.set_iters(spec.iters);
  proto.set_check(spec.check);
  proto.set_placement(spec.placement);
  proto.set_graph(spec.graph);
  proto.set_timeout_seconds(absl::ToDoubleSeconds(spec.timeout));
  proto.set_fresh_comm(spec.fresh_comm);
  const core::MaxBytesAuto& a = spec.max_bytes_auto;
  if (a.fraction != 0 || !a.ops.empty()) {
    v1::MaxBytesAuto* out = proto.mutable_max_bytes_auto();
    out->set_fraction(a.fraction);
    out->set_free_bytes(a.free_bytes);
    out->set_least_free(a.least_free);
    out->set_budget_bytes(a.budget_bytes);
    for (const core::OpMaxBytes& op : a.ops) {
      v1::OpMaxBytes* entry = out->add_ops();
      entry->set_op(op.op);
      entry->set_max_bytes(op.max_bytes);
      entry->set_buffer_bytes(op.buffer_bytes);
    }
  }
  const bool any_moe = std::any_of(
      spec.ops.begin(), spec.ops.end(), [](const std::string& name) {
        absl::StatusOr<core::Op> op = core::ParseOp(name);
        return op.ok() && core::IsMoe(*op);
      });
  if (any_moe || !(spec.moe == core::MoeShape())) {
    v1::MoeShape* m = proto.mutable_moe();
    m->set_tokens(spec.moe.tokens);
    m->set_hidden(spec.moe.hidden);
    m->set_topk(spec.moe.topk);
    m->set_experts_per_rank(spec.moe.experts_per_rank);
    m->set_skew(spec.moe.skew);
    m->set_seed(spec.moe.seed);
    m->set_dtype(spec.moe.dtype);
    // Set only when not the default: a spec without a preset stays as it
    // was.
    const core::MoeShape plain;
    if (spec.moe.preset != plain.preset) m->set_preset(spec.moe.preset);
    if (spec.moe.experts_total != plain.experts_total) {
      m->set_experts_total(spec.moe.experts_total);
    }
    if (spec.moe.group_ranks != plain.group_ranks) {
      m->set_group_ranks(spec.moe.group_ranks);
    }
    if (spec.moe.topk_groups != plain.topk_groups) {
      m->set_topk_groups(spec.moe.topk_groups);
    }
    if (spec.moe.masked != plain.masked) m->set_masked(spec.moe.masked);
    if (spec.moe.per_selection) m->set_per_selection(true);
    if (spec.moe.fp8_scales) m->set_fp8_scales(true);
    if (spec.moe.header_bytes != plain.header_bytes) {
      m->set_header_bytes(spec.moe.header_bytes);
    }
    if (!spec.moe.combine_dtype.empty()) {
      m->set_combine_dtype(spec.moe.combine_dtype);
    }
  }
  if (spec.adaptive.enabled) {
    v1::AdaptiveIters* adaptive = proto.mutable_adaptive();
    adaptive->set_tolerance(spec.adaptive.tolerance);
    adaptive->set_min_iters(spec.adaptive.min_iters);
    adaptive->set_max_iters(spec.adaptive.max_iters);
    adaptive->set_step_time_cap_seconds(
        absl::ToDoubleSeconds(spec.adaptive.step_time_cap));
  }
  return proto;
}

v1::StepKey StepToProto(const core::Step& step) {
  v1::StepKey key;
  key.set_index(step.index);
  key.set_op(std::string(core::OpName(step.op)));
  key.set_bytes(step.bytes);
  key.set_count(step.count);
  key.set_dtype(std::string(core::DTypeName(step.dtype)));
  key.set_redop(std::string(core::RedOpName(step.redop)));
  key.set_root(step.root);
  key.set_in_place(step.in_place);
  if (step.round >= 0) key.set_round(step.round);
  return key;
}

v1::StepResult MergedToProto(const core::MergedStep& merged) {
  v1::StepResult result;
  *result.mutable_step() = StepToProto(merged.step);
  result.set_time_seconds(merged.time_seconds);
  result.set_algbw_bytes_per_second(merged.algbw);
  result.set_busbw_bytes_per_second(merged.busbw);
  if (merged.checked) result.set_wrong(merged.wrong);
  result.set_slowest_rank(merged.slowest_rank);
  result.set_min_rank_time_seconds(merged.min_rank_time_seconds);
  result.set_max_rank_time_seconds(merged.max_rank_time_seconds);
  result.set_mean_rank_time_seconds(merged.mean_rank_time_seconds);
  result.set_iterations(merged.iterations);
  if (merged.p50_seconds) result.set_p50_seconds(*merged.p50_seconds);
  if (merged.p99_seconds) result.set_p99_seconds(*merged.p99_seconds);
  for (const auto& [rank, wrong] : merged.wrong_by_rank) {
    (*result.mutable_wrong_by_rank())[rank] = wrong;
  }
  if (merged.last_arrival_rank) {
    result.set_last_arrival_rank(*merged.last_arrival_rank);
  }
  if (merged.arrival_lateness_seconds) {
    result.set_arrival_lateness_seconds(*merged.arrival_lateness_seconds);
  }
  return result;
}

core::RankStepTiming TimingFromProto(const v1::RankTiming& timing) {
  core::RankStepTiming out;
  out.rank = timing.rank();
  out.mean_seconds = timing.mean_seconds();
  if (timing.has_p50_seconds()) out.p50_seconds = timing.p50_seconds();
  if (timing.has_p99_seconds()) out.p99_seconds = timing.p99_seconds();
  out.wrong = timing.wrong();
  out.checked = timing.has_wrong();
  out.iterations = timing.iterations();
  if (timing.has_arrival_seconds()) {
    out.arrival_seconds = timing.arrival_seconds();
  }
  return out;
}

namespace {

absl::Time FromUnix(double seconds) {
  return seconds <= 0 ? absl::InfinitePast()
                      : absl::UnixEpoch() + absl::Seconds(seconds);
}

core::OpState StateFromName(const std::string& name) {
  if (name == "completed") return core::OpState::kCompleted;
  if (name == "failed") return core::OpState::kFailed;
  if (name == "enqueued") return core::OpState::kEnqueued;
  return core::OpState::kStarted;
}

}  // namespace

core::FlightRecord FlightRecordFromProto(const v1::FlightRecord& r) {
  core::FlightRecord out;
  out.seq = r.seq();
  out.op = r.op();
  out.bytes = r.bytes();
  out.dtype = r.dtype();
  out.enqueued = FromUnix(r.enqueued_unix_seconds());
  out.started = FromUnix(r.started_unix_seconds());
  out.completed = FromUnix(r.completed_unix_seconds());
  out.state = StateFromName(r.state());
  out.error = r.error();
  return out;
}

}  // namespace fabricpulse::common
