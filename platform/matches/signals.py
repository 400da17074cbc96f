"""Worker start-up: a worker that cannot run sandboxes must refuse work rather than fail every bot."""

from __future__ import annotations

import logging
import time

from celery.signals import worker_init
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
    probe = getattr(sandbox, "backend_available", None)
    if probe is not None:
        problem = probe(backend)
    else:
        problem = sandbox.backends_available().get(backend, f"unknown backend {backend}")
    if problem:
        return f"sandbox backend {backend} unavailable: {problem}"
    weakened = getattr(sandbox, "weakened_guarantees", None)
    if weakened is not None and not settings.SANDBOX_ALLOW_WEAK:
        missing = weakened(backend)
        if missing:
            return (f"sandbox backend {backend} would run with weakened limits ({'; '.join(missing)}); set "
                    f"KOZYR_SANDBOX_ALLOW_WEAK=true to accept that")
    return None


@worker_init.connect
def refuse_to_start_without_sandbox(**_) -> None:
    problem = sandbox_problem()
    if problem:
        raise SystemExit(f"kozyr worker: {problem}")
    sweep = getattr(__import__("sandbox"), "sweep_leftovers", None)
    if sweep is not None:
        try:
            sweep()
        except Exception as err:  # a failed sweep must not keep a healthy worker down
            log.warning("could not sweep sandbox leftovers: %s", err)
