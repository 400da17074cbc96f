"""The referee: every documented protocol error is produced by a bot that commits it, and named."""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

from arena import protocol
from arena.games import resolve
from arena.players import BuiltinPlayer, ExternalPlayer, PlayerFailure
from arena.referee import TimeControl, final_ranks, play_match
from tests.arena.conftest import PROTOCOL_BOTS, builtin, misbehaving

FAST = TimeControl(startup_ms=5000, move_ms=1000, bank_ms=1000)


def play(bad, seed: int = 11, control: TimeControl = FAST, preset: str = "bura"):
    _, rules = resolve(preset)
    return play_match(rules, seed, [bad, builtin(preset, "random", 1)], preset=preset, time_control=control)


@pytest.mark.parametrize(("mode", "verdict", "code"), [
    ("garbage", protocol.PROTOCOL_ERROR, protocol.BAD_JSON),
    ("too-long", protocol.PROTOCOL_ERROR, protocol.LINE_TOO_LONG),
    ("flood-bytes", protocol.PROTOCOL_ERROR, protocol.LINE_TOO_LONG),
    ("flood-lines", protocol.PROTOCOL_ERROR, protocol.OUTPUT_LIMIT),
    ("not-object", protocol.PROTOCOL_ERROR, protocol.NOT_AN_OBJECT),
    ("bad-utf8", protocol.PROTOCOL_ERROR, protocol.BAD_UTF8),
    ("wrong-id", protocol.PROTOCOL_ERROR, protocol.WRONG_ID),
    ("exit-early", protocol.CRASH, "exited"),
    ("exit-handshake", protocol.CRASH, "exited"),
    ("deep-nesting", protocol.PROTOCOL_ERROR, protocol.BAD_JSON),
    ("huge-number", protocol.PROTOCOL_ERROR, protocol.BAD_JSON),
    ("nan", protocol.PROTOCOL_ERROR, protocol.BAD_JSON),
    ("surrogate-name", protocol.PROTOCOL_ERROR, protocol.BAD_JSON),
    ("close-stdin", protocol.CRASH, "closed-stdin"),
    ("close-stdout", protocol.CRASH, "closed-stdout"),
])
def test_it_names_each_protocol_offence_and_forfeits_the_offender(mode, verdict, code):
    record = play(misbehaving(mode))
    bad, good = record.result["seats"]
    assert (bad["verdict"], bad["code"]) == (verdict, code), bad["detail"]
    assert good["verdict"] == protocol.OK
    assert record.result["ranks"] == [2, 1]
    assert not record.result["finished"]


@pytest.mark.parametrize("backend", ["unsafe", "bwrap"])
def test_a_bot_that_closes_its_stdin_while_a_request_waits_is_seen_at_once_under_every_backend(backend):
    # The request was written before the bot closed its stdin, so no write fails: the referee must notice
    # the closed pipe while it waits, not after the whole move time and bank.
    began = time.monotonic()
    record = play(misbehaving("close-stdin-at-request", backend=backend),
                  control=TimeControl(startup_ms=5000, move_ms=5000, bank_ms=20000))
    bad = record.result["seats"][0]
    assert (bad["verdict"], bad["code"]) == (protocol.CRASH, "closed-stdin"), bad["detail"]
    assert "answering request" in bad["detail"]
    assert time.monotonic() - began < 10
    assert record.result["ranks"] == [2, 1]


def test_it_reports_the_exit_code_of_a_crashed_bot():
    early = play(misbehaving("exit-early")).result["seats"][0]
    during_handshake = play(misbehaving("exit-handshake")).result["seats"][0]
    assert "code 7" in early["detail"] and "code 3" in during_handshake["detail"]
    assert "after hello" in during_handshake["detail"]


def test_an_illegal_action_is_named_by_the_rule_it_breaks_and_kept_in_the_replay():
    record = play(misbehaving("illegal"))
    bad = record.result["seats"][0]
    assert bad["verdict"] == protocol.ILLEGAL_ACTION and bad["code"]
    assert record.replay["rejected"]["action"] == {"type": "no-such-move"}
    assert record.replay["rejected"]["rule"] == bad["code"]


