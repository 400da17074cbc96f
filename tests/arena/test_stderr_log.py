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
    assert all(request == n for request, n in said), said


def test_it_keeps_only_the_first_lines_of_a_flood(tmp_path):
    flood = BOT.replace('for k in range(3):', f'for k in range({STDERR_LOG_LINES}):')
    _, rules = resolve("bura", {"match": "deals:1"})
    from arena.bots import make_bot

    players = [external(tmp_path, flood), BuiltinPlayer("random", make_bot("bura", "random", 1, rules, 5), "random")]
    record = play_match(rules, 11, players, preset="bura")
    seat = record.result["seats"][0]
    assert len(seat["stderr_log"]) == STDERR_LOG_LINES
    assert len(seat["stderr_tail"]) == 20 and seat["stderr_tail"][-1].endswith(f"line {STDERR_LOG_LINES - 1}")


class _NeverRuns:
    """A reader thread that never gets its turn (a loaded worker): what it would read must still be kept."""

    def __init__(self, target, name, daemon):
        self.target = target

    def start(self):
        pass

    def join(self, timeout=None):
        pass

    def is_alive(self):
        return False


def test_lines_already_in_the_pipe_when_the_seat_is_closed_are_still_kept(monkeypatch):
    import os

    from arena import players

    monkeypatch.setattr(players.threading, "Thread", _NeverRuns)
    read_end, write_end = os.pipe()
    tail = players._StderrTail(read_end, max_bytes=1 << 20)
    os.write(write_end, b"request 3 line 0\nlast words\n")
    os.close(write_end)
    tail._stop.set()
    tail._thread.target()  # the reader's loop, run once the seat was already stopped
    assert tail.stop() == ["request 3 line 0", "last words"]
    assert [text for _, text in tail.log] == ["request 3 line 0", "last words"]
    os.close(read_end)


def test_a_line_flushed_before_the_answer_stays_on_its_request_however_late_the_reader_runs(monkeypatch):
    import os

    from arena import players

    monkeypatch.setattr(players.threading, "Thread", _NeverRuns)
    read_end, write_end = os.pipe()
    tail = players._StderrTail(read_end, max_bytes=1 << 20)
    tail.settle(1)
    os.write(write_end, b"thinking about 1\n")
    tail.settle(2)  # the bot answered request 1; request 2 is about to be sent
    os.write(write_end, b"thinking about 2\npartial")
    tail.settle(3)
    os.close(write_end)
    tail._stop.set()
    tail._thread.target()
    tail.stop()
    assert tail.log == [[1, "thinking about 1"], [2, "thinking about 2"], [2, "partial"]]
    os.close(read_end)


def test_a_flood_read_before_a_request_still_gives_the_alarm(monkeypatch):
    import os

    from arena import players

    monkeypatch.setattr(players.threading, "Thread", _NeverRuns)
    read_end, write_end = os.pipe()
    tail = players._StderrTail(read_end, max_bytes=1000)
    os.write(write_end, b"x" * 2000)
    tail.settle(1)
    assert tail.flooded and os.read(tail.alarm_fd, 1) == b"!"
    os.close(write_end)
    tail.stop()
    os.close(read_end)
