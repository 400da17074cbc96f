"""A worker that cannot run its sandbox refuses to start, saying why, rather than fail every bot it is given; the
check is cached for a minute; a failed sweep of dead workers' leftovers never keeps a healthy worker down; and the
worker announces its slots by its pool's kind. (This machine has every backend, so a missing one is simulated at
the probe: sandbox.backend_available and sandbox.weakened_guarantees.)"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

import sandbox
from play import slots, startup


@pytest.fixture(autouse=True)
def fresh_checks():
    startup._CHECKED.clear()
    yield
    startup._CHECKED.clear()


@pytest.fixture
def probes(monkeypatch):
    """The machine as the test says: what backend_available answers and which guarantees are weakened."""
    machine = SimpleNamespace(problem=None, weakened=[], probed=0)

    def backend_available(backend):
        machine.probed += 1
        return machine.problem

    monkeypatch.setattr(sandbox, "backend_available", backend_available)
    monkeypatch.setattr(sandbox, "weakened_guarantees", lambda backend: list(machine.weakened))
    return machine


def test_this_machine_runs_the_configured_backend(settings):
    settings.SANDBOX_BACKEND = "bwrap"
    settings.SANDBOX_ALLOW_WEAK = True
    assert startup.sandbox_problem() is None


def test_a_missing_backend_is_named_and_the_worker_refuses_to_start(settings, probes):
    settings.SANDBOX_BACKEND = "bwrap"
    probes.problem = "bubblewrap (bwrap) is not installed"
    assert startup.sandbox_problem() == "sandbox backend bwrap unavailable: bubblewrap (bwrap) is not installed"
    with pytest.raises(SystemExit) as refused:
        startup.refuse_to_start_without_sandbox()
    assert str(refused.value) == "kozyr worker: sandbox backend bwrap unavailable: bubblewrap (bwrap) is not installed"


def test_the_answer_is_kept_for_a_minute_then_asked_again(settings, probes):
    settings.SANDBOX_BACKEND = "docker"
    probes.problem = "no engine answers"
    refused = "sandbox backend docker unavailable: no engine answers"
    assert startup.sandbox_problem() == startup.sandbox_problem() == refused
    assert probes.probed == 1
    probes.problem = None  # the engine came back
    assert startup.sandbox_problem() == refused  # not asked again within the minute
    checked_at, answer = startup._CHECKED["docker"]
    startup._CHECKED["docker"] = (checked_at - startup.RECHECK_SECONDS, answer)  # a minute later
    assert startup.sandbox_problem() is None and probes.probed == 2


def test_weakened_limits_need_the_operators_consent(settings, probes):
    settings.SANDBOX_BACKEND = "bwrap"
    probes.weakened = ["memory_mb: no cgroup, an address-space rlimit instead", "disk_io: not limited"]
    settings.SANDBOX_ALLOW_WEAK = False
    problem = startup.sandbox_problem()
    assert problem == ("sandbox backend bwrap would run with weakened limits (memory_mb: no cgroup, an address-space "
                       "rlimit instead; disk_io: not limited); set KOZYR_SANDBOX_ALLOW_WEAK=true to accept that")
    startup._CHECKED.clear()
    settings.SANDBOX_ALLOW_WEAK = True
    assert startup.sandbox_problem() is None


def test_the_unsafe_backend_probes_nothing(settings, probes):
    settings.SANDBOX_BACKEND = "unsafe"
    probes.problem = "would be wrong to ask"
    assert startup.sandbox_problem() is None and probes.probed == 0


def test_a_failed_sweep_of_leftovers_is_a_warning_not_a_refusal(settings, probes, monkeypatch, caplog):
    from sandbox import leftovers

    settings.SANDBOX_BACKEND = "bwrap"

    def sweep():
        raise PermissionError("the state folder is read-only")

    monkeypatch.setattr(leftovers, "sweep", sweep)
    with caplog.at_level(logging.WARNING, logger="play.startup"):
        startup.refuse_to_start_without_sandbox()
    assert "could not sweep sandbox leftovers: the state folder is read-only" in caplog.text


def test_what_the_sweep_found_is_logged(settings, probes, monkeypatch, caplog):
    from sandbox import leftovers

    settings.SANDBOX_BACKEND = "bwrap"
    monkeypatch.setattr(leftovers, "sweep", lambda: ["/run/kozyr-sandbox/a", "/run/kozyr-sandbox/b"])
    with caplog.at_level(logging.INFO, logger="play.startup"):
        startup.refuse_to_start_without_sandbox()
    assert "swept 2 leftovers of dead workers" in caplog.text


@pytest.mark.parametrize(("pool_module", "concurrency", "pool"), [("celery.concurrency.thread", 8, "threads"),
                                                                  ("celery.concurrency.prefork", 2, "prefork"),
                                                                  ("celery.concurrency.solo", None, "solo")])
def test_a_worker_announces_its_slots_by_its_pools_kind(monkeypatch, pool_module, concurrency, pool):
    announced = []
    monkeypatch.setattr(slots, "keep_announcing", lambda *args: announced.append(args))
    instance = SimpleNamespace(pool_cls=type("TaskPool", (), {"__module__": pool_module}), concurrency=concurrency,
                               app=SimpleNamespace(amqp=SimpleNamespace(queues=SimpleNamespace(
                                   consume_from={"ladder": None, "bots": None}))))
    startup.announce_slots("bots@host", instance)
    assert announced == [("bots@host", pool, concurrency or 0, ["bots", "ladder"])]


def test_a_docker_worker_reaps_the_bot_containers_its_previous_process_left(settings, probes, monkeypatch, caplog):
    from sandbox import leftovers
    from sandbox.backends import container_reaper

    settings.SANDBOX_BACKEND = "docker"
    monkeypatch.setattr(leftovers, "sweep", list)
    monkeypatch.setattr(container_reaper, "reap_orphans", lambda: ["kozyr-bot-1", "kozyr-bot-2", "kozyr-bot-3"])
    with caplog.at_level(logging.INFO, logger="play.startup"):
        startup.refuse_to_start_without_sandbox()
    assert "reaped 3 bot containers of dead workers" in caplog.text

    def engine_gone():
        raise RuntimeError("the engine stopped answering")

    monkeypatch.setattr(container_reaper, "reap_orphans", engine_gone)
    startup.refuse_to_start_without_sandbox()  # a failed reaping is a warning: the worker starts
    assert "could not reap the bot containers of dead workers: the engine stopped answering" in caplog.text
