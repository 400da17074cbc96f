#!/usr/bin/env bash
# Install the container engine the sandbox's container backend runs on here: podman, with runc as its
# OCI runtime (crun refuses hybrid cgroup machines). Debian, as root; does nothing when both are there.
# Exit status 0 when podman and runc are usable afterwards, 1 (with the reason) otherwise.
set -euo pipefail
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

missing=()
have podman || missing+=(podman)
have runc || missing+=(runc)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-engine.sh: ${missing[*]} missing and cannot be installed here (needs root on Debian)" >&2
  exit 1
fi
echo "installing ${missing[*]}"
if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1; then
  echo "install-engine.sh: apt-get could not install ${missing[*]}" >&2
  exit 1
fi
have podman && have runc
