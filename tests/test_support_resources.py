"""tests/support/resources.py and the marks of tests/conftest.py: what makes the suite safe to run side by side
(each xdist process its own Redis databases) and what `make test-fast` leaves out."""

from __future__ import annotations

from pathlib import PurePath

import pytest

from tests.conftest import resource_marks
from tests.support import resources


def test_every_process_and_purpose_has_a_redis_database_of_its_own(monkeypatch):
    seen = set()
    for worker in ("", "gw0", "gw1", "gw7"):  # "": a process run without xdist, which no xdist process may share
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        for purpose in resources.PURPOSES:
            seen.add((worker, resources.redis_url(purpose)))
    urls = [url for _, url in seen]
    assert len(urls) == len(set(urls)) == 4 * len(resources.PURPOSES)
    assert all(url.startswith(f"redis://127.0.0.1:{resources.PORT}/") for url in urls)


def test_a_process_past_the_servers_databases_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{resources.DATABASES // len(resources.PURPOSES)}")
    with pytest.raises(RuntimeError, match="no Redis database left"):
        resources.redis_url("spare")


@pytest.mark.parametrize(("path", "fixtures", "name", "marks"), [
    ("tests/e2e/test_replay_viewer.py", {"page"}, "test_it", {"browser"}),
    ("tests/platform/faults/test_worker_e2e.py", set(), "test_it", {"workers"}),
    ("tests/platform/matches/test_relay.py", {"asgi_site"}, "test_it", {"workers"}),
    ("tests/sandbox/test_units.py", set(), "test_it[docker]", {"containers"}),
    ("tests/examples/test_examples.py", set(), "test_it", {"compiles"}),
    ("tests/sandbox/test_adversarial.py", set(), "test_it", {"serial"}),
    ("tests/arena/env/test_openspiel.py", set(), "test_it", {"slow"}),
    ("tests/arena/test_bura_rules.py", {"db"}, "test_it", set()),
])
def test_marks_follow_where_a_test_lives_and_what_it_uses(path, fixtures, name, marks):
    assert resource_marks(PurePath(path), fixtures, name) == marks
