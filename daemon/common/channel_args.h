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

}  // namespace fabricpulse::common
