#!/usr/bin/env bash
# The servers the test suite talks to: PostgreSQL and Redis on 127.0.0.1, as this machine type runs them.
# Started when they are installed but not running (after a reboot, say); `make test` calls this first, so
# the README's test command alone works. Exit status 1, naming the server, when one cannot be reached.
set -uo pipefail

if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  for _ in $(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 1; done
fi

# The suite's own Redis (tests/support/resources.py): a block of databases per test process, flushed freely,
# so it is never the machine's server that other programs use. Nothing kept on disk.
TEST_REDIS_PORT="${KOZYR_TEST_REDIS_PORT:-6390}"
if command -v redis-server >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 -p "$TEST_REDIS_PORT" ping >/dev/null 2>&1; then
  echo "starting the tests' Redis on port $TEST_REDIS_PORT"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$TEST_REDIS_PORT" --databases 256 --save "" \
    --appendonly no --dir /tmp --logfile "" || true
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p "$TEST_REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
fi

status=0
pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null \
  || { echo "start-services.sh: PostgreSQL does not answer on 127.0.0.1:5432 (the platform's tests need it)" >&2; status=1; }
redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 \
  || { echo "start-services.sh: Redis does not answer on 127.0.0.1:6379 (the end-to-end tests need it)" >&2; status=1; }
redis-cli -h 127.0.0.1 -p "$TEST_REDIS_PORT" ping >/dev/null 2>&1 \
  || { echo "start-services.sh: the tests' Redis does not answer on 127.0.0.1:$TEST_REDIS_PORT" >&2; status=1; }
exit $status
