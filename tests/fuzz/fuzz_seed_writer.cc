// Writes the binary seed inputs of the request fuzz targets:
//   fuzz_seed_writer DIR   ->  DIR/<target>/seed-<name>.bin
// Each file is the request byte (request_methods.h) and then the message's
// wire bytes: valid requests and the edge cases each handler must refuse.
// The committed copies live in tests/fuzz/corpus/ (checked current by the
// test fuzz_seeds_current).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "fabricpulse/v1/agent.pb.h"
#include "fabricpulse/v1/coordinator.pb.h"
#include "fabricpulse/v1/worker.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "tests/fuzz/request_methods.h"

namespace fabricpulse::fuzz {
namespace {

class Writer {
 public:
  explicit Writer(std::filesystem::path dir) : dir_(std::move(dir)) {}

  template <typename Method>
  void Write(const std::string& target, Method method, const std::string& name,
             const google::protobuf::Message& message) {
    std::filesystem::create_directories(dir_ / target);
    std::string bytes(1, static_cast<char>(method));
    // Deterministic: the same message always gives the same file.
    std::string wire;
    {
      google::protobuf::io::StringOutputStream out(&wire);
      google::protobuf::io::CodedOutputStream coded(&out);
      coded.SetSerializationDeterministic(true);
      message.SerializeToCodedStream(&coded);
    }
    bytes += wire;
    std::ofstream(dir_ / target / ("seed-" + name + ".bin"), std::ios::binary)
        << bytes;
    ++written_;
  }
  int written() const { return written_; }

 private:
  std::filesystem::path dir_;
  int written_ = 0;
};

v1::AgentInfo Agent(const std::string& name) {
  v1::AgentInfo info;
  info.set_node_name(name);
  info.set_address("127.0.0.1:7071");
  info.set_backend("gloo");
  info.set_backend_version("gloo 0.5");
  for (int i = 0; i < 2; ++i) {
    v1::WorkerInfo* w = info.add_workers();
    w->set_local_index(i);
    w->set_incarnation(name + "-" + std::to_string(i));
    w->set_ready(true);
    w->set_gpu(-1);
  }
  return info;
}

v1::SweepSpec Spec() {
  v1::SweepSpec spec;
  spec.add_ops("all_reduce");
  spec.set_min_bytes(8);
  spec.set_max_bytes(1 << 20);
  spec.set_factor(2);
  spec.set_iters(5);
  spec.set_warmup_iters(1);
  spec.set_placement("both");
  spec.set_timeout_seconds(30);
  return spec;
}

void Coordinator(Writer& w) {
  const std::string t = "coordinator_requests";
  using M = CoordinatorMethod;
  v1::RegisterRequest reg;
  *reg.mutable_agent() = Agent("node-a");
  w.Write(t, M::kRegister, "register", reg);
  reg.mutable_agent()->set_node_name("");
  w.Write(t, M::kRegister, "register-empty-name", reg);
  reg.mutable_agent()->set_node_name("node\nb INFO forged");
  w.Write(t, M::kRegister, "register-newline-name", reg);
  reg.mutable_agent()->set_node_name("node-a");
  reg.mutable_agent()->set_address("");
  w.Write(t, M::kRegister, "register-empty-address", reg);

  v1::HeartbeatRequest heartbeat;
  heartbeat.set_agent_id("node-a-1-0badf00d");
  *heartbeat.add_workers() = Agent("node-a").workers(0);
  w.Write(t, M::kHeartbeat, "heartbeat", heartbeat);
  heartbeat.set_agent_id("");
  w.Write(t, M::kHeartbeat, "heartbeat-empty-id", heartbeat);

  v1::KvSetRequest set;
  set.set_key("comm-1/20260101-000000-0001/0");
  set.set_value(std::string("\x00\x01\x02rank0", 8));
  w.Write(t, M::kKvSet, "kvset", set);
  set.set_key("");
  w.Write(t, M::kKvSet, "kvset-empty-key", set);

  v1::KvGetRequest get;
  get.set_key("comm/0/rank0");
  get.set_wait_seconds(1);
  w.Write(t, M::kKvGet, "kvget", get);
  get.set_key("missing");
  get.set_wait_seconds(std::numeric_limits<double>::quiet_NaN());
  w.Write(t, M::kKvGet, "kvget-wait-nan", get);
  get.set_wait_seconds(-1e300);
  w.Write(t, M::kKvGet, "kvget-wait-negative", get);

  v1::SweepRequest sweep;
  *sweep.mutable_spec() = Spec();
  w.Write(t, M::kRunSweep, "runsweep", sweep);
  sweep.add_nodes("node-b");
  sweep.mutable_spec()->add_ops("alltoall");
  sweep.mutable_spec()->set_step_bytes(4096);
  w.Write(t, M::kRunSweep, "runsweep-node-step", sweep);
  sweep.clear_nodes();
  sweep.add_nodes("node-z");
  w.Write(t, M::kRunSweep, "runsweep-unknown-node", sweep);
  v1::SweepRequest plan;
  plan.set_plan("quick");
  w.Write(t, M::kRunSweep, "runsweep-plan", plan);
  plan.set_plan("nightly-ful");
  w.Write(t, M::kRunSweep, "runsweep-unknown-plan", plan);
  v1::SweepRequest bad;
  *bad.mutable_spec() = Spec();
  bad.mutable_spec()->set_iters(0);
  bad.mutable_spec()->set_root(-1);
  w.Write(t, M::kRunSweep, "runsweep-bad-iters", bad);
  bad = v1::SweepRequest();
  for (const char* op :
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
        "alltoall", "sendrecv", "gather", "scatter"}) {
    bad.mutable_spec()->add_ops(op);
  }
  bad.mutable_spec()->set_max_bytes(1ull << 40);
  bad.mutable_spec()->set_factor(1.0001);
  w.Write(t, M::kRunSweep, "runsweep-all-ops-many-sizes", bad);

