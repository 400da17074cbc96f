"""Worker start-up: a worker that cannot run sandboxes must refuse work rather than fail every bot."""

from __future__ import annotations

import logging
import time

from celery.signals import celeryd_after_setup, worker_init
from django.conf import settings

log = logging.getLogger(__name__)
_CHECKED: dict[str, tuple[float, str | None]] = {}
RECHECK_SECONDS = 60


def sandbox_problem() -> str | None:
    """Why this machine cannot run the configured sandbox backend, or None (cached for a minute)."""
    backend = settings.SANDBOX_BACKEND
    when, problem = _CHECKED.get(backend, (0.0, None))
    if time.monotonic() - when < RECHECK_SECONDS:
        return problem
    problem = _probe(backend)
    _CHECKED[backend] = (time.monotonic(), problem)
    return problem


def _probe(backend: str) -> str | None:
    import sandbox

    if backend == "unsafe":
        return None
    problem = sandbox.backend_available(backend)  # probes this backend only
    if problem:
        return f"sandbox backend {backend} unavailable: {problem}"
    missing = sandbox.weakened_guarantees(backend)
    if missing and not settings.SANDBOX_ALLOW_WEAK:
        return (f"sandbox backend {backend} would run with weakened limits ({'; '.join(missing)}); set "
                f"KOZYR_SANDBOX_ALLOW_WEAK=true to accept that")
    return None


@worker_init.connect
def refuse_to_start_without_sandbox(**_) -> None:
    problem = sandbox_problem()
    if problem:
        raise SystemExit(f"kozyr worker: {problem}")
    from sandbox import leftovers

    try:
        swept = leftovers.sweep()  # what workers killed on this machine left behind
    except OSError as err:  # a failed sweep must not keep a healthy worker down
        log.warning("could not sweep sandbox leftovers: %s", err)
    else:
        if swept:
            log.info("swept %d leftovers of dead workers", len(swept))
    if settings.SANDBOX_BACKEND == "docker":
        # A worker container SIGKILLed and restarted keeps its host name: the bot containers its previous
        # process left with the engine are reaped now, not only once their deadline passes.
        from sandbox.backends.container_reaper import reap_orphans

        try:
            reaped = reap_orphans()
        except Exception as err:  # the engine is checked above; a failed sweep must not keep the worker down
            log.warning("could not reap the bot containers of dead workers: %s", err)
        else:
            if reaped:
                log.info("reaped %d bot containers of dead workers", len(reaped))


@celeryd_after_setup.connect
def announce_slots(sender: str, instance, **_) -> None:
    """How many matches this worker plays at once, for /metrics (play.slots), from its own settings: a pool of
    threads (the ``bots`` and ``tables`` workers) plays its concurrency's worth, a prefork pool one a process."""
    from play import slots

    # celery.concurrency.prefork.TaskPool, celery.concurrency.thread.TaskPool…: the module names the pool
    pool = getattr(instance.pool_cls, "__module__", str(instance.pool_cls)).rsplit(".", 1)[-1]
    queues = sorted(instance.app.amqp.queues.consume_from)
    slots.keep_announcing(sender, "threads" if pool == "thread" else pool, int(instance.concurrency or 0), queues)
