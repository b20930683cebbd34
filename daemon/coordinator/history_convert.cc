#include "daemon/coordinator/history_convert.h"

#include <google/protobuf/util/json_util.h>

namespace fabricpulse::coordinator {

double UnixSeconds(absl::Time t) {
  if (t == absl::InfinitePast() || t == absl::InfiniteFuture()) return 0;
  return absl::ToDoubleSeconds(t - absl::UnixEpoch());
}

StepRecord StepRecordFromResult(const std::string& sweep_id,
                                const v1::StepResult& r) {
  StepRecord s;
  s.sweep_id = sweep_id;
  s.index = r.step().index();
  s.op = r.step().op();
  s.bytes = r.step().bytes();
  s.count = r.step().count();
  s.dtype = r.step().dtype();
  s.redop = r.step().redop();
  s.root = r.step().root();
  s.in_place = r.step().in_place();
  s.time_seconds = r.time_seconds();
  s.algbw = r.algbw_bytes_per_second();
  s.busbw = r.busbw_bytes_per_second();
  s.wrong = r.wrong();
  s.wrong_checked = r.has_wrong();
  s.slowest_rank = r.slowest_rank();
  s.min_rank_time_seconds = r.min_rank_time_seconds();
  s.max_rank_time_seconds = r.max_rank_time_seconds();
  if (r.has_mean_rank_time_seconds()) {
    s.mean_rank_time_seconds = r.mean_rank_time_seconds();
  }
  if (r.has_p50_seconds()) s.p50_seconds = r.p50_seconds();
  if (r.has_p99_seconds()) s.p99_seconds = r.p99_seconds();
  s.regression = r.regression();
  s.baseline_noisy = r.baseline_noisy();
  s.baseline_busbw = r.baseline_busbw_bytes_per_second();
  s.wrong_by_rank.insert(r.wrong_by_rank().begin(), r.wrong_by_rank().end());
  if (r.has_last_arrival_rank()) s.last_arrival_rank = r.last_arrival_rank();
  if (r.has_arrival_lateness_seconds()) {
    s.arrival_lateness_seconds = r.arrival_lateness_seconds();
  }
  s.baseline_sweeps = r.baseline_sweeps();
  s.baseline_time_seconds = r.baseline_time_seconds();
  s.iterations = r.iterations();
  if (r.step().has_round()) s.round = r.step().round();
  for (const v1::PairResult& p : r.pairs()) {
    PairRecord pair;
    pair.rank_a = p.rank_a();
    pair.rank_b = p.rank_b();
    pair.node_a = p.node_a();
    pair.node_b = p.node_b();
    pair.path = p.path();
    pair.time_seconds = p.time_seconds();
    pair.algbw = p.algbw_bytes_per_second();
    pair.busbw = p.busbw_bytes_per_second();
    pair.wrong = p.wrong();
    pair.flagged = p.flagged();
    s.pairs.push_back(std::move(pair));
  }
  return s;
}

v1::StepResult ResultFromStepRecord(const StepRecord& s) {
  v1::StepResult r;
  v1::StepKey* k = r.mutable_step();
  k->set_index(s.index);
  k->set_op(s.op);
  k->set_bytes(s.bytes);
  k->set_count(s.count);
  k->set_dtype(s.dtype);
  k->set_redop(s.redop);
  k->set_root(s.root);
  k->set_in_place(s.in_place);
  r.set_time_seconds(s.time_seconds);
  r.set_algbw_bytes_per_second(s.algbw);
  r.set_busbw_bytes_per_second(s.busbw);
  if (s.wrong_checked) r.set_wrong(s.wrong);
  r.set_baseline_noisy(s.baseline_noisy);
  r.set_slowest_rank(s.slowest_rank);
  r.set_min_rank_time_seconds(s.min_rank_time_seconds);
  r.set_max_rank_time_seconds(s.max_rank_time_seconds);
  if (s.mean_rank_time_seconds) {
    r.set_mean_rank_time_seconds(*s.mean_rank_time_seconds);
  }
  if (s.p50_seconds) r.set_p50_seconds(*s.p50_seconds);
  if (s.p99_seconds) r.set_p99_seconds(*s.p99_seconds);
  r.set_regression(s.regression);
  r.set_baseline_busbw_bytes_per_second(s.baseline_busbw);
  r.mutable_wrong_by_rank()->insert(s.wrong_by_rank.begin(),
                                    s.wrong_by_rank.end());
  if (s.last_arrival_rank) r.set_last_arrival_rank(*s.last_arrival_rank);
  if (s.arrival_lateness_seconds) {
    r.set_arrival_lateness_seconds(*s.arrival_lateness_seconds);
  }
  if (s.baseline_sweeps > 0) {
    r.set_baseline_sweeps(s.baseline_sweeps);
    r.set_baseline_time_seconds(s.baseline_time_seconds);
  }
  r.set_iterations(s.iterations);
  if (s.round) k->set_round(*s.round);
  for (const PairRecord& pair : s.pairs) {
    v1::PairResult* p = r.add_pairs();
    p->set_rank_a(pair.rank_a);
    p->set_rank_b(pair.rank_b);
    p->set_node_a(pair.node_a);
    p->set_node_b(pair.node_b);
    p->set_path(pair.path);
    p->set_time_seconds(pair.time_seconds);
    p->set_algbw_bytes_per_second(pair.algbw);
    p->set_busbw_bytes_per_second(pair.busbw);
    p->set_wrong(pair.wrong);
    p->set_flagged(pair.flagged);
  }
  return r;
}

RankRecord RankRecordFromPlacement(const v1::RankPlacement& placement) {
  RankRecord r;
  r.rank = placement.rank();
  r.node = placement.node();
  r.local_index = placement.local_index();
  r.gpu = placement.gpu();
  r.gpu_model = placement.gpu_model();
  r.pci_bus_id = placement.pci_bus_id();
  return r;
}

v1::RankPlacement PlacementFromRankRecord(const RankRecord& rank) {
  v1::RankPlacement p;
  p.set_rank(rank.rank);
  p.set_node(rank.node);
  p.set_local_index(rank.local_index);
  p.set_gpu(rank.gpu);
  p.set_gpu_model(rank.gpu_model);
  p.set_pci_bus_id(rank.pci_bus_id);
  return p;
}

v1::SweepSummary SummaryFromRecord(const SweepRecord& sweep,
                                   const std::vector<StepRecord>* steps) {
  v1::SweepSummary out;
  out.set_sweep_id(sweep.id);
  out.set_plan(sweep.plan);
  out.set_trigger(sweep.trigger);
  out.set_status(sweep.status);
  out.set_error(sweep.error);
  out.set_nranks(sweep.nranks);
  for (const auto& n : sweep.nodes) out.add_nodes(n);
  out.set_backend(sweep.backend);
  out.set_backend_version(sweep.backend_version);
  out.set_started_unix_seconds(UnixSeconds(sweep.started));
  out.set_finished_unix_seconds(UnixSeconds(sweep.finished));
  *out.mutable_spec() = SpecFromJson(sweep.spec_json);
  out.set_comm_init_seconds(sweep.comm_init_seconds);
  out.set_comm_reused(sweep.comm_reused);
  out.set_straggler(sweep.straggler);
  out.set_topology(sweep.topology);
  for (const RankRecord& r : sweep.ranks) {
    *out.add_ranks() = PlacementFromRankRecord(r);
  }
  if (steps != nullptr) {
    out.set_steps(static_cast<int>(steps->size()));
    int regressions = 0;
    for (const auto& s : *steps) regressions += s.regression ? 1 : 0;
    out.set_regressions(regressions);
  }
  return out;
}

std::string SpecToJson(const v1::SweepSpec& spec) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(spec, &json, options);
  return json;
}

v1::SweepSpec SpecFromJson(const std::string& json) {
  v1::SweepSpec spec;
  if (!google::protobuf::util::JsonStringToMessage(json, &spec).ok()) {
    spec.Clear();
  }
  return spec;
}

v1::SweepIsolation IsolationToProto(const IsolationRecord& isolation) {
  v1::SweepIsolation out;
  out.set_cause(isolation.cause);
  out.set_op(isolation.op);
  out.set_bytes(isolation.bytes);
  out.set_verdict(isolation.verdict);
  for (const std::string& c : isolation.culprits) out.add_culprits(c);
  out.set_summary(isolation.summary);
  for (const IsolationRoundRecord& r : isolation.rounds) {
    v1::IsolationRound* round = out.add_rounds();
    round->set_role(r.role);
    for (const std::string& n : r.nodes) round->add_nodes(n);
    round->set_ok(r.ok);
    if (r.ok) round->set_busbw_bytes_per_second(r.busbw);
    round->set_error(r.error);
    round->set_sweep_id(r.sweep_id);
  }
  out.set_started_unix_seconds(UnixSeconds(isolation.started));
  out.set_finished_unix_seconds(UnixSeconds(isolation.finished));
  return out;
}

}  // namespace fabricpulse::coordinator
