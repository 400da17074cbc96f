"""The referee keeps a seat's first stderr lines with the request that was open when each arrived."""

from __future__ import annotations

import re

from arena.games import resolve
from arena.players import STDERR_LOG_LINES, BuiltinPlayer, ExternalPlayer
from arena.referee import play_match

BOT = r'''
import json, sys
print("starting up", file=sys.stderr, flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "talker"}), flush=True)
    elif m["type"] == "request":
        for k in range(3):
            print(f"request {m['id']} line {k}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "action", "id": m["id"], "action": m["legal_actions"][0]}), flush=True)
    elif m["type"] == "goodbye":
        break
'''


def external(tmp_path, source: str) -> ExternalPlayer:
    import sandbox

    (tmp_path / "bot.py").write_text(source)

    def launch():
        return sandbox.start(["python3", "bot.py"], tmp_path, backend="unsafe", allow_unsafe=True)

    return ExternalPlayer("talker", launch)


def test_it_tags_each_stderr_line_with_the_request_it_came_during(tmp_path):
    from arena.bots import make_bot

    _, rules = resolve("bura", {"match": "deals:2"})
    players = [external(tmp_path, BOT), BuiltinPlayer("random", make_bot("bura", "random", 1, rules, 5), "random")]
    record = play_match(rules, 11, players, preset="bura")
    log = record.result["seats"][0]["stderr_log"]
    assert log[0] == [0, "starting up"]
    said = [(request, int(re.search(r"request (\d+)", text).group(1))) for request, text in log[1:]]
    assert len(said) == 3 * record.result["seats"][0]["decisions"]
    assert sum(request == n for request, n in said) >= 0.9 * len(said)


def test_it_keeps_only_the_first_lines_of_a_flood(tmp_path):
    flood = BOT.replace('for k in range(3):', f'for k in range({STDERR_LOG_LINES}):')
    _, rules = resolve("bura", {"match": "deals:1"})
    from arena.bots import make_bot

    players = [external(tmp_path, flood), BuiltinPlayer("random", make_bot("bura", "random", 1, rules, 5), "random")]
    record = play_match(rules, 11, players, preset="bura")
    seat = record.result["seats"][0]
    assert len(seat["stderr_log"]) == STDERR_LOG_LINES
    assert len(seat["stderr_tail"]) == 20 and seat["stderr_tail"][-1].endswith(f"line {STDERR_LOG_LINES - 1}")


def test_lines_already_in_the_pipe_when_the_seat_is_closed_are_still_kept(monkeypatch):
    # The reader thread's turn to run must not decide whether a bot's last words are kept: here the thread is
    # not started at all, and the seat is stopped before it ever read.
    import os

    from arena import players

    class NotStarted:
        def __init__(self, target, name, daemon):
            self.target = target

        def start(self):
            pass

        def join(self, timeout=None):
            pass

        def is_alive(self):
            return False

    monkeypatch.setattr(players.threading, "Thread", NotStarted)
    read_end, write_end = os.pipe()
    tail = players._StderrTail(read_end, max_bytes=1 << 20)
    os.write(write_end, b"request 3 line 0\nlast words\n")
    os.close(write_end)
    tail._stop.set()
    tail._thread.target()  # the reader's loop, run once the seat was already stopped
    assert tail.stop() == ["request 3 line 0", "last words"]
    assert [text for _, text in tail.log] == ["request 3 line 0", "last words"]
    os.close(read_end)
