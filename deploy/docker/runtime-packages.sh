#!/usr/bin/env bash
# Prints the Debian packages that own the shared libraries the given binaries
# load (one a line, sorted): the runtime stage of the Dockerfile installs
# exactly these, so a new library dependency (libsqlite3, libyaml-cpp, ...)
# reaches the image without anyone editing a package list.
#
# Libraries that no package owns fail the build, except those that GPU images
# take from the runtime base or the NVIDIA container runtime (CUDA runtime,
# NCCL, the driver's libraries): those are listed on stderr.
#
# Usage: runtime-packages.sh BINARY...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }

external_re='/(libcuda|libcudart|libnccl|libnvidia-ml|libnvrtc)[^/]*$'
status=0
declare -A packages=()
while read -r lib; do
  [ -n "$lib" ] || continue
  owner=""
  # Merged /usr: dpkg may know a library by its /lib or its /usr/lib path.
  for candidate in "$lib" "$(realpath "$lib")" "/usr$lib" "${lib#/usr}"; do
    if owner="$(dpkg-query -S "$candidate" 2>/dev/null)"; then break; fi
    owner=""
  done
  if [ -n "$owner" ]; then
    # "pkg:arch: /path" or "pkg1, pkg2: /path"; the first owner is enough.
    owner="${owner%%: *}"; owner="${owner%%,*}"; owner="${owner%%:*}"
    packages["$owner"]=1
  elif [[ "$lib" =~ $external_re ]]; then
    echo "runtime-packages: $lib comes from the runtime base or the NVIDIA container runtime" >&2
  else
    echo "runtime-packages: no Debian package owns $lib" >&2
    status=1
  fi
done < <(ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
missing="$(ldd "$@" | grep 'not found' | grep -Ev 'lib(cuda|cudart|nccl|nvidia-ml|nvrtc)' || true)"
if [ -n "$missing" ]; then
  echo "runtime-packages: unresolved libraries:" >&2
  echo "$missing" >&2
  status=1
fi
printf '%s\n' "${!packages[@]}" | sort
exit "$status"
