"""Weakened guarantees are said before any bot runs, and a platform worker can refuse to start with them."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import SandboxError, backend_available, guarantees, require_full_isolation, weakened_guarantees


@pytest.fixture
def non_root_without_cgroups(monkeypatch):
    monkeypatch.setattr(guarantees, "can_switch_uid", lambda: False)
    monkeypatch.setattr(guarantees, "available_mechanisms", lambda: {})
    monkeypatch.delenv(guarantees.ACCEPT_WEAKER, raising=False)


def test_a_non_root_worker_without_cgroups_is_told_what_it_lacks(non_root_without_cgroups):
    weakened = weakened_guarantees("bwrap")
    assert len(weakened) == 2
    assert "no uid of their own" in weakened[0]
    assert "memory_mb, processes, cpus, cpu_accounting, disk_io" in weakened[1]


def test_a_worker_refuses_to_start_weakened_unless_its_operator_accepts(non_root_without_cgroups, monkeypatch):
    with pytest.raises(SandboxError, match=r"cannot give its full guarantees here: .*no uid of their own.*"
                                           r"KOZYR_SANDBOX_ACCEPT_WEAKER=1"):  # fmt: skip
        require_full_isolation("bwrap")
    monkeypatch.setenv(guarantees.ACCEPT_WEAKER, "1")
    require_full_isolation("bwrap")


def test_unsafe_always_says_it_does_not_isolate_and_that_daemons_survive():
    assert any("daemon can leave its cgroup" in text for text in weakened_guarantees("unsafe"))


def test_this_root_worker_with_cgroups_has_its_full_guarantees():
    if not sandbox.uids.can_switch_uid() or "disk_io" not in guarantees.available_mechanisms():
        pytest.skip("this machine lacks root or a cgroup controller")
    assert weakened_guarantees("bwrap") == []
    require_full_isolation("bwrap")


def test_one_backend_is_probed_alone(monkeypatch):
    from sandbox.backends import container_engine

    monkeypatch.setattr(container_engine, "unavailable_reason", lambda: pytest.fail("docker probed for bwrap"))
    assert backend_available("bwrap") is None
    assert backend_available("unsafe") is None
    with pytest.raises(SandboxError, match="unknown sandbox backend 'lxc'"):
        backend_available("lxc")