def test_silence_past_the_startup_limit_is_a_startup_timeout():
    record = play(misbehaving("silent-start"), control=TimeControl(startup_ms=300, move_ms=200, bank_ms=0))
    assert (record.result["seats"][0]["verdict"], record.result["seats"][0]["code"]) == (protocol.TIMEOUT, "startup")


def test_silence_past_the_move_limit_and_bank_is_a_move_timeout():
    record = play(misbehaving("silent-move"), control=TimeControl(startup_ms=5000, move_ms=200, bank_ms=100))
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.TIMEOUT, "move")
    assert "200 ms plus 100 ms" in seat["detail"]


def test_a_slow_decision_draws_on_the_bank_instead_of_forfeiting():
    record = play(misbehaving("slow-then-fast"), control=TimeControl(startup_ms=5000, move_ms=200, bank_ms=2000))
    assert record.result["seats"][0]["verdict"] == protocol.OK
    assert record.result["finished"]


def test_a_fair_external_bot_plays_a_whole_match_and_keeps_its_stderr_tail_bounded():
    record = play(misbehaving("stderr-chatter"))
    seat = record.result["seats"][0]
    assert seat["verdict"] == protocol.OK and record.result["finished"]
    assert seat["name"] == "misbehave-stderr-chatter"
    assert len(seat["stderr_tail"]) == 20
    assert all(len(line) <= 401 for line in seat["stderr_tail"])
    assert record.reports[0].stderr_bytes > 100 * 1000


def test_a_daemon_spawned_by_a_bot_does_not_outlive_the_match(no_leftover_daemon):
    record = play(misbehaving("daemon", env={"DAEMON_PIDFILE": str(no_leftover_daemon)}))
    assert record.result["seats"][0]["verdict"] == protocol.OK
    assert no_leftover_daemon.exists()


def test_a_built_in_bot_that_raises_is_a_crash_not_a_referee_failure():
    class Broken:
        def act(self, observation, legal_actions):
            raise RuntimeError("bug in bot")

    record = play(BuiltinPlayer("builtin:broken", Broken(), name="broken"))
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.CRASH, "exception")
    assert "bug in bot" in seat["detail"] and seat["stderr_tail"]


def test_a_missing_program_is_a_sandbox_failure():
    from arena.players import ExternalPlayer

    def launch():
        raise FileNotFoundError("no such interpreter: pyhton3")

    seat = play(ExternalPlayer("missing", launch)).result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.SANDBOX_FAILURE, "launch-failed")
    assert "pyhton3" in seat["detail"]


def test_the_same_seed_gives_byte_identical_results_and_replays():
    def once():
        _, rules = resolve("burkozel")
        record = play_match(rules, 5, [builtin("burkozel", "greedy", 0), builtin("burkozel", "random", 1)],
                            preset="burkozel")
        return json.dumps(record.result), json.dumps(record.replay)

    assert once() == once()


@pytest.mark.parametrize(("ranks", "teams", "forfeited", "expected"), [
    ([1, 2], [[0], [1]], {0}, [2, 1]),
    ([2, 1, 3], [[0], [1], [2]], {1}, [1, 3, 2]),
    ([1, 1, 3], [[0], [1], [2]], {2}, [1, 1, 3]),
    ([1, 2, 1, 2], [[0, 2], [1, 3]], {2}, [3, 1, 3, 1]),
    ([1, 2], [[0], [1]], {0, 1}, [1, 1]),
])
def test_forfeits_rank_the_offender_and_its_team_last(ranks, teams, forfeited, expected):
    assert final_ranks(ranks, teams, forfeited) == expected


@pytest.mark.parametrize("bad", [
    {"startup_ms": 0}, {"move_ms": -1}, {"bank_ms": 1.5}, {"move_ms": True},
])
def test_time_control_rejects_bad_limits(bad):
    with pytest.raises(ValueError, match="ms"):
        TimeControl(**bad)


