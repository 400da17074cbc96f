#!/bin/sh
# Serve this host's Podman API to the workers, on a host without systemd, and keep serving it:
#
#   deploy/engine-socket.sh SOCKET GID        e.g. deploy/engine-socket.sh /run/podman/podman.sock 64999
#
# `podman system service` makes its socket afresh each time it starts, owned by root:root, mode 0660: the
# workers (group DOCKER_GID) could no longer reach it after any restart of the service. This starts the
# service, gives each new socket to GID (mode 0660) before anything uses it, and starts the service again
# a second after it ends, for as long as this script runs; SIGTERM or SIGINT stops both. Start it at boot
# from the host's init (a runit/s6 service, supervisord, or `@reboot` in root's crontab, with its output
# to a log). A systemd host needs none of this: podman.socket with SocketGroup= and SocketMode=0660
# (docs/operations.md, "Podman hosts, without a registry").
set -eu
socket="${1:-}"
group="${2:-}"
case "$group" in
  ''|*[!0-9]*) echo "usage: engine-socket.sh SOCKET GID (a numeric group id, as DOCKER_GID in .env)" >&2; exit 2 ;;
esac
case "$socket" in
  /*) ;;
  *) echo "engine-socket.sh: SOCKET must be an absolute path, got '$socket'" >&2; exit 2 ;;
esac
command -v podman >/dev/null 2>&1 || { echo "engine-socket.sh: podman is not installed" >&2; exit 1; }
mkdir -p "$(dirname "$socket")"

service=""
stop() {
  [ -n "$service" ] && kill "$service" 2>/dev/null && wait "$service" 2>/dev/null
  rm -f "$socket"
  exit 0
}
trap stop TERM INT

while :; do
  rm -f "$socket"
  podman system service --time=0 "unix://$socket" &
  service=$!
  tries=0
  while [ ! -S "$socket" ] && kill -0 "$service" 2>/dev/null && [ "$tries" -lt 300 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
  if [ -S "$socket" ]; then
    chgrp "$group" "$socket" && chmod 0660 "$socket"
    echo "engine-socket.sh: serving $socket to group $group (podman pid $service)" >&2
  fi
  wait "$service" || true
  echo "engine-socket.sh: podman system service ended; starting it again in 1 s" >&2
  sleep 1
done
