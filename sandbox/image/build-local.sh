#!/usr/bin/env bash
# Build the bot runtime image here, without any registry, from this host's Debian packages: the same
# files the Dockerfile's build stage copies (sandbox/image/rootfs.py does both), imported with
# `podman import` (or `docker import`) from a root filesystem tarball.
#
#   sandbox/image/build-local.sh [--force]
#
# Idempotent: the image carries the label kozyr.image.inputs=<hash of the package list, rootfs.py and
# the installed versions of every package that goes in>; when the existing image has the same hash,
# nothing is rebuilt. Settings (as the sandbox reads them): KOZYR_SANDBOX_DOCKER_IMAGE (default
# kozyr-bot-runtime:latest), KOZYR_CONTAINER_ENGINE (docker|podman|auto), KOZYR_CONTAINER_STORAGE_DRIVER.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
image="${KOZYR_SANDBOX_DOCKER_IMAGE:-kozyr-bot-runtime:latest}"
python=/usr/bin/python3   # Debian's: the interpreter being packaged, and it reads dpkg's database
force=0
[ "${1:-}" = "--force" ] && force=1

die() { echo "build-local.sh: $*" >&2; exit 1; }

setting="${KOZYR_CONTAINER_ENGINE:-auto}"
case "$setting" in
  docker|podman) engine="$setting" ;;
  auto) if command -v docker >/dev/null 2>&1 && docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
          engine=docker
        else
          engine=podman
        fi ;;
  *) die "KOZYR_CONTAINER_ENGINE must be docker, podman or auto, got '$setting'" ;;
esac
command -v "$engine" >/dev/null 2>&1 || die "$engine is not installed (sandbox/image/install-engine.sh installs podman)"
cli=("$engine")
if [ -n "${KOZYR_CONTAINER_STORAGE_DRIVER:-}" ] && [ "$engine" = podman ]; then
  cli+=(--storage-driver "$KOZYR_CONTAINER_STORAGE_DRIVER")
fi
[ -x "$python" ] || die "$python is missing (apt-get install python3)"

# The package list must be what sandbox/runtimes.py says today.
(cd "$repo" && "$python" -m sandbox.runtimes) | cmp -s - "$here/packages.txt" \
  || die "sandbox/image/packages.txt is stale: run 'python -m sandbox.runtimes > sandbox/image/packages.txt'"

key="$("$python" "$here/rootfs.py" --key "$here/packages.txt")"
# Builds started at once (the test processes of pytest-xdist, make test's early build beside them) would each
# build the whole image: one builds, the others wait for it and then find the image up to date.
lock="/var/tmp/kozyr-image-build.$engine.$(printf '%s' "$image" | tr -c 'A-Za-z0-9._-' '_').lock"
exec 9>"$lock"
flock 9
current="$("${cli[@]}" image inspect --format '{{index .Config.Labels "kozyr.image.inputs"}}' "$image" 2>/dev/null || true)"
if [ "$force" = 0 ] && [ "$current" = "$key" ]; then
  echo "$image is up to date (inputs $key)"
  exit 0
fi

work="$(mktemp -d /var/tmp/kozyr-image.XXXXXX)"
trap 'rm -rf "$work"' EXIT
started=$EPOCHREALTIME
previous="$("${cli[@]}" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
"$python" "$here/rootfs.py" "$here/packages.txt" "$work/rootfs"
tar --numeric-owner --sort=name -C "$work/rootfs" -cf - . \
  | "${cli[@]}" import \
      --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
      --change 'WORKDIR /bot' \
      --change 'USER 65534:65534' \
      --change "LABEL kozyr.image.inputs=$key" \
      - "$image" >/dev/null 2>"$work/import.log" || { cat "$work/import.log" >&2; die "$engine import failed"; }
if [ -n "$previous" ]; then
  "${cli[@]}" image rm "$previous" >/dev/null 2>&1 || true   # still used by a container: left for later
fi
echo "$image built with $engine in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }") s (inputs $key)"