def test_a_match_that_would_not_end_is_stopped_at_the_decision_limit_and_ranked_on_the_standings():
    _, rules = resolve("bura")
    record = play_match(rules, 8, [builtin("bura", "random", 0), builtin("bura", "random", 1)], preset="bura",
                        max_decisions=7)
    assert record.result["ended_by"] == "decision-limit" and not record.result["finished"]
    assert len(record.replay["actions"]) == 7
    assert {s["verdict"] for s in record.result["seats"]} == {protocol.OK}
    assert sorted(record.result["ranks"]) in ([1, 2], [1, 1])


def test_a_bot_killed_by_the_sandbox_has_the_cause_in_its_verdict(tmp_path):
    import sandbox
    from arena.players import ExternalPlayer

    (tmp_path / "main.py").write_text(
        "import sys\nsys.stdin.readline()\nprint('{\"type\":\"ready\"}', flush=True)\nsys.stdin.readline()\n"
        "hog = []\nwhile True:\n    hog.append(bytearray(10 * 1024 * 1024))\n")

    def launch():
        return sandbox.start(["python3", "main.py"], tmp_path, sandbox.Limits(memory_mb=64), backend="bwrap")

    seat = play(ExternalPlayer("hog", launch), control=TimeControl(startup_ms=5000, move_ms=5000, bank_ms=0))
    seat = seat.result["seats"][0]
    assert seat["verdict"] == protocol.CRASH
    assert "sandbox: out_of_memory" in seat["detail"]
    assert seat["resources"]["backend"] == "bwrap"



class PipeProcess:
    """A stand-in bot process made of bare pipes: the test writes its stdout and stderr, nobody reads its stdin."""

    pid = 0

    def __init__(self):
        stdin_read, stdin_write = os.pipe()
        stdout_read, self.stdout_write = os.pipe()
        stderr_read, self.stderr_write = os.pipe()
        self._unread = stdin_read
        self.stdin, self.stdout, self.stderr = (os.fdopen(stdin_write, "wb"), os.fdopen(stdout_read, "rb"),
                                                os.fdopen(stderr_read, "rb"))

    def poll(self):
        return None

    def mark_output_truncated(self):
        pass

    def finish(self, grace_seconds=0.5):
        for fd in (self._unread, self.stdout_write, self.stderr_write):
            os.close(fd)


