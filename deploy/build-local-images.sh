#!/usr/bin/env bash
# Build every image docker-compose.yml needs on this host, with no registry: the base images from Debian's
# packages (mmdebstrap, then `podman import`), the platform image from the repository's own Dockerfile on
# top of them (its base images as build arguments), and the bot image (sandbox/image/build-local.sh).
#
#   deploy/build-local-images.sh [--force]
#
# Images (all local, `localhost/…`):
#   kozyr-base-python:3.11   Debian bookworm's Python 3.11 with pip (the Dockerfile's python:3.11-slim), and
#                            podman, so a worker can start bot containers through a podman host's socket
#   kozyr-engine-cli:podman  /usr/local/bin/docker as `podman` (the Dockerfile's docker:28-cli stage): the
#                            worker's engine CLI on a podman host, talking to CONTAINER_HOST
#   kozyr-postgres:15        PostgreSQL 15 with an entry point that initialises the data folder from
#                            POSTGRES_DB / POSTGRES_USER / POSTGRES_PASSWORD, and stopped by SIGINT (a fast
#                            shutdown: SIGTERM's smart one waits for every pooled connection), as the
#                            postgres image does
#   kozyr-redis:7            Redis 7 (redis-server, redis-cli)
#   kozyr-platform:latest    `podman build` of ./Dockerfile
#   kozyr-bot-runtime:latest sandbox/image/build-local.sh
#
# Idempotent: each image carries the label kozyr.image.inputs=<hash of what it is built from>; an image whose
# label matches is not rebuilt (`--force` rebuilds all). Prints each image's build time. Needs root on Debian
# (mmdebstrap, podman); Debian's mirror and PyPI must be reachable for a first build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
force=0
[ "${1:-}" = "--force" ] && force=1
suite="${KOZYR_DEBIAN_SUITE:-bookworm}"
mirror="${KOZYR_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

die() { echo "build-local-images.sh: $*" >&2; exit 1; }
command -v podman >/dev/null 2>&1 || die "podman is not installed (sandbox/image/install-engine.sh installs it)"
if ! command -v mmdebstrap >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "mmdebstrap is not installed (apt-get install mmdebstrap, as root)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap) >/dev/null 2>&1 \
    || die "apt-get could not install mmdebstrap"
fi

# Two runs at once (the compose and the podman kube tests side by side) would each build every image: one builds,
# the other waits for it and then finds them up to date.
exec 8>/var/tmp/kozyr-images-build.lock
flock 8
work="$(mktemp -d /var/tmp/kozyr-images.XXXXXX)"
trap 'rm -rf "$work"' EXIT

image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
# The image a rebuild replaced goes (while a container still uses it, it stays until a later build).
drop_previous() { [ -n "$1" ] && [ "$1" != "$(image_id "$2")" ] && podman image rm "$1" >/dev/null 2>&1 || true; }
label_of() { podman image inspect --format '{{index .Config.Labels "kozyr.image.inputs"}}' "$1" 2>/dev/null || true; }
up_to_date() { [ "$force" = 0 ] && [ "$(label_of "$1")" = "$2" ]; }
seconds_since() { awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $1 }"; }
key_of() { { printf '%s\n' "$@"; cat "$0"; } | sha256sum | cut -c1-16; }

hook_without_folders() { local hook="${1//$work/WORK}"; echo "${hook//$here/HERE}"; }

# debian_image NAME PACKAGES CUSTOMIZE-HOOK IMPORT-CHANGES...: a root filesystem of PACKAGES, imported as NAME.
debian_image() {
  local name="$1" packages="$2" hook="$3"
  shift 3
  local key started tarball
  tarball="$work/$(echo "$name" | tr '/:' '__').tar"
  # The hook names files in this run's temporary folder and in this checkout: the key holds the hook without
  # those folders' names (what the files hold is in the key through their LABEL changes), or every run, and
  # every checkout, would rebuild.
  key="$(key_of "$name" "$suite" "$packages" "$(hook_without_folders "$hook")" "$@")"
  if up_to_date "$name" "$key"; then
    echo "$name is up to date (inputs $key)"
    return
  fi
  started=$EPOCHREALTIME
  local previous
  previous="$(image_id "$name")"
  mmdebstrap --quiet --variant=apt --include="$packages" --customize-hook="$hook" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc "$1"/usr/share/man' \
    "$suite" "$tarball" "$mirror" >"$work/mmdebstrap.log" 2>&1 \
    || { tail -20 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed for $name"; }
  local changes=()
  for change in "$@" "LABEL kozyr.image.inputs=$key"; do changes+=(--change "$change"); done
  podman import --quiet "${changes[@]}" "$tarball" "$name" >/dev/null
  rm -f "$tarball"
  drop_previous "$previous" "$name"
  echo "$name built in $(seconds_since "$started") s (inputs $key)"
}

