#!/usr/bin/env bash
# Checks that the committed request seeds (corpus/*/seed-*.bin) are what
# fuzz_seed_writer writes now: after a .proto change, regenerate them with
#   build/bin/fuzz_seed_writer tests/fuzz/corpus
#   check_seeds.sh WRITER CORPUS_DIR SCRATCH_DIR
set -euo pipefail
writer="$1" corpus="$2" scratch="$3"
rm -rf "$scratch"
mkdir -p "$scratch"
"$writer" "$scratch"
status=0
for f in "$scratch"/*/seed-*.bin; do
  rel="${f#"$scratch"/}"
  if ! cmp -s "$f" "$corpus/$rel"; then
    echo "check_seeds: $rel differs from or is missing in $corpus" >&2
    status=1
  fi
done
for f in "$corpus"/*/seed-*.bin; do
  rel="${f#"$corpus"/}"
  if [ ! -f "$scratch/$rel" ]; then
    echo "check_seeds: $rel is committed but no longer written" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "check_seeds: regenerate with: build/bin/fuzz_seed_writer tests/fuzz/corpus" >&2
else
  echo "check_seeds: $(ls "$scratch"/*/seed-*.bin | wc -l) seeds current"
fi
exit "$status"
