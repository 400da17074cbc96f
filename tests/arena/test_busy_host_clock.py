"""A busy host never times a bot out (issue "Fair share of the workers", "Fair clocks under load"): the time a
sandboxed bot's threads wait, runnable, for a CPU that other matches hold is forgiven (arena.players,
sandbox.schedstat), and time it spends asleep stays its own. The host is saturated for real: three spinning
processes per core beside the match."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import sandbox
from arena.games import resolve
from arena.players import ExternalPlayer
from arena.referee import TimeControl, play_match
from sandbox import schedstat
from tests.arena.conftest import builtin, misbehaving

pytestmark = pytest.mark.skipif(not schedstat.available(), reason="this kernel keeps no scheduler statistics")

MOVE_MS = 200


@pytest.fixture
def saturated_host():
    """Three spinning processes per core, each in a session of its own: the kernel shares the CPU between
    sessions first (autogroup), and hogs all in the test's session would take only that session's share, leaving
    the bot (in a session of its own) a whole core."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(3 * len(os.sched_getaffinity(0)))]
    time.sleep(0.3)  # every hog is spinning before the match starts
    yield
    for hog in hogs:
        hog.kill()
        hog.wait()


def timed(player: ExternalPlayer) -> tuple[ExternalPlayer, list[tuple[float, float]]]:
    """The player, and (wall seconds, forgiven seconds) of each of its decisions as the referee saw them."""
    decisions: list[tuple[float, float]] = []
    ask = player.ask

    def measured(*args, **kwargs):
        started = time.monotonic()
        answer = ask(*args, **kwargs)
        decisions.append((time.monotonic() - started, player.host_wait_s))
        return answer

    player.ask = measured  # type: ignore[method-assign]
    return player, decisions


def play(player: ExternalPlayer):
    _, rules = resolve("bura")
    return play_match(rules, 7, [player, builtin("bura", "greedy", 1)], preset="bura",
                      time_control=TimeControl(startup_ms=20_000, move_ms=MOVE_MS, bank_ms=0), max_decisions=60)


@pytest.mark.parametrize("backend", ["unsafe", "bwrap"])
def test_a_bot_that_thinks_half_its_move_time_on_the_cpu_is_never_timed_out_on_a_saturated_host(saturated_host,
                                                                                                  backend):
    if sandbox.backend_available(backend):
        pytest.skip(f"{backend}: {sandbox.backend_available(backend)}")
    player, decisions = timed(misbehaving("burn", backend=backend, env={"BURN_MS": str(MOVE_MS // 2)}))
    record = play(player)
    seat = record.result["seats"][0]
    assert seat["verdict"] == "ok", seat
    assert len(decisions) >= 5
    # The host was busy for real: decisions took longer than the move time on the wall, which was a timeout
    # before, and the wait was forgiven; what was charged stayed within the move time.
    late = [(wall, forgiven) for wall, forgiven in decisions if wall > MOVE_MS / 1000]
    assert late, decisions
    assert all(wall - forgiven <= MOVE_MS / 1000 for wall, forgiven in late), late


def test_a_bot_that_sleeps_past_its_move_time_is_still_timed_out_on_a_saturated_host(saturated_host):
    seat = play(misbehaving("steady-slow")).result["seats"][0]  # 0.4 s asleep a move: its own, never forgiven
    assert (seat["verdict"], seat["code"]) == ("timeout", "move"), seat


def test_a_bot_that_sleeps_then_computes_past_its_move_time_is_timed_out_on_a_saturated_host(saturated_host):
    """Kept runnable by a busy host at its deadline, a bot is given more time (its wait for a CPU is counted
    only once it runs again), but what it is charged is settled when it answers: asleep for most of its move
    time and then on the CPU for half of it, it was over its own time, host or no host."""
    if sandbox.backend_available("bwrap"):
        pytest.skip(f"bwrap: {sandbox.backend_available('bwrap')}")
    player = misbehaving("burn", backend="bwrap", env={"SLEEP_MS": str(MOVE_MS * 3 // 4),
                                                       "BURN_MS": str(MOVE_MS // 2)})
    seat = play(player).result["seats"][0]
    assert (seat["verdict"], seat["code"]) == ("timeout", "move"), seat
