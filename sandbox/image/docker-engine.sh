#!/usr/bin/env bash
# A Docker Engine of this machine's own, for running the container backend's tests on Docker as well as on
# Podman: Debian's docker.io (installed when missing; root on Debian), started as a private daemon on its
# own socket, so nothing else here sees it (the container backend's `auto` still finds Podman, and the
# default /var/run/docker.sock stays absent).
#
#   sandbox/image/docker-engine.sh start   # prints the DOCKER_HOST to use
#   sandbox/image/docker-engine.sh stop
#
# Bots run with --network none, so the daemon needs no networking of its own: no bridge, no iptables rules
# (which would also change the forwarding policy Podman's networks rely on). Exit status 1, with the reason,
# when the engine cannot be installed or does not answer.
set -euo pipefail
home=/run/kozyr-dockerd
socket="$home/docker.sock"
export DOCKER_HOST="unix://$socket"

die() { echo "docker-engine.sh: $*" >&2; exit 1; }
answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if ! command -v dockerd >/dev/null 2>&1; then
      [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || die "dockerd is missing and cannot be installed here (needs root on Debian)"
      echo "installing docker.io (Debian's Docker Engine)" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io) \
        >/dev/null 2>&1 || die "apt-get could not install docker.io"
    fi
    if ! answers; then
      mkdir -p "$home"
      dockerd --iptables=false --ip-forward=false --ip-masq=false --bridge=none --host "$DOCKER_HOST" \
        --data-root /var/lib/kozyr-dockerd --exec-root "$home/exec" --pidfile "$home/dockerd.pid" \
        >"$home/dockerd.log" 2>&1 &
      for _ in $(seq 60); do answers && break; sleep 0.5; done
      answers || { tail -20 "$home/dockerd.log" >&2; die "dockerd did not answer on $socket within 30 s"; }
    fi
    echo "$DOCKER_HOST"
    ;;
  stop)
    if [ -f "$home/dockerd.pid" ]; then
      kill "$(cat "$home/dockerd.pid")" 2>/dev/null || true
      for _ in $(seq 60); do answers || break; sleep 0.5; done
    fi
    ;;
  *) die "usage: docker-engine.sh start|stop" ;;
esac
