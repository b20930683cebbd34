// A kernel that keeps a stream busy for a set time, so that what the host
// enqueues behind it is waiting on the GPU, not the other way round.
//
// Every timed loop starts on a drained stream: its start event fires at
// once, and its first op then waits for the host to launch it (several
// microseconds of NCCL's enqueue), which was counted as that op's time.
// Over a fixed loop of 20 that is one op in 20; over adaptive batches of 4
// it was one in 4, and on one H200 it put adaptive busbw 0.1-1.2 % under
// fixed at every size >= 64 MiB (tests/perf/adaptive_iters.sh, 2026-12-02).
// Queued ahead of the start event, this kernel covers the launch. It also
// lets the host run up to kCoverMicros ahead of the GPU: a short op's mean
// loop therefore runs behind enough untimed ops to spend that lead
// (NcclCommunicator::TimedLoopPair).
#pragma once

#include <cuda_runtime.h>

namespace fabricpulse::backend::launch_cover {

// Long enough to cover the host's event record and one NCCL enqueue (a few
// microseconds each), short against an op timed alone one by one (>= 200
// us, NcclCommunicator::kOneByOneAloneAbove).
inline constexpr unsigned kCoverMicros = 50;

// Enqueues one single-thread kernel that spins on the GPU's global timer
// for `microseconds`.
cudaError_t LaunchSpin(unsigned microseconds, cudaStream_t stream);

}  // namespace fabricpulse::backend::launch_cover
