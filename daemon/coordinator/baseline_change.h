// When a sweep starts a new baseline: its backend version (an NCCL upgrade)
// or its members' hardware (topology_key.h) differs from that of the
// plan's newest good sweep on the same members. Such a sweep is not judged
// against the sweeps before it (its steps carry no baseline and never
// regress), and says so once, in its `baseline_change` note.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "daemon/coordinator/store/history_store.h"

namespace fabricpulse::coordinator {

// Bound on a note: two versions and two hardware descriptions, cut.
inline constexpr size_t kMaxBaselineChangeLength = 512;

struct BaselineChange {
  // "nccl 2.28.9 -> nccl 2.29.1: new baseline from this sweep", or
  // "topology gpu=NVIDIA H100;nvlink=full -> gpu=NVIDIA H200;nvlink=full:
  // ..." or both, joined by "; ". At most kMaxBaselineChangeLength.
  std::string note;
  bool backend_version = false;  // which part changed
  bool topology = false;
};

// The change from `before` (the newest good sweep's key) to `now`; nullopt
// when both parts are equal.
std::optional<BaselineChange> FindBaselineChange(const BaselineKey& before,
                                                 const BaselineKey& now);

}  // namespace fabricpulse::coordinator
