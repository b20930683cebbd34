#!/usr/bin/env bash
# Renders the Grafana dashboards deploy/grafana/<name>.json from
# deploy/grafana/src/<name>.jsonnet (jsonnet, then 2-space JSON as Grafana
# exports it). Edit the .jsonnet, run this, commit both.
#
#   scripts/generate-dashboards.sh           rewrite deploy/grafana/*.json
#   scripts/generate-dashboards.sh --check   exit 1 if any is not current
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src="$root/deploy/grafana/src"
out="$root/deploy/grafana"

mode="write"
case "${1:-}" in
  "") ;;
  --check) mode="check" ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

for tool in jsonnet python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "generate-dashboards: $tool not found; run scripts/install-observability-tools.sh" >&2
    exit 1
  }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

stale=0
shopt -s nullglob
sources=("$src"/*.jsonnet)
[ ${#sources[@]} -gt 0 ] || { echo "generate-dashboards: no $src/*.jsonnet" >&2; exit 1; }
for f in "${sources[@]}"; do
  name=$(basename "$f" .jsonnet)
  jsonnet -J "$src" "$f" >"$tmp/$name.raw"
  python3 -c 'import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")' "$tmp/$name.raw" "$tmp/$name.json"
  if [ "$mode" = write ]; then
    cp "$tmp/$name.json" "$out/$name.json"
    echo "generate-dashboards: wrote deploy/grafana/$name.json"
  elif ! cmp -s "$tmp/$name.json" "$out/$name.json"; then
    echo "generate-dashboards: deploy/grafana/$name.json is not current with src/$name.jsonnet" >&2
    diff -u "$out/$name.json" "$tmp/$name.json" 2>&1 | head -n 20 >&2 || true
    stale=1
  else
    echo "generate-dashboards: deploy/grafana/$name.json is current"
  fi
done

# A .json without a source would never be checked for staleness.
for f in "$out"/*.json; do
  name=$(basename "$f" .json)
  [ -f "$src/$name.jsonnet" ] || { echo "generate-dashboards: $f has no src/$name.jsonnet" >&2; stale=1; }
done

if [ "$stale" -ne 0 ]; then
  echo "generate-dashboards: run scripts/generate-dashboards.sh and commit the result" >&2
  exit 1
fi
