#!/usr/bin/env bash
# Runs one fuzz target for a bounded time, starting from its committed
# corpus (ctest label `fuzz`). New inputs go to WORK_DIR/new, never into the
# committed corpus; a crash is written to WORK_DIR/artifacts/ and fails the
# run.
#   run_fuzzer.sh BINARY CORPUS_DIR WORK_DIR SECONDS [DICT]
set -euo pipefail
bin="$1" corpus="$2" work="$3" seconds="$4" dict="${5:-}"
rm -rf "$work"
mkdir -p "$work/new" "$work/artifacts"
args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
      -max_len=8192 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
[ -n "$dict" ] && args+=(-dict="$dict")
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if ! "$bin" "${args[@]}" "$work/new" "$corpus" </dev/null; then
  name="$(basename "$bin")"
  echo "run_fuzzer: $name failed; the input is in $work/artifacts/:" >&2
  ls -l "$work/artifacts/" >&2
  echo "Reproduce: $bin $work/artifacts/<file>. Then fix it, copy the file" \
       "into $corpus/ and add a unit test (docs/testing.md, Fuzzing)." >&2
  exit 1
fi
