#!/bin/sh
# The platform image's entry point: one role per container (docker-compose.yml gives it as the command).
#
#   web       gunicorn (uvicorn workers, ASGI) on 0.0.0.0:8000 (processes: WEB_CONCURRENCY, read by gunicorn itself)
#   worker    a Celery worker on every queue, highest priority first, notifications' deliveries after the matches
#             (WORKER_CONCURRENCY, default 2;
#             WORKER_QUEUES to leave the open queue to a tables container)
#   tables    a Celery worker of threads on the open queue: matches waiting on people and remote bots
#             (TABLES_CONCURRENCY, default 50)
#   bots      a Celery worker of threads on the sandboxed queue: matches with an uploaded bot's seat, as many
#             as the host's cores and memory admit (config/capacity.py)
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

# The entry point's own lines in the site's log format (config/logs.py's rule): a JSON object per line in
# production, so no plain line lands among the JSON ones; `kozyr: …` otherwise.
case "${KOZYR_LOG_FORMAT:-}" in
  json|plain) log_format="$KOZYR_LOG_FORMAT" ;;
  *) if [ "${KOZYR_ENV:-}" = production ]; then log_format=json; else log_format=plain; fi ;;
esac

# Celery's start-up banner is a block of plain text on stdout: in JSON, --quiet leaves it out (what it says,
# the queues and the concurrency, is in this file).
celery_quiet=""
[ "$log_format" = json ] && celery_quiet="--quiet"

say() {  # say LEVEL MESSAGE…
  level="$1"
  shift
  if [ "$log_format" = json ]; then
    message="$(printf '%s' "$*" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\t\n' '  ')"
    printf '{"time": "%s", "level": "%s", "logger": "kozyr.entrypoint", "message": "%s"}\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" "$level" "$message" >&2
  else
    echo "kozyr: $*" >&2
  fi
}

fail() {
  say ERROR "$@"
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
# (Its lines are log records: config/command_log.py.)
await_site() {
  (cd "$app/platform" && python -m config.command_log await_site "$@") \
    || fail "the database is not ready; see the lines above"
}

case "$role" in
  worker|tables|bots)
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
    # Its limits (config/web_worker.py, docs/operations.md "The web server"): 1000 connections a process, 5 s
    # keep-alive, a request's headers within 10 s; the client's address is Django's (KOZYR_TRUSTED_PROXIES).
    # Its start-up, worker and access lines are in the site's log format (config/gunicorn_logs.py).
    exec gunicorn config.asgi:application --worker-class config.web_worker.WebWorker \
      --chdir "$app/platform" --bind 0.0.0.0:8000 --preload --worker-connections 1000 --keep-alive 5 \
      --logger-class config.gunicorn_logs.Logger --access-logfile - --error-logfile - "$@"
    ;;
  worker)
    docker_socket_check
    cd "$app/platform"
    # The open and sandboxed queues too (matches that wait on a person, a remote bot or an uploaded bot's
    # process), unless `tables` and `bots` services play them: WORKER_QUEUES names the queues then
    # (docs/operations.md).
    exec celery $celery_quiet -A config worker \
      --queues "${WORKER_QUEUES:-maintenance,open,casual,tournament,validation,challenge,sandboxed,ladder,notify,analysis}" \
      --concurrency "${WORKER_CONCURRENCY:-2}" --hostname 'worker@%h' --loglevel INFO "$@"
    ;;
  tables)
    # The open queue alone, in threads: many waiting matches to one process (docs/matches.md).
    docker_socket_check
    cd "$app/platform"
    exec celery $celery_quiet -A config worker --queues open --pool threads \
      --concurrency "${TABLES_CONCURRENCY:-50}" --hostname 'tables@%h' --loglevel INFO "$@"
    ;;
  bots)
    # The sandboxed queue alone, in threads: each uploaded bot computes in a process of its own, so one worker
    # process plays as many matches as the host's cores and memory admit (config/capacity.py;
    # BOTS_CONCURRENCY overrides it).
    docker_socket_check
    cd "$app/platform"
    exec python -m config.capacity $celery_quiet worker --queues sandboxed --pool threads --hostname 'bots@%h' \
      --loglevel INFO "$@"
    ;;
  maintenance)
    cd "$app/platform"
    exec celery $celery_quiet -A config worker --queues maintenance --concurrency 2 --hostname 'maintenance@%h' \
      --loglevel INFO "$@"
    ;;
  beat)
    cd "$app/platform"
    exec celery $celery_quiet -A config beat --schedule "$var_dir/celerybeat-schedule" --loglevel INFO "$@"
    ;;
  migrate)
    # Their progress lines are log records too (config/command_log.py).
    cd "$app/platform"
    python -m config.command_log migrate --noinput
    exec python -m config.command_log house_bots
    ;;
  manage)
    exec python "$app/manage.py" "$@"
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
