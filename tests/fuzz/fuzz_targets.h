// The fuzz targets: each consumes any bytes and aborts (fuzz_check.h) when
// an invariant of the code under test breaks. Each is built as a libFuzzer
// binary build-fuzz/bin/fuzz_<name> (clang, tests/fuzz/CMakeLists.txt) and,
// with g++, into fuzz_replay_test, which feeds it every committed input of
// tests/fuzz/corpus/<name>/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabricpulse::fuzz {

// core::Validate, Expand, SizeSchedule, MaxBufferBytes, LayoutFor and
// CheckBackendSupport on a spec in spec_text.h's form; spec_convert's round
// trip.
int FuzzSweepSpec(const uint8_t* data, size_t size);
// core::ParseCoordinatorConfig on YAML text (plans via plan_parser).
int FuzzConfig(const uint8_t* data, size_t size);
// core::CronSchedule::Parse on "ZONE\nEXPRESSION" (no newline: the whole
// input is the expression, in UTC), then Next().
int FuzzCron(const uint8_t* data, size_t size);
// core::ParseByteSize, FormatByteSize, HumanByteSize.
int FuzzByteSize(const uint8_t* data, size_t size);
// First byte: which CoordinatorService request; the rest: its wire bytes,
// decoded and passed to what the handler runs first.
int FuzzCoordinatorRequests(const uint8_t* data, size_t size);
// Likewise for AgentService.
int FuzzAgentRequests(const uint8_t* data, size_t size);
// Likewise for WorkerService.
int FuzzWorkerRequests(const uint8_t* data, size_t size);
// security::SoleIdentity on a certificate's URI SANs (one per line), then
// the built-in policies' decisions on the identity it names.
int FuzzIdentity(const uint8_t* data, size_t size);

}  // namespace fabricpulse::fuzz
