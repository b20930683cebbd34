// What a sweep was: id, plan, trigger, status, times, spec, nodes, ranks,
// backend and its version, topology, straggler, as an HTML table; and
// where its ranks ran.
#pragma once

#include <string>

#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client::report {

// A <table class="metadata">; empty fields are shown as "-" (never
// guessed), the spec in full (protobuf's JSON mapping) under it.
std::string RenderSweepMetadata(const v1::SweepSummary& sweep);

// The rank map: today the summary's nodes and rank count only, since
// SweepSummary carries no rank placement yet. When it gains one (rank ->
// node, GPU, bus id), this is the one place that draws it as a table.
std::string RenderRankMap(const v1::SweepSummary& sweep);

// A Unix time as "2026-12-01 19:04:05 UTC"; "-" for 0 (not yet).
std::string FormatUnixTime(double unix_seconds);

}  // namespace fabricpulse::client::report
