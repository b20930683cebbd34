// The fleet simulator's link model: what each rank of a simulated
// collective reports for one step, from the op's nccl-tests traits, a
// per-link bandwidth and a base latency. Pure functions, so the figures a
// simulated sweep reports are deterministic and unit-tested.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "daemon/core/sweep_spec.h"
#include "fabricpulse/v1/types.pb.h"

namespace fabricpulse::scale {

struct LinkModel {
  // Bandwidth of one rank's link, in Gbit/s (10^9 bits per second).
  double link_gbps = 100;
  // Base latency of one hop of the ring, in microseconds.
  double latency_us = 5;
  // Largest relative spread between healthy ranks: rank r's time is the
  // modeled time x (1 + jitter x u(step, r)), u in [0, 1) deterministic.
  double jitter = 0.02;
};

// Errors: INVALID_ARGUMENT naming the field when link_gbps <= 0,
// latency_us < 0 or jitter outside [0, 1).
absl::Status ValidateLinkModel(const LinkModel& model);

// The link's bandwidth in bytes per second.
double LinkBytesPerSecond(const LinkModel& model);

// Sequential latency hops of a ring (pipeline) implementation of `op` over
// `nranks` ranks: all_reduce 2(n-1); all_gather, reduce_scatter, alltoall,
// gather, scatter, broadcast, reduce n-1; sendrecv 1. At least 1.
int LatencyHops(core::Op op, int nranks);

// One iteration of `step` on a healthy rank, in seconds:
//   LatencyHops x latency + bytes x BusBandwidthFactor(op, n) / link bytes/s.
// Large steps thus report busbw close to the link bandwidth (busbw =
// bytes / time x factor), small ones are latency-bound, as on a real fabric.
double StepSeconds(const LinkModel& model, const core::Step& step, int nranks);

// What rank `rank` (0 <= rank < nranks) reports for `step`: mean =
// StepSeconds x slow_factor x (1 + jitter x u), p50 = mean, min = 0.97 x
// mean, max = p99 = 1.05 x mean, wrong = 0, arrival = StepSeconds x
// (slow_factor - 1 + jitter x u / 10). `slow_factor` >= 1 models a slow
// node (1: healthy), which enters each op late. Requires a validated model.
v1::RankTiming RankTimingFor(const LinkModel& model, const core::Step& step,
                             int nranks, int rank, double slow_factor);

// Communicator bootstrap of `nranks` ranks, in seconds: one all-gather of
// addresses, i.e. (n-1) hops of latency plus a fixed 1 ms.
double CommInitSeconds(const LinkModel& model, int nranks);

}  // namespace fabricpulse::scale
