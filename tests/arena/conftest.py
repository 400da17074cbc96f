"""Shared fixtures for arena tests: external test bots started through the sandbox's launchers."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

import sandbox
from arena.bots import make_bot
from arena.games import resolve
from arena.players import BuiltinPlayer, ExternalPlayer

PROTOCOL_BOTS = Path(__file__).parent / "protocol_bots"


def misbehaving(mode: str, backend: str = "unsafe", env: dict | None = None) -> ExternalPlayer:
    """An external bot committing one protocol offence (see protocol_bots/misbehave.py)."""
    limits = sandbox.Limits()

    def launch():
        return sandbox.start(["python3", "misbehave.py", mode], PROTOCOL_BOTS, limits, backend=backend,
                             allow_unsafe=backend == "unsafe", env={"PYTHONUNBUFFERED": "1", **(env or {})})

    return ExternalPlayer(f"misbehave:{mode}", launch)


def builtin(preset: str, name: str, seat: int, seed: int = 99) -> BuiltinPlayer:
    game, rules = resolve(preset)
    return BuiltinPlayer(f"builtin:{name}", make_bot(game, name, seat, rules, seed), name=name)


@pytest.fixture
def no_leftover_daemon(tmp_path):
    """A pid file path for the daemon-spawning bot, and a check that the daemon is dead afterwards."""
    pidfile = tmp_path / "daemon.pid"
    yield pidfile
    if pidfile.exists():
        pid = int(pidfile.read_text())
        try:  # a zombie waiting for init to reap it is dead: it runs nothing and holds nothing
            alive = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            alive = False
        if alive:
            os.kill(pid, 9)
        assert not alive, "the bot's double-forked daemon outlived the match"
