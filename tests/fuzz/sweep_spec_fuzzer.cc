// Fuzzes the sweep spec's validation and expansion (daemon/core/sweep_spec.h)
// with any field values, and checks what the workers rely on: every step is
// within the schedule, buffers and offsets fit, the expansion is
// deterministic, and refusals name the field.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/common/spec_convert.h"
#include "daemon/core/backend_support.h"
#include "daemon/core/dtype.h"
#include "daemon/core/moe_routing.h"
#include "daemon/core/moe_shape.h"
#include "daemon/core/op_traits.h"
#include "daemon/core/sweep_spec.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/spec_text.h"

namespace fabricpulse::fuzz {
namespace {

bool SameStep(const core::Step& a, const core::Step& b) {
  return a.index == b.index && a.op == b.op && a.bytes == b.bytes &&
         a.count == b.count && a.dtype == b.dtype && a.redop == b.redop &&
         a.root == b.root && a.in_place == b.in_place;
}

// Both ends of one rank's buffers lie inside what MaxBufferBytes sizes.
void CheckLayout(const core::Step& step, int nranks, int rank,
                 uint64_t max_buffer) {
  const core::BufferLayout layout =
      core::LayoutFor(step.op, step.count, nranks, rank, step.in_place);
  const uint64_t element = core::DTypeSize(step.dtype);
  if (layout.in_place) {
    if (layout.send_offset + layout.send_count > layout.alloc_count ||
        layout.recv_offset + layout.recv_count > layout.alloc_count) {
      Fail(absl::StrCat("step ", step.index, " rank ", rank,
                        ": in-place buffers overrun the allocation"));
    }
    if (layout.alloc_count * element > max_buffer) {
      Fail(absl::StrCat("step ", step.index,
                        ": allocation exceeds MaxBufferBytes"));
    }
  } else if ((layout.send_count + layout.recv_count) * element > max_buffer) {
    Fail(absl::StrCat("step ", step.index, ": buffers exceed MaxBufferBytes"));
  }
}

// An MoE step is one step of the spec's MoE shape, whatever the size
// schedule (min_bytes..max_bytes) and the spec's dtype say: tokens x hidden
// elements of the shape's dtype, no root, out of place, its buffers
// (MoeExchange's, not LayoutFor's) inside what MaxBufferBytes sizes.
void CheckMoeStep(const core::SweepSpec& spec, int nranks,
                  const core::Step& step, uint64_t max_buffer) {
  const absl::StatusOr<core::DType> dtype = core::MoeDType(spec.moe);
  if (!dtype.ok()) Fail("an MoE step of a shape whose dtype was refused");
  const uint64_t count = static_cast<uint64_t>(spec.moe.tokens) *
                         static_cast<uint64_t>(spec.moe.hidden);
  if (step.dtype != *dtype || step.count != count ||
      step.bytes != count * core::DTypeSize(*dtype)) {
    Fail(absl::StrCat("step ", step.index, ": MoE step of ", step.count,
                      " elements, ", step.bytes,
                      " bytes, is not the shape's tokens x hidden"));
  }
  if (step.root != -1 || step.in_place) {
    Fail("an MoE step with a root or in place");
  }
  if (core::MoeMaxBufferBytes(step.moe, nranks) > max_buffer) {
    Fail(absl::StrCat("step ", step.index,
                      ": MoE buffers exceed MaxBufferBytes"));
  }
}

void CheckSteps(const core::SweepSpec& spec, int nranks,
                const core::ResolvedSpec& resolved,
                const std::vector<core::Step>& steps) {
  if (steps.empty() || steps.size() > core::kMaxSteps) {
    Fail(absl::StrCat("Expand returned ", steps.size(), " steps"));
  }
  const uint64_t max_buffer = core::MaxBufferBytes(steps, nranks);
  for (size_t i = 0; i < steps.size(); ++i) {
    const core::Step& step = steps[i];
    if (step.index != static_cast<int>(i)) Fail("step index out of order");
    bool listed = false;
    for (core::Op op : resolved.ops) listed = listed || op == step.op;
    if (!listed) Fail("a step's op is not one of the spec's ops");
    if (core::IsMoe(step.op)) {
      CheckMoeStep(spec, nranks, step, max_buffer);
      continue;
    }
    if (step.count == 0 ||
        step.bytes != step.count * core::DTypeSize(step.dtype) ||
        step.bytes > spec.max_bytes) {
      Fail(absl::StrCat("step ", i, ": bad size ", step.bytes, " (count ",
                        step.count, ", max_bytes ", spec.max_bytes, ")"));
    }
    if (step.dtype != resolved.dtype || step.redop != resolved.redop) {
      Fail("a step's dtype or redop differs from the spec's");
    }
    if (step.root != (core::IsRooted(step.op) ? spec.root : -1)) {
      Fail("a step's root differs from the spec's");
    }
    if (step.in_place && (!core::SupportsInPlace(step.op) ||
                          resolved.placement == core::Placement::kOutOfPlace)) {
      Fail("an in-place step the placement or op does not allow");
    }
    if (core::SplitsCount(step.op) && step.count % nranks != 0) {
      Fail("a split op's count is not a multiple of nranks");
    }
    CheckLayout(step, nranks, 0, max_buffer);
    CheckLayout(step, nranks, nranks - 1, max_buffer);
  }
}

// SpecToProto then SpecFromProto gives the spec back (the wire form of a
// valid spec loses nothing that Validate accepted).
void CheckRoundTrip(const core::SweepSpec& spec) {
  const core::SweepSpec back = common::SpecFromProto(common::SpecToProto(spec));
  const bool same =
      back.ops == spec.ops && back.min_bytes == spec.min_bytes &&
      back.max_bytes == spec.max_bytes &&
      (back.factor == spec.factor || spec.step_bytes > 0) &&
      back.step_bytes == spec.step_bytes && back.dtype == spec.dtype &&
      back.redop == spec.redop && back.root == spec.root &&
      back.warmup_iters == spec.warmup_iters && back.iters == spec.iters &&
      back.check == spec.check && back.placement == spec.placement &&
      back.graph == spec.graph && back.fresh_comm == spec.fresh_comm &&
      absl::AbsDuration(back.timeout - spec.timeout) <= absl::Microseconds(1);
  if (!same) Fail("SpecFromProto(SpecToProto(spec)) differs from spec");
}

}  // namespace

int FuzzSweepSpec(const uint8_t* data, size_t size) {
  const SpecInput input = ParseSpecText(AsString(data, size));
  const core::SweepSpec& spec = input.spec;
  const auto resolved = core::Validate(spec, input.nranks);
  const auto steps = core::Expand(spec, input.nranks);
  if (!resolved.ok()) {
    CheckCode(resolved.status(), {absl::StatusCode::kInvalidArgument},
              "Validate");
    CheckNamesField(resolved.status(), "Validate");
    if (steps.ok() || steps.status() != resolved.status()) {
      Fail("Expand does not refuse what Validate refuses, in the same words");
    }
    return 0;
  }
  for (const char* backend : {"gloo", "nccl"}) {
    const absl::Status supported =
        core::CheckBackendSupport(backend, *resolved, spec);
    CheckCode(supported, {absl::StatusCode::kInvalidArgument},
              "CheckBackendSupport");
    if (!supported.ok()) CheckNamesField(supported, "CheckBackendSupport");
  }
  const std::vector<uint64_t> sizes = core::SizeSchedule(spec);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < spec.min_bytes || sizes[i] > spec.max_bytes ||
        (i > 0 && sizes[i] <= sizes[i - 1])) {
      Fail(absl::StrCat("SizeSchedule: size ", i, " = ", sizes[i],
                        " is out of order or outside min..max"));
    }
  }
  if (!steps.ok()) {
    CheckCode(steps.status(), {absl::StatusCode::kInvalidArgument}, "Expand");
    CheckNamesField(steps.status(), "Expand");
    return 0;
  }
  CheckSteps(spec, input.nranks, *resolved, *steps);
  const auto again = core::Expand(spec, input.nranks);
  if (!again.ok() || again->size() != steps->size()) {
    Fail("Expand is not deterministic");
  }
  for (size_t i = 0; i < steps->size(); ++i) {
    if (!SameStep((*steps)[i], (*again)[i]))
      Fail("Expand is not deterministic");
  }
  CheckRoundTrip(spec);
  return 0;
}

}  // namespace fabricpulse::fuzz