@pytest.fixture
def high_descriptors():
    """Hold 1,100 descriptors open, so new pipes get numbers above select()'s limit of 1023."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip("cannot open 2,048 descriptors here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    yield
    for fd in held:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_pipes_with_descriptor_numbers_above_1023_are_read_and_written(high_descriptors):
    process = PipeProcess()
    assert process.stderr.fileno() > 1023
    player = ExternalPlayer("pipes", lambda: process)
    os.write(process.stdout_write, b'{"type":"ready"}\n')
    assert player.start({"type": "hello"}, time.monotonic() + 1) == {"type": "ready"}
    os.write(process.stderr_write, b"".join(b"line %d\n" % i for i in range(50)))
    with pytest.raises(PlayerFailure, match="not-reading"):  # a full stdin pipe is waited for, within the deadline
        player.send({"type": "event", "event": {"pad": "x" * 300_000}}, time.monotonic() + 0.3)
    assert player.close([]).stderr_tail == [f"line {i}" for i in range(30, 50)]


def test_a_bot_name_loses_its_control_characters():
    assert protocol.parse_ready({"type": "ready", "name": "evil\x1b[2Jbot\n"}).name == "evil[2Jbot"


def test_a_stderr_flood_ends_the_match_for_the_bot_promptly_with_a_verdict_that_says_so():
    started = time.monotonic()
    record = play(misbehaving("stderr-flood"), control=TimeControl(startup_ms=5000, move_ms=60_000, bank_ms=0))
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.PROTOCOL_ERROR, protocol.STDERR_LIMIT), seat["detail"]
    assert "64 MiB to stderr" in seat["detail"]
    assert time.monotonic() - started < 50  # long before the 60 s move time
    assert record.reports[0].stderr_bytes <= 64 * 2**20 + 2**20


def test_the_stderr_tail_keeps_the_start_of_long_lines_and_the_last_lines_across_chunks(high_descriptors):
    process = PipeProcess()
    player = ExternalPlayer("pipes", lambda: process)
    os.write(process.stdout_write, b'{"type":"ready"}\n')
    player.start({"type": "hello"}, time.monotonic() + 1)
    os.write(process.stderr_write, b"A" * 500 + b"B" * 500)
    os.write(process.stderr_write, b"C\n" + b"\n" * 30000 + b"".join(b"line %d\r\n" % i for i in range(25)))
    os.write(process.stderr_write, b"unfinished")
    tail = player.close([]).stderr_tail
    assert tail == [f"line {i}" for i in range(6, 25)] + ["unfinished"]
    second = PipeProcess()
    player = ExternalPlayer("pipes", lambda: second)
    os.write(second.stdout_write, b'{"type":"ready"}\n')
    player.start({"type": "hello"}, time.monotonic() + 1)
    os.write(second.stderr_write, b"A" * 500)
    os.write(second.stderr_write, b"B" * 500 + b"\nlast\n")
    assert player.close([]).stderr_tail == ["A" * 400 + "…", "last"]


def test_nothing_a_bot_controls_reaches_the_record_with_control_characters():
    record = play(misbehaving("escape-keys"))
    seat = record.result["seats"][0]
    assert seat["verdict"] == protocol.ILLEGAL_ACTION
    stored = json.dumps({"result": record.result, "replay": record.replay}, ensure_ascii=False)
    text_fields = [seat["detail"], record.replay["rejected"]["error"], *seat["stderr_tail"]]
    assert all("\x1b" not in text and "\x07" not in text for text in text_fields), text_fields
    assert any("\\x1b" in text for text in text_fields)
    assert "\x1b" not in stored.replace(json.dumps(record.replay["rejected"]["action"], ensure_ascii=False), "")


class Recorder:
    """A built-in-like player that records when the referee starts it and waits for it."""

    def __init__(self, inner, seat, log):
        self._inner, self._seat, self._log = inner, seat, log
        self.label = inner.label

    def launch(self, hello, deadline):
        self._log.append(("launch", self._seat))

    def wait_ready(self, deadline):
        self._log.append(("wait", self._seat))
        return self._inner.wait_ready(deadline)

    def ask(self, request, deadline, before=()):
        return self._inner.ask(request, deadline, before)

    def hang_up(self, farewell):
        self._log.append(("hang_up", self._seat))

    def close(self, farewell=()):
        self._log.append(("close", self._seat))
        return self._inner.close(farewell)


def test_every_seat_is_launched_before_the_referee_waits_for_any_ready_and_hung_up_before_any_is_closed():
    _, rules = resolve("bura-3p")
    log = []
    players = [Recorder(builtin("bura-3p", "random", s), s, log) for s in range(3)]
    play_match(rules, 1, players, preset="bura-3p")
    assert log[:6] == [("launch", 0), ("launch", 1), ("launch", 2), ("wait", 0), ("wait", 1), ("wait", 2)]
    assert log[-6:] == [("hang_up", 0), ("hang_up", 1), ("hang_up", 2), ("close", 0), ("close", 1), ("close", 2)]


def test_a_match_past_its_wall_ceiling_is_aborted_without_blaming_the_bot_within_its_clock():
    _, rules = resolve("bura")
    record = play_match(rules, 11, [misbehaving("silent-move"), builtin("bura", "random", 1)], preset="bura",
                        time_control=TimeControl(startup_ms=5000, move_ms=30_000, bank_ms=0), wall_seconds=3)
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.ABORTED, "wall-ceiling")
    assert record.result["ended_by"] == "aborted" and record.aborted and not record.failed_seats
    assert record.result["ranks"] == record.replay["outcome"]["ranks"]  # no forfeit ranking
    from arena import replay as replays

    replays.rebuild(record.replay)  # an aborted match's replay verifies


def test_a_seat_that_thought_past_its_share_of_the_ceiling_forfeits_instead_of_aborting_the_match():
    # Every answer is inside the move time, yet this seat alone runs the match out of wall time: a losing bot
    # must not be able to make a long match unscored that way.
    _, rules = resolve("bura", {"match": "deals:6"})  # at 0.4 s a decision, longer than the 3 s ceiling
    control = TimeControl(startup_ms=1000, move_ms=500, bank_ms=0)
    record = play_match(rules, 11, [builtin("bura", "random", 0), misbehaving("steady-slow")], preset="bura",
                        time_control=control, wall_seconds=3)
    fast, slow = record.result["seats"]
    assert (slow["verdict"], slow["code"]) == (protocol.TIMEOUT, "match-time"), slow["detail"]
    assert "share of the match's 3 s wall-clock ceiling (1 s each)" in slow["detail"]
    assert fast["verdict"] == protocol.OK
    assert record.result["ended_by"] == "forfeit" and record.result["ranks"] == [1, 2]


def test_the_match_wall_ceiling_follows_the_time_control():
    assert TimeControl(startup_ms=1000, move_ms=10, bank_ms=500).match_seconds(2, max_decisions=1000) == 12.0
    assert TimeControl().match_seconds(4) == 3 * 3600


def test_a_sandbox_wall_kill_of_a_bot_within_its_clock_is_aborted_not_a_crash():
    import sandbox

    def launch():
        return sandbox.start(["python3", "misbehave.py", "silent-move"], PROTOCOL_BOTS,
                             sandbox.Limits(wall_seconds=2), backend="unsafe", allow_unsafe=True)

    record = play(ExternalPlayer("walled", launch), control=TimeControl(startup_ms=5000, move_ms=30_000, bank_ms=0))
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.ABORTED, "sandbox-wall"), seat["detail"]
    assert record.result["ended_by"] == "aborted"


def test_an_infrastructure_failure_at_launch_aborts_the_match():
    from arena.players import InfrastructureError

    def launch():
        raise InfrastructureError("all 1000 sandbox uids are in use")

    record = play(ExternalPlayer("unlucky", launch))
    seat = record.result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.ABORTED, "infrastructure")
    assert record.result["ended_by"] == "aborted" and "uids" in seat["detail"]


@pytest.mark.parametrize(("allowance_ms", "code"), [(0, "startup"), (1500, "move")])
def test_a_runtimes_start_up_allowance_is_added_to_startup_ms(tmp_path, allowance_ms, code):
    """A bot that is ready 0.8 s after its hello with startup_ms 400 (and then never answers): late at
    start-up, unless its runtime's allowance (sandbox.runtimes.STARTUP_ALLOWANCE_MS, e.g. the JVM's start)
    covers it, and then it times out on its first move instead."""
    import sandbox
    from arena.players import ExternalPlayer

    (tmp_path / "main.py").write_text(
        "import sys, time\nsys.stdin.readline()\ntime.sleep(0.8)\nprint('{\"type\":\"ready\"}', flush=True)\n"
        "for line in sys.stdin:\n    pass\n")

    def launch():
        return sandbox.start(["python3", "main.py"], tmp_path, sandbox.Limits(), backend="unsafe", allow_unsafe=True)

    player = ExternalPlayer("slow-start", launch, startup_allowance_ms=allowance_ms)
    seat = play(player, control=TimeControl(startup_ms=400, move_ms=300, bank_ms=0)).result["seats"][0]
    assert (seat["verdict"], seat["code"]) == (protocol.TIMEOUT, code), seat


def test_the_runner_gives_java_bots_their_start_up_allowance():
    from arena.botspec import BotSpec
    from arena.runner import _player, build_schedule
    from sandbox.runtimes import STARTUP_ALLOWANCE_MS

    spec = BotSpec(label="java-bot", directory="/nonexistent", command=("java", "Main"), runtime="java")
    job = build_schedule(preset="bura", overrides={}, bots=[spec, BotSpec(label="builtin:random", builtin="random")],
                         games=1, base_seed=1, duplicate=False, time_control=FAST, sandbox="unsafe").jobs[0]
    _, rules = resolve("bura")
    assert _player(job, 0, spec, "bura", rules, {}).startup_allowance_ms == STARTUP_ALLOWANCE_MS["java"] > 0
    native = BotSpec(label="c", directory="/nonexistent", command=("./main",), runtime="native")
    assert _player(job, 0, native, "bura", rules, {}).startup_allowance_ms == 0