# The host's trusted certificates go in with pip: a site behind a TLS-inspecting proxy reaches PyPI from
# the build as it does from the host.
cp /etc/ssl/certs/ca-certificates.crt "$work/ca-certificates.crt"
python_hook="cp $work/ca-certificates.crt \"\$1\"/etc/ssl/certs/ca-certificates.crt; \
rm -f \"\$1\"/usr/lib/python3*/EXTERNALLY-MANAGED"
debian_image localhost/kozyr-base-python:3.11 \
  "python3,python3-pip,python-is-python3,ca-certificates,tzdata,passwd,libseccomp2,podman" "$python_hook" \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' 'ENV LANG=C.UTF-8' 'CMD ["python3"]' \
  "LABEL kozyr.certificates.sha=$(sha256sum "$work/ca-certificates.crt" | cut -c1-16)"

debian_image localhost/kozyr-postgres:15 "postgresql-15,postgresql-client-15,tzdata" \
  "install -m 0755 $here/local-images/postgres-entrypoint.sh \"\$1\"/usr/local/bin/postgres-entrypoint.sh" \
  'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' \
  'ENV PGDATA=/var/lib/postgresql/data' 'ENV LANG=C.UTF-8' \
  'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]' 'EXPOSE 5432' 'STOPSIGNAL SIGINT' \
  "LABEL kozyr.entrypoint.sha=$(sha256sum "$here/local-images/postgres-entrypoint.sh" | cut -c1-16)"

debian_image localhost/kozyr-redis:7 "redis-server,redis-tools" "true" \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'CMD ["redis-server"]' 'EXPOSE 6379'

# The Dockerfile copies /usr/local/bin/docker from its CLI stage; on a podman host that CLI is podman itself
# (the base image has it), so the stage holds a one-line forwarder.
cli=localhost/kozyr-engine-cli:podman
key="$(key_of "$cli" "exec podman")"
if up_to_date "$cli" "$key"; then
  echo "$cli is up to date (inputs $key)"
else
  previous="$(image_id "$cli")"
  mkdir -p "$work/cli/usr/local/bin"
  printf '#!/bin/sh\nexec podman "$@"\n' >"$work/cli/usr/local/bin/docker"
  chmod 0755 "$work/cli/usr/local/bin/docker"
  tar --numeric-owner -C "$work/cli" -cf - . | podman import --quiet --change "LABEL kozyr.image.inputs=$key" - "$cli" >/dev/null
  drop_previous "$previous" "$cli"
  echo "$cli built (inputs $key)"
fi

# The platform image: ./Dockerfile unchanged, its base images given as build arguments. Its inputs are
# everything the Dockerfile copies (the repository's files git knows, minus .dockerignore's).
platform=localhost/kozyr-platform:latest
inputs="$(cd "$repo" && git ls-files -s -- Dockerfile pyproject.toml README.md manage.py arena sandbox platform docs deploy \
  | sha256sum | cut -c1-16)-$(label_of localhost/kozyr-base-python:3.11)"
if [ -n "$(cd "$repo" && git status --porcelain -- Dockerfile pyproject.toml arena sandbox platform docs deploy)" ]; then
  inputs="$inputs-dirty-$(date +%s)"  # uncommitted changes: always rebuilt
fi
if up_to_date "$platform" "$inputs"; then
  echo "$platform is up to date (inputs $inputs)"
else
  started=$EPOCHREALTIME
  previous="$(image_id "$platform")"
  podman build --quiet --network host --label "kozyr.image.inputs=$inputs" \
    --build-arg PYTHON_IMAGE=localhost/kozyr-base-python:3.11 --build-arg DOCKER_CLI_IMAGE="$cli" \
    -t "$platform" -f "$repo/Dockerfile" "$repo" >"$work/build.log" 2>&1 \
    || { tail -40 "$work/build.log" >&2; die "podman build of the platform image failed"; }
  drop_previous "$previous" "$platform"
  echo "$platform built in $(seconds_since "$started") s (inputs $inputs)"
fi

"$repo/sandbox/image/build-local.sh" $([ "$force" = 1 ] && echo --force)