  v1::ListSweepsRequest list;
  w.Write(t, M::kListSweeps, "listsweeps-default", list);
  list.set_last(1000);
  w.Write(t, M::kListSweeps, "listsweeps-max", list);
  list.set_last(-5);
  w.Write(t, M::kListSweeps, "listsweeps-negative", list);

  v1::AbortSweepRequest abort;
  abort.set_sweep_id("20260101-000000-0001");
  w.Write(t, M::kIdOnly, "abort", abort);
}

void Agents(Writer& w) {
  const std::string t = "agent_requests";
  using M = AgentMethod;
  v1::AgentSweepRequest sweep;
  sweep.set_sweep_id("20260101-000000-0001");
  sweep.set_comm_id("comm-1");
  sweep.set_nranks(4);
  *sweep.mutable_spec() = Spec();
  for (int i = 0; i < 2; ++i) {
    v1::RankAssignment* a = sweep.add_ranks();
    a->set_local_index(i);
    a->set_rank(i + 2);
  }
  sweep.set_coordinator("127.0.0.1:7070");
  sweep.set_membership_epoch(7);
  sweep.set_lease_seconds(5);
  w.Write(t, M::kRunSweep, "runsweep", sweep);
  sweep.set_membership_epoch(3);
  w.Write(t, M::kRunSweep, "runsweep-stale-epoch", sweep);
  sweep.set_membership_epoch(std::numeric_limits<uint64_t>::max());
  w.Write(t, M::kRunSweep, "runsweep-max-epoch", sweep);
  sweep.set_membership_epoch(7);
  sweep.mutable_ranks(1)->set_local_index(5);
  w.Write(t, M::kRunSweep, "runsweep-bad-local-index", sweep);
  sweep.mutable_ranks(1)->set_local_index(0);
  sweep.set_lease_seconds(std::numeric_limits<double>::infinity());
  w.Write(t, M::kRunSweep, "runsweep-same-worker-twice", sweep);

  v1::AgentAbortRequest abort;
  abort.set_comm_id("comm-1");
  w.Write(t, M::kAbort, "abort", abort);
  v1::AgentFlightRecordsRequest records;
  records.set_sweep_id("20260101-000000-0001");
  w.Write(t, M::kFlightRecords, "flightrecords", records);
  w.Write(t, M::kDescribe, "describe", v1::DescribeRequest());
}

void Workers(Writer& w) {
  const std::string t = "worker_requests";
  using M = WorkerMethod;
  v1::WorkerSweepRequest sweep;
  sweep.set_sweep_id("20260101-000000-0001");
  sweep.set_comm_id("comm-1");
  sweep.set_rank(1);
  sweep.set_nranks(2);
  *sweep.mutable_spec() = Spec();
  sweep.set_coordinator("127.0.0.1:7070");
  w.Write(t, M::kRunSweep, "runsweep", sweep);
  sweep.set_rank(2);
  w.Write(t, M::kRunSweep, "runsweep-rank-out-of-range", sweep);
  sweep.set_rank(0);
  sweep.mutable_spec()->set_graph(true);
  sweep.mutable_spec()->set_dtype("bfloat16");
  w.Write(t, M::kRunSweep, "runsweep-nccl-only", sweep);
  sweep.mutable_spec()->set_graph(false);
  sweep.mutable_spec()->set_dtype("float");
  sweep.mutable_spec()->clear_ops();
  sweep.mutable_spec()->add_ops("reduce_scatter");
  sweep.mutable_spec()->set_min_bytes(1);
  sweep.mutable_spec()->set_max_bytes(4);
  w.Write(t, M::kRunSweep, "runsweep-too-small", sweep);

  v1::FlightRecordsRequest records;
  records.set_sweep_id("s1");
  w.Write(t, M::kFlightRecords, "flightrecords", records);
  w.Write(t, M::kFlightRecords, "flightrecords-all",
          v1::FlightRecordsRequest());
  v1::WorkerAbortRequest abort;
  abort.set_comm_id("comm-1");
  w.Write(t, M::kAbort, "abort", abort);
  w.Write(t, M::kPing, "ping", v1::PingRequest());
}

}  // namespace
}  // namespace fabricpulse::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seed_writer DIR\n");
    return 2;
  }
  fabricpulse::fuzz::Writer writer(argv[1]);
  fabricpulse::fuzz::Coordinator(writer);
  fabricpulse::fuzz::Agents(writer);
  fabricpulse::fuzz::Workers(writer);
  std::printf("fuzz_seed_writer: %d seeds in %s\n", writer.written(), argv[1]);
  return 0;
}
