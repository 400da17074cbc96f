"""The runner: per-match sandbox limits from the time control, replays in the form wanted, infrastructure
failures that are nobody's fault."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from arena import protocol
from arena.botspec import BotSpec, parse_bot
from arena.referee import TimeControl
from arena.runner import build_schedule, run_job, run_schedule, sandbox_limits_for


def schedule(bots, time_control=None, games=2, sandbox="unsafe", limits=None):
    return build_schedule(preset="bura", overrides={}, bots=bots, games=games, base_seed=4, duplicate=False,
                          time_control=time_control or TimeControl(), sandbox=sandbox, sandbox_limits=limits)


BUILTINS = [BotSpec(label="builtin:greedy", builtin="greedy"), BotSpec(label="builtin:random", builtin="random")]


def test_the_sandbox_wall_limit_follows_the_time_control_with_a_ceiling():
    quick = schedule(BUILTINS, TimeControl(startup_ms=2000, move_ms=10, bank_ms=1000)).jobs[0]
    assert sandbox_limits_for(quick, 2)["wall_seconds"] == 2 + 500 + 2 + 30
    slow = schedule(BUILTINS, TimeControl(startup_ms=2000, move_ms=1000, bank_ms=1000)).jobs[0]
    assert sandbox_limits_for(slow, 2)["wall_seconds"] == 3 * 3600 + 30  # far above the old fixed 600 s
    assert sandbox_limits_for(slow, 2)["cpu_seconds"] >= 600
    explicit = schedule(BUILTINS, limits={"wall_seconds": 5.0}).jobs[0]
    assert sandbox_limits_for(explicit, 2)["wall_seconds"] == 5.0


def test_replays_come_back_in_the_form_wanted():
    jobs = schedule(BUILTINS)
    as_dicts = list(run_schedule(jobs, 1, replays="dict"))
    as_gzip = list(run_schedule(jobs, 2, replays="gzip"))
    not_at_all = list(run_schedule(jobs, 2, replays=None))
    assert [r for r, _ in as_dicts] == [r for r, _ in as_gzip] == [r for r, _ in not_at_all]
    assert [json.loads(gzip.decompress(blob)) for _, blob in as_gzip] == [replay for _, replay in as_dicts]
    assert all(replay is None for _, replay in not_at_all)


def test_a_sandbox_that_cannot_start_a_staged_bot_aborts_the_match(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    spec = parse_bot(str(script), tmp_path / "staging", [])
    gone = BotSpec(label=spec.label, directory=str(Path(spec.directory) / "evicted"), command=spec.command)
    result, _ = run_job(schedule([gone, BUILTINS[1]]).jobs[0])
    seat = next(s for s in result["seats"] if s["bot"] == spec.label)
    assert (seat["verdict"], seat["code"]) == (protocol.ABORTED, "infrastructure"), seat["detail"]
    assert result["ended_by"] == "aborted"
