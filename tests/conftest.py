"""Suite-wide settings.

Property tests are derandomized by default so a run of `make test` (and CI) is reproducible: the same
code gives the same examples and the same verdict. Set HYPOTHESIS_PROFILE=explore to search with fresh
random examples, which is how new counterexamples are found (then pin each as a scenario test).

Every test is marked by the resources it needs beyond this process and the databases (CONTRIBUTING.md):
``make test-fast`` leaves out the marked ones. The marks are given here by where a test lives and what it
uses, so a new test in those files is marked without anyone remembering to.
"""

import os
from pathlib import PurePath

import pytest
from hypothesis import settings

from tests.support import marks

settings.register_profile("reproducible", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))

# Files whose every test starts real processes of the site: workers, beat, web servers, the whole site.
STARTS_PROCESSES = {
    "test_user_journey.py", "test_analysis_worker.py", "test_open_queue_workers.py", "test_webhook_deliveries.py",
    "test_announce.py", "test_busy_recovery.py", "test_cheating_remote_bot.py", "test_embedded_default.py",
    "test_live_tables_busy.py", "test_live_tables_site.py", "test_login_limits.py", "test_people_own_bots.py",
    "test_remote_bots.py", "test_remote_bots_site.py", "test_settings_operations.py", "test_web_connections.py",
    "test_web_server_limits.py", "test_worker_e2e.py", "test_healthz.py",
}
# Files that run bots or the site in containers (podman here, a Docker Engine in make test-docker).
RUNS_CONTAINERS = ("test_container", "test_compose_stack.py", "test_kube_play.py", "test_podman_kube.py")
# Files that compile bots: the starter kits, compiled uploads, the build sandbox.
COMPILES = {"test_examples.py", "test_starter_kits.py", "test_source_bots.py", "test_build_adversarial.py",
            "test_build_caps.py", "test_build_storage.py", "test_compiled_engines.py", "test_toolkit.py"}
# Files that measure the machine's time (a bot's CPU share beside a spinner, a compile stopped at its CPU limit,
# a clock that must not charge a busy host): run alone, after the parallel part of make test, because a
# neighbour test's load is not what they measure.
SERIAL = {"test_adversarial.py", "test_build_adversarial.py", "test_busy_host_clock.py", "test_disk_io.py"}
# Files whose every test trains, searches or simulates for tens of seconds: slow, so make test-fast leaves them out.
HEAVY = {"test_behaviour_cloning.py", "test_openspiel.py", "test_maskable_ppo_example.py",
         "test_cleanrl_ppo_example.py", "test_search_bots.py", "test_graded_bots.py", "test_training_example.py"}
# Fixtures that start a process or a server thread of the site.
PROCESS_FIXTURES = {"workers", "asgi_site", "web_server"}


def resource_marks(path: PurePath, fixtures: set[str], name: str) -> set[str]:
    marks = set()
    if "e2e" in path.parts:
        marks.add("browser")
    if path.name in STARTS_PROCESSES or fixtures & PROCESS_FIXTURES:
        marks.add("workers")
    if path.name.startswith(RUNS_CONTAINERS) or "docker" in name or "container" in name:
        marks.add("containers")
    if path.name in COMPILES:
        marks.add("compiles")
    if path.name in SERIAL:
        marks.add("serial")
    if path.name in HEAVY:
        marks.add("slow")
    return marks


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    marks.running(item)  # tests/support's harnesses check the marks of the test that starts them
    try:
        return (yield)
    finally:
        marks.running(None)


def pytest_collection_modifyitems(items):
    for item in items:
        marks = resource_marks(PurePath(str(item.path)), set(item.fixturenames), item.name)
        for mark in marks:
            item.add_marker(getattr(pytest.mark, mark))
        if "browser" in marks:
            # One xdist process drives Chromium at a time: three browsers on two cores starve each other's pages
            # past their timeouts, while the other processes run the rest.
            item.add_marker(pytest.mark.xdist_group("browser"))
