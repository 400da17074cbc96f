#!/bin/sh
# The platform image's entry point: one role per container (docker-compose.yml gives it as the command).
#
#   web       gunicorn (uvicorn workers, ASGI) on 0.0.0.0:8000 (processes: WEB_CONCURRENCY, read by gunicorn itself)
#   worker    a Celery worker on every queue, highest priority first (WORKER_CONCURRENCY, default 2)
#   maintenance  a Celery worker for beat's jobs only (recovery on time however long the matches are)
#   beat      Celery beat; run exactly one per site
#   migrate   database migrations, then the house bots (idempotent; the one-shot `migrate` service)
#   manage …  any manage.py command, e.g. `manage createsuperuser`
#   …         anything else is run as given
#
# The commands are deploy/supervisord.conf's (what `make run` starts), with the image's paths.
set -eu

app="$(cd "$(dirname "$0")/.." && pwd)"
role="${1:-web}"
[ "$#" -gt 0 ] && shift

fail() {
  echo "kozyr: $*" >&2
  exit 1
}

# Settings create folders under KOZYR_VAR_DIR at import: say plainly when that cannot work.
var_dir="${KOZYR_VAR_DIR:-$app/var}"
mkdir -p "$var_dir" 2>/dev/null || true
[ -d "$var_dir" ] && [ -w "$var_dir" ] \
  || fail "KOZYR_VAR_DIR=$var_dir is not a folder uid $(id -u) can write (on the host: install -d -o $(id -u) -g $(id -g) $var_dir)"

# The worker reaches the host's engine through the mounted socket; a wrong group is the usual mistake.
docker_socket_check() {
  [ "${SANDBOX_BACKEND:-bwrap}" = docker ] || return 0
  [ -z "${DOCKER_HOST:-}" ] || return 0
  socket=/var/run/docker.sock
  [ -S "$socket" ] || fail "SANDBOX_BACKEND=docker but $socket is not mounted into this container"
  [ -r "$socket" ] && [ -w "$socket" ] \
    || fail "$socket is not accessible to uid $(id -u) (groups: $(id -G)); set DOCKER_GID to the socket's group: stat -c %g $socket"
}

# Whatever starts the roles (compose with or without health conditions, a plain engine, a host's init),
# none runs before what it needs: migrate waits for the database, the others for the migrations too.
await_site() {
  python "$app/manage.py" await_site "$@" || fail "the database is not ready; see the lines above"
}

case "$role" in
  worker)
    docker_socket_check  # a wrong mount is said at once, not after the wait
    await_site --migrated
    ;;
  web|maintenance|beat)
    await_site --migrated
    ;;
  migrate)
    await_site
    ;;
esac

case "$role" in
  web)
    # --preload: the master imports Django, so a bad setting ends gunicorn with its one line instead of
    # workers failing to boot in a loop.
    # ASGI (uvicorn's worker): the same port serves the remote bots' websockets (api/remote_socket.py).
    exec gunicorn config.asgi:application --worker-class config.web_worker.WebWorker \
      --chdir "$app/platform" --bind 0.0.0.0:8000 --preload \
      --access-logfile - --error-logfile - "$@"
    ;;
  worker)
    docker_socket_check
    cd "$app/platform"
    exec celery -A config worker --queues maintenance,casual,tournament,validation,challenge,ladder \
      --concurrency "${WORKER_CONCURRENCY:-2}" --hostname 'worker@%h' --loglevel INFO "$@"
    ;;
  maintenance)
    cd "$app/platform"
    exec celery -A config worker --queues maintenance --concurrency 2 --hostname 'maintenance@%h' \
      --loglevel INFO "$@"
    ;;
  beat)
    cd "$app/platform"
    exec celery -A config beat --schedule "$var_dir/celerybeat-schedule" --loglevel INFO "$@"
    ;;
  migrate)
    python "$app/manage.py" migrate --noinput
    exec python "$app/manage.py" house_bots
    ;;
  manage)
    exec python "$app/manage.py" "$@"
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
