// `fabricpulse diagnose` output: a readable report with a culprit table, or
// one JSON document of a documented, stable shape (docs/diagnose.md).
#pragma once

#include <ostream>
#include <string>

#include "fabricpulse/v1/coordinator.pb.h"

namespace fabricpulse::client {

// The report:
//   sweep ID (STATE)
//   <summary line>
//   <blank>
//   NODE  GPU  RANK  VERDICT  STEP  OP  SIZE  STUCK FOR     (culprits only)
//   ...one row per culprit ("-" for a CPU rank's GPU or anything unknown;
//   a low-confidence verdict reads "<kind> (suspect)")
//   why: one line per culprit;  evidence: one line per rank.
// Sections without content are left out.
void PrintDiagnosisReport(const v1::DiagnoseResponse& response,
                          std::ostream& out);

// One pretty-printed JSON document (2-space indent), newline-terminated:
//   {"sweep_id", "state", "summary", "step", "steps_total", "steps_done",
//    "step_name", "started_unix_s", "ended_unix_s", "waited_s",
//    "stall_after_s", "progress",
//    "culprits": [{"rank", "node", "gpu", "kind", "low_confidence", "step",
//                  "op", "bytes", "stuck_for_s", "explanation"}],
//    "evidence": ["..."]}
// Unknown or inapplicable values are null: steps_total when unknown,
// step_name when not a known step, ended_unix_s while running; waited_s,
// stall_after_s and progress unless running or stalled; a CPU rank's gpu;
// a culprit's step, op and bytes when unknown, and its stuck_for_s when it
// has neither a known step nor a duration (a rank that recorded nothing).
std::string DiagnosisJson(const v1::DiagnoseResponse& response);

// CSV, one row per culprit (a header alone when none):
//   sweep_id,state,rank,node,gpu,kind,low_confidence,step,op,bytes,
//   stuck_for_seconds,explanation
// with an empty field where the JSON has null; RFC 4180 quoting.
std::string DiagnosisCsv(const v1::DiagnoseResponse& response);

}  // namespace fabricpulse::client
