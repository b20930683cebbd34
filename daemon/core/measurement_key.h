// How a sweep's steps were measured, as one string: the settings beside a
// step's own key (op, dtype, size, placement) that change its figures:
// warm-ups, fixed or adaptive iterations (and the adaptive rule), CUDA-graph
// mode, the reduction, the root and, for MoE ops, the routing shape. A
// baseline only compares steps measured the same way, so editing any of
// these in a plan starts a new baseline (issue 29, item 3). Pure.
#pragma once

#include <string>

#include "daemon/core/sweep_spec.h"

namespace fabricpulse::core {

// e.g. "warmup=5;iters=20;graph=0;redop=sum;root=0" or
// "warmup=5;iters=auto(0.01,5..100,2s);graph=0;redop=sum;root=0;moe=..."
std::string MeasurementKey(const SweepSpec& spec);

}  // namespace fabricpulse::core
