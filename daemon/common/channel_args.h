// The channel arguments every client of a FabricPulse server uses: the
// largest answer it accepts (core::kMaxClientReceiveBytes, sized from the
// bounds in core/limits.h so that ListAgents at the agent bound and
// GetSweep of the largest sweep always fit).
#pragma once

#include "daemon/core/limits.h"
#include "grpcpp/grpcpp.h"

namespace fabricpulse::common {

inline grpc::ChannelArguments ClientChannelArguments() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(core::kMaxClientReceiveBytes);
  return args;
}

// The links that carry heartbeats (the coordinator's and the agents'
// servers, an agent's channel to the coordinator) do not probe the
// bandwidth-delay product: with GRPC_ARG_HTTP2_BDP_PROBE on, HTTP/2 flow
// control follows each burst of data it receives with a PING to size its
// receive window, one more round trip per heartbeat that wakes both
// processes again (tests/perf/idle_cpu.sh; figures in docs/performance.md).
// Their receive windows stay at HTTP/2's 64 KiB, ample for what they receive:
// heartbeats and requests (the largest, a SweepRequest of ~4.3 MB, takes ~70
// round trips).
inline void NoBdpProbe(grpc::ChannelArguments& args) {
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
}
inline void NoBdpProbe(grpc::ServerBuilder& builder) {
  builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
}

}  // namespace fabricpulse::common
