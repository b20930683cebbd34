#!/usr/bin/env bash
# Copies the deployment assets the Helm chart embeds into helm/fabricpulse/files/
# (Helm cannot read files outside the chart directory):
#
#   deploy/config/coordinator.yaml   -> files/config/coordinator.yaml
#                                       (the coordinator's default --config)
#   deploy/prometheus/*.yaml         -> files/prometheus/ (PrometheusRule)
#   deploy/grafana/*.json            -> files/grafana/    (dashboard ConfigMaps)
#
# The sources in deploy/ are the ones to edit; the copies are committed so the
# chart is self-contained. Copies whose source is gone are removed.
#
# Usage: scripts/sync-chart-assets.sh          update the copies
#        scripts/sync-chart-assets.sh --check  exit 1 (and list them) when a
#                                              copy is missing, stale or extra
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

files=helm/fabricpulse/files
# destination dir <- source glob (top level of the folder only).
pairs=(
  "config|deploy/config/coordinator.yaml"
  "prometheus|deploy/prometheus/*.yaml"
  "grafana|deploy/grafana/*.json"
)

stale=()
want=()
for pair in "${pairs[@]}"; do
  dest="$files/${pair%%|*}"
  glob="${pair#*|}"
  for src in $glob; do
    [ -f "$src" ] || continue
    dst="$dest/$(basename "$src")"
    want+=("$dst")
    if ! cmp -s "$src" "$dst"; then
      stale+=("$dst (from $src)")
      if [ "$check" -eq 0 ]; then
        mkdir -p "$dest"
        cp "$src" "$dst"
      fi
    fi
  done
  # Copies whose source no longer exists.
  if [ -d "$dest" ]; then
    for dst in "$dest"/*; do
      [ -f "$dst" ] || continue
      keep=0
      for w in "${want[@]}"; do [ "$w" = "$dst" ] && keep=1; done
      if [ "$keep" -eq 0 ]; then
        stale+=("$dst (no source)")
        [ "$check" -eq 1 ] || rm -f "$dst"
      fi
    done
  fi
done

if [ "$check" -eq 1 ]; then
  if [ ${#stale[@]} -gt 0 ]; then
    echo "sync-chart-assets: the chart's copies are out of date; run scripts/sync-chart-assets.sh:" >&2
    printf '  %s\n' "${stale[@]}" >&2
    exit 1
  fi
  echo "sync-chart-assets: ${#want[@]} file(s) in $files are current"
else
  echo "sync-chart-assets: ${#stale[@]} file(s) updated, ${#want[@]} in $files"
fi
