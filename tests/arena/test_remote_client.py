"""`arena connect` (arena/remote.py) against a fake site: the site's end of the wire protocol, served in-process
with websockets on 127.0.0.1, scripted per test; the client runs in-process as an asyncio task, and as the real
`arena connect` command where its exit status and signals matter."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from websockets.asyncio.server import ServerConnection, serve

from arena import protocol
from arena.games import new_match, resolve
from arena.games.options import rules_to_dict
from arena.remote import KEEP_BYTES, RemoteClient, websocket_url

REPO = Path(__file__).resolve().parents[2]
TOKEN = "rt_test-token-of-tiny"
WAIT = 5.0  # seconds: generous for a frame that should come at once


def in_fresh_loop(coroutine):
    """asyncio.run in a thread of its own: the browser tests' Playwright keeps an event loop running in the main
    thread for the whole session, where asyncio.run refuses to start."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as err:
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# A minimal bot: ready to the hello, the first legal action to each request. Its first argument makes it
# misbehave in one way; its ready carries its pid, so a test can tell processes apart and check they are gone.
BOT = r'''
import json, os, sys, time

mode = sys.argv[1] if len(sys.argv) > 1 else "play"


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for raw in sys.stdin:
    message = json.loads(raw)
    if message["type"] == "hello":
        if mode == "long":
            sys.stdout.write("x" * 100000 + "\n")
        if mode == "unfinished":
            sys.stdout.write("y" * 100000)
            sys.stdout.flush()
            time.sleep(30)
        if mode == "blank":
            sys.stdout.write("\n   \n")
        say({"type": "ready", "name": f"tiny-{os.getpid()}"})
        if mode == "exit":
            sys.exit(3)
        if mode == "close-stdout":
            os.close(1)
            time.sleep(30)
    elif message["type"] == "request":
        say({"type": "action", "id": message["id"], "action": message["legal_actions"][0]})
'''

LEGAL = [{"type": "lead", "cards": ["AS"]}, {"type": "lead", "cards": ["KS"]}]


# ---- the fake site ------------------------------------------------------------------------------------------

class FakeSite:
    """Runs ``script(ws, site)`` for every connection; the script calls ``site.finish()`` once the test's
    checks on the site's side are done. An exception in a script fails the test."""

    def __init__(self, script):
        self.script = script
        self.requests: list = []  # the opening request of every connection
        self.finished: asyncio.Future = asyncio.get_running_loop().create_future()

    async def __aenter__(self) -> FakeSite:
        self.server = await serve(self._handler, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()
        await self.server.wait_closed()

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, max_matches: int = 4) -> str:
        return websocket_url(self.http, "tiny", max_matches)

    def finish(self, value=None) -> None:
        if not self.finished.done():
            self.finished.set_result(value)

    async def _handler(self, ws: ServerConnection) -> None:
        self.requests.append(ws.request)
        try:
            await self.script(ws, self)
        except Exception as err:
            if not self.finished.done():
                self.finished.set_exception(err)


async def receive(ws, kind: str | None = None, timeout: float = WAIT) -> dict:
    """The client's next frame (pongs skipped unless one is wanted)."""
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame["type"] == "pong" and kind != "pong":
            continue
        if kind is not None:
            assert frame["type"] == kind, frame
        return frame


async def nothing_more(ws, seconds: float = 0.3) -> None:
    """No frame but pongs for a moment."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = json.loads(await asyncio.wait_for(ws.recv(), left))
        except TimeoutError:
            return
        assert frame["type"] == "pong", frame


async def welcome(ws, status: str = "ready") -> None:
    await ws.send(json.dumps({"type": "welcome", "protocol": 1, "bot": "tiny", "game": "bura", "version": 3,
                              "status": status, "grace_seconds": 60, "allowance_cap_ms": 500,
                              "connection": "c1"}))


async def start(ws, live: str, *, match_id: int = 123, seat: int = 0, resume: bool = False) -> None:
    await ws.send(json.dumps({"type": "start", "match": live, "match_id": match_id, "seat": seat,
                              "kind": "ladder", "preset": "bura", "resume": resume}))


async def line(ws, live: str, message: dict, answered: bool = False) -> None:
    await ws.send(json.dumps({"type": "line", "match": live, "line": json.dumps(message, separators=(",", ":")),
                              "answered": answered}))


def hello(seat: int = 0) -> dict:
    _, rules = resolve("bura")
    return protocol.hello(game="bura", preset="bura", rules=rules_to_dict(rules), seat=seat, players=2,
                          teams=[[0], [1]], time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000})


def request(request_id: int) -> dict:
    return protocol.request(request_id=request_id, decision="lead", observation={}, legal_actions=LEGAL,
                            time_left_ms=1000)


async def ready_of(ws, live: str) -> dict:
    frame = await receive(ws, "line")
    assert frame["match"] == live
    message = json.loads(frame["line"])
    assert message["type"] == "ready"
    return message


async def referee(ws, live: str, seat: int = 0, seed: int = 5) -> tuple[dict, int, dict]:
    """A whole bura match as the site's referee plays it with a remote seat: the real rules, the protocol's
    own messages; the other seat plays its first legal action. Every forwarded answer is checked."""
    _, rules = resolve("bura")
    state = new_match(rules, seed)
    await line(ws, live, hello(seat))
    ready = await ready_of(ws, live)
    asked = 0
    while not state.is_over():
        to_move = state.to_move()
        if to_move != seat:
            state.apply(to_move, state.legal_actions(to_move)[0])
            continue
        asked += 1
        observation = state.observation(seat)
        await line(ws, live, protocol.request(request_id=asked, decision=observation["decision"],
                                              observation=observation, legal_actions=state.legal_actions(seat),
                                              time_left_ms=1000))
        frame = await receive(ws, "line")
        assert frame["match"] == live
        answer = protocol.parse_action(protocol.decode(frame["line"].encode()), asked)
        assert answer.action == state.legal_actions(seat)[0]
        state.apply(seat, answer.action)
    outcome = state.outcome()
    await line(ws, live, protocol.result(ranks=outcome["ranks"], points=outcome["points"],
                                         points_kind=outcome["points_kind"], verdicts=["ok", "ok"]))
    await line(ws, live, protocol.goodbye("match over"))
    await ws.send(json.dumps({"type": "over", "match": live}))
    return ready, asked, outcome


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def gone(pid: int, timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return not alive(pid)


# ---- running the client -------------------------------------------------------------------------------------

@pytest.fixture
def bot(tmp_path) -> Path:
    path = tmp_path / "tiny_bot.py"
    path.write_text(BOT)
    return path


class Run:
    def __init__(self, site: FakeSite, client: RemoteClient, said: list[str], status: int | None):
        self.site, self.client, self.said, self.status = site, client, said, status

    @property
    def text(self) -> str:
        return "\n".join(self.said)


def play(script, bot: Path, *, mode: str = "play", max_matches: int = 4, quiet: bool = False) -> Run:
    """Serve ``script`` and run the client until the script finishes, then stop it as Ctrl-C would."""

    async def main() -> Run:
        async with FakeSite(script) as site:
            said: list[str] = []
            client = RemoteClient(site.url(max_matches), TOKEN, [sys.executable, str(bot), mode],
                                  say=said.append, retry_first=0.05, retry_max=0.2, cwd=str(bot.parent),
                                  quiet=quiet)
            task = asyncio.create_task(client.run())
            await asyncio.wait({site.finished, task}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
            if site.finished.done():
                site.finished.result()  # the site's checks failed: say how
            assert not task.done(), f"the client ended early ({task.result()}): " + "\n".join(said)
            assert site.finished.done(), "the fake site's script did not finish: " + "\n".join(said)
            client.stop()
            status = await asyncio.wait_for(task, WAIT)
            assert status == 0 and not client.matches
            return Run(site, client, said, status)

    return in_fresh_loop(main())


# ---- the tests ----------------------------------------------------------------------------------------------

def test_it_sends_the_token_header_and_the_bot_and_max_matches_in_the_url(bot):
    async def script(ws, site):
        await welcome(ws)
        site.finish()
        await ws.wait_closed()

    run = play(script, bot, max_matches=3)
    [opening] = run.site.requests
    assert opening.headers["Authorization"] == f"Bearer {TOKEN}"
    parts = urlsplit(opening.path)
    assert parts.path == "/api/remote/connect/"
    assert parse_qs(parts.query) == {"bot": ["tiny"], "max_matches": ["3"]}
    assert run.status == 0


def test_the_site_address_becomes_a_websocket_address():
    assert websocket_url("http://localhost:8000", "my bot", 4) == \
        "ws://localhost:8000/api/remote/connect/?bot=my+bot&max_matches=4"
    assert websocket_url("https://kozyr.example.org/sub/", "b", 2) == \
        "wss://kozyr.example.org/sub/api/remote/connect/?bot=b&max_matches=2"


def test_it_answers_pings_at_once_and_prints_the_connection_and_the_round_trip(bot):
    async def script(ws, site):
        await welcome(ws, status="pending")
        for number in (7, 8):
            await ws.send(json.dumps({"type": "ping", "id": number}))
            assert await receive(ws, "pong") == {"type": "pong", "id": number}
        await ws.send(json.dumps({"type": "rtt", "p95_ms": 3, "allowance_ms": 3}))
        await ws.send(json.dumps({"type": "error", "detail": "a word from the site"}))
        await ws.send(json.dumps({"type": "ping", "id": 9}))
        assert await receive(ws, "pong") == {"type": "pong", "id": 9}
        await nothing_more(ws, 0.2)
        site.finish()
        await ws.wait_closed()

    run = play(script, bot)
    assert "connected to ws://127.0.0.1" in run.text and "tiny (bura) v3, pending, round trip" in run.text
    assert "p95 3 ms" in run.text and "allowance per move and start-up 3 ms" in run.text
    assert "the site says: a word from the site" in run.text


def test_it_plays_whole_matches_each_with_a_fresh_bot_process(bot):
    async def script(ws, site):
        await welcome(ws)
        played = []
        for number, live in enumerate(("live-a", "live-b")):
            await start(ws, live, match_id=100 + number)
            ready, asked, outcome = await referee(ws, live, seed=5 + number)
            assert asked > 0
            played.append((ready, outcome))
            assert await gone(int(ready["name"].split("-")[1]), 2)  # it exited after goodbye
        await nothing_more(ws)  # no exit frame: the bots ended with their matches
        site.finish(played)
        await ws.wait_closed()

    run = play(script, bot)
    (first, outcome), (second, _) = run.site.finished.result()
    assert first["name"] != second["name"]  # one process per match
    assert "match 100 started: bura, seat 0, ladder" in run.text
    assert f"match 100 ended: seat 0 ranked {outcome['ranks'][0]} of 2, verdict ok" in run.text


def test_two_matches_are_played_at_once_by_two_processes(bot):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "one", match_id=1)
        await start(ws, "two", match_id=2)
        await line(ws, "one", hello())
        await line(ws, "two", hello(seat=1))
        frames = [await receive(ws, "line"), await receive(ws, "line")]
        assert {f["match"] for f in frames} == {"one", "two"}
        names = {json.loads(f["line"])["name"] for f in frames}
        await line(ws, "two", request(1))
        answer = await receive(ws, "line")
        assert answer["match"] == "two" and json.loads(answer["line"])["id"] == 1
        site.finish(names)
        await ws.wait_closed()

    run = play(script, bot)
    assert len(run.site.finished.result()) == 2


def test_quiet_prints_only_what_went_wrong(bot):
    async def script(ws, site):
        await welcome(ws)
        await ws.send(json.dumps({"type": "rtt", "p95_ms": 3, "allowance_ms": 3}))
        await start(ws, "a", match_id=1)
        await ws.send(json.dumps({"type": "over", "match": ["not", "a", "name"]}))  # ignored, not a crash
        await line(ws, "a", hello())
        await ready_of(ws, "a")
        await line(ws, "a", protocol.goodbye("match over"))
        await ws.send(json.dumps({"type": "over", "match": "a"}))
        await start(ws, "b", match_id=2)
        await line(ws, "b", hello())
        await ready_of(ws, "b")
        await ws.send(json.dumps({"type": "error", "detail": "a word from the site"}))
        await line(ws, "b", request(1))
        await receive(ws, "line")
        await ws.send(json.dumps({"type": "abandon", "match": "b", "reason": "the worker died"}))
        await nothing_more(ws, 0.1)
        site.finish()
        await ws.wait_closed()

    run = play(script, bot, quiet=True)
    assert [text.split(" ", 1)[1] for text in run.said] == ["the site says: a word from the site"]


def test_a_resumed_match_drops_the_answers_the_site_already_has(bot):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "m", resume=True)
        await line(ws, "m", hello(), answered=True)
        await line(ws, "m", protocol.event({"type": "deal", "dealer": 1}))
        await line(ws, "m", request(1), answered=True)
        await line(ws, "m", request(2), answered=True)
        await line(ws, "m", request(3))  # the open request: only its answer reaches the site
        frame = await receive(ws, "line")
        assert json.loads(frame["line"]) == {"type": "action", "id": 3, "action": LEGAL[0]}
        await line(ws, "m", request(4))
        frame = await receive(ws, "line")
        assert json.loads(frame["line"])["id"] == 4
        await nothing_more(ws)
        site.finish()
        await ws.wait_closed()

    play(script, bot)


def test_blank_lines_of_the_bot_are_never_sent(bot):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "m")
        await line(ws, "m", hello())
        await ready_of(ws, "m")  # the first line that arrives is the ready, not a blank one
        site.finish()
        await ws.wait_closed()

    play(script, bot, mode="blank")


@pytest.mark.parametrize(("mode", "detail"), [("exit", "exited with code 3"),
                                              ("close-stdout", "closed its stdout")])
def test_a_bot_that_ends_mid_match_is_reported_with_an_exit_frame(bot, mode, detail):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "m", match_id=9)
        await line(ws, "m", hello())
        ready = await ready_of(ws, "m")
        frame = await receive(ws, "exit")
        assert frame == {"type": "exit", "match": "m", "detail": detail}
        assert await gone(int(ready["name"].split("-")[1]), 2)
        await line(ws, "m", request(1))  # a match it no longer plays: ignored
        await nothing_more(ws)
        site.finish()
        await ws.wait_closed()

    run = play(script, bot, mode=mode)
    assert f"match 9: the bot {detail} before the match ended" in run.text


@pytest.mark.parametrize("mode", ["long", "unfinished"])
def test_an_over_long_stdout_line_is_sent_cut_to_its_first_65537_bytes(bot, mode):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "m")
        await line(ws, "m", hello())
        frame = await receive(ws, "line")
        assert len(frame["line"].encode()) == KEEP_BYTES == protocol.MAX_LINE_BYTES + 1
        assert set(frame["line"]) == ({"x"} if mode == "long" else {"y"})
        if mode == "long":  # the rest of the long line is thrown away: the next line is the ready
            await ready_of(ws, "m")
        site.finish()
        await ws.wait_closed()

    play(script, bot, mode=mode)


def test_abandon_kills_the_bot_at_once_and_over_lets_it_exit(bot):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "a", match_id=1)
        await line(ws, "a", hello())
        first = int((await ready_of(ws, "a"))["name"].split("-")[1])
        await ws.send(json.dumps({"type": "abandon", "match": "a", "reason": "the worker died"}))
        assert await gone(first, 2)
        await start(ws, "b", match_id=2)
        await line(ws, "b", hello())
        second = int((await ready_of(ws, "b"))["name"].split("-")[1])
        await line(ws, "b", protocol.goodbye("match over"))
        await ws.send(json.dumps({"type": "over", "match": "b"}))
        assert await gone(second, 2)
        await nothing_more(ws)  # neither end is the bot's crash
        site.finish()
        await ws.wait_closed()

    run = play(script, bot)
    assert "match 1 abandoned: the worker died" in run.text
    assert "match 2 ended: no result line seen" in run.text


@pytest.mark.parametrize(("code", "reason"), [(4029, "too many connections for this bot"),
                                              (4008, "too many frames"), (1011, "internal error")])
def test_a_connection_closed_for_a_passing_reason_is_made_again(bot, code, reason):
    async def script(ws, site):
        number = len(site.requests)
        await welcome(ws)
        if number == 1:
            await start(ws, "m")
            await line(ws, "m", hello())
            pid = int((await ready_of(ws, "m"))["name"].split("-")[1])
            site.pid = pid
            await ws.close(code, reason)
            return
        assert await gone(site.pid, 2)  # the connection's bots went with it
        site.finish()
        await ws.wait_closed()

    run = play(script, bot, quiet=True)
    assert len(run.site.requests) == 2
    # the site's own reasons are shown even with --quiet; a failure on the way is not
    assert (f"disconnected: {reason} (close code {code}); reconnecting" in run.text) == (code >= 4000)


def test_a_fatal_close_without_a_reason_names_the_code(bot, capsys):
    async def script(ws, site):
        await ws.close(4004)
        site.finish()

    async def main():
        async with FakeSite(script) as site:
            said: list[str] = []
            client = RemoteClient(site.url(), TOKEN, [sys.executable, str(bot)], say=said.append)
            return await asyncio.wait_for(client.run(), WAIT), said

    status, said = in_fresh_loop(main())
    assert status == 2 and not any("reconnecting" in s for s in said)
    assert capsys.readouterr().err == "arena: error: not found (close code 4004)\n"


@pytest.mark.parametrize(("status", "fatal"), [(401, True), (404, True), (502, False)])
def test_a_refusal_before_the_websocket_opens_is_fatal_only_when_it_names_the_bot(bot, capsys, status, fatal):
    async def main():
        attempts = []

        def refuse(connection, request):
            attempts.append(request.path)
            return connection.respond(status, "no such token\n")

        async with serve(lambda ws: None, "127.0.0.1", 0, process_request=refuse) as server:
            port = server.sockets[0].getsockname()[1]
            said: list[str] = []
            client = RemoteClient(websocket_url(f"http://127.0.0.1:{port}", "tiny", 4), TOKEN,
                                  [sys.executable, str(bot)], say=said.append, retry_first=0.01, retry_max=0.01)
            task = asyncio.create_task(client.run())
            while not task.done() and len(attempts) < 3:
                await asyncio.sleep(0.01)
            client.stop()
            return await asyncio.wait_for(task, WAIT), attempts, said

    code, attempts, said = in_fresh_loop(main())
    if fatal:
        assert (code, len(attempts)) == (2, 1)
        assert capsys.readouterr().err == f"arena: error: the site refused the connection: no such token " \
                                          f"(HTTP {status})\n"
    else:
        assert code == 0 and len(attempts) >= 3
        assert f"the site answered HTTP {status}: no such token; reconnecting" in said[0]


def test_a_connection_lost_without_a_close_is_made_again(bot):
    async def script(ws, site):
        if len(site.requests) == 1:
            await welcome(ws)
            ws.transport.abort()
            return
        await welcome(ws)
        await ws.send(json.dumps({"type": "ping", "id": 1}))
        await receive(ws, "pong")
        site.finish()
        await ws.wait_closed()

    run = play(script, bot)
    assert len(run.site.requests) == 2 and run.client.connections == 2


def test_stopping_while_connecting_stops_at_once(bot):
    async def main():
        async def silent(reader, writer):  # accepts TCP, never answers the opening handshake
            await reader.read()

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = RemoteClient(f"ws://127.0.0.1:{port}/api/remote/connect/?bot=tiny&max_matches=4", TOKEN,
                              [sys.executable, str(bot)], say=lambda text: None)
        task = asyncio.create_task(client.run())
        await asyncio.sleep(0.2)
        started = time.monotonic()
        client.stop()
        assert await asyncio.wait_for(task, WAIT) == 0
        server.close()
        return time.monotonic() - started

    assert in_fresh_loop(main()) < 1


def test_an_unreachable_site_is_tried_again_and_again(bot):
    async def main():
        said: list[str] = []
        client = RemoteClient("ws://127.0.0.1:9/api/remote/connect/?bot=tiny&max_matches=4", TOKEN,
                              [sys.executable, str(bot)], say=said.append, retry_first=0.01, retry_max=0.02)
        task = asyncio.create_task(client.run())
        while sum("reconnecting" in s for s in said) < 3:
            await asyncio.sleep(0.01)
        client.stop()
        assert await asyncio.wait_for(task, WAIT) == 0
        return said

    said = in_fresh_loop(main())
    assert "cannot connect to ws://127.0.0.1:9" in said[0]


REFUSAL = ("this token is not 'tiny''s: a remote token plays only its own bot; make one on the bot's page, or "
           "revoke the old ones there and make a new one")


def test_a_fatal_close_ends_the_real_command_with_status_2_and_the_reason(bot, tmp_path):
    async def script(ws, site):  # as the site refuses: the reason whole in an error frame, then cut in the close
        await ws.send(json.dumps({"type": "error", "detail": REFUSAL}))
        await ws.close(4003, REFUSAL[:120])
        site.finish()

    async def main():
        async with FakeSite(script) as site:
            process = await asyncio.create_subprocess_exec(
                *arena_command(), "connect", "--bot", "tiny", "--site", site.http, "--", sys.executable, str(bot),
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=bare_env(tmp_path))
            out, err = await asyncio.wait_for(process.communicate(), 20)
            return site, process.returncode, out.decode(), err.decode()

    site, status, out, err = in_fresh_loop(main())
    assert status == 2, (out, err)
    assert err.strip().splitlines() == [f"arena: error: {REFUSAL} (close code 4003)"]
    assert "revoke" not in out  # said once
    assert site.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"  # from $KOZYR_REMOTE_TOKEN


def test_sigterm_closes_the_connection_cleanly_and_stops_the_bots(bot, tmp_path):
    async def script(ws, site):
        await welcome(ws)
        await start(ws, "m")
        await line(ws, "m", hello())
        site.pid = int((await ready_of(ws, "m"))["name"].split("-")[1])
        site.ready.set()
        await ws.wait_closed()
        site.finish(ws.close_code)

    async def main():
        async with FakeSite(script) as site:
            site.ready = asyncio.Event()
            process = await asyncio.create_subprocess_exec(
                *arena_command(), "connect", "--bot", "tiny", "--site", site.http, "--max-matches", "2", "--",
                sys.executable, str(bot), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=bare_env(tmp_path))
            try:
                await asyncio.wait_for(site.ready.wait(), 20)
            finally:
                process.send_signal(signal.SIGTERM)
                out, err = await asyncio.wait_for(process.communicate(), 20)
            code = await asyncio.wait_for(site.finished, WAIT)
            return site, process.returncode, code, out.decode(), err.decode()

    site, status, code, out, err = in_fresh_loop(main())
    assert (status, code) == (0, 1000), (out, err)
    assert not alive(site.pid)
    assert "match 123 started" in out
    assert parse_qs(urlsplit(site.requests[0].path).query)["max_matches"] == ["2"]


@pytest.mark.parametrize(("argv", "message"), [
    (["connect", "--bot", "b", "--site", "http://x", "--", "python3", "b.py"], "no token"),
    (["connect", "--bot", "b", "--token", "t", "--site", "http://x"], "no bot to run"),
    (["connect", "--bot", "b", "--token", "t", "--site", "http://x", "--", "no-such-program-here"],
     "'no-such-program-here' is not a program"),
    (["connect", "--bot", "b", "--token", "t", "--", "python3", "b.py"], "which site?"),
])
def test_a_bad_command_line_is_one_line_and_status_2(capsys, monkeypatch, tmp_path, argv, message):
    from arena.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("KOZYR_SITE", raising=False)
    monkeypatch.delenv("KOZYR_REMOTE_TOKEN", raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def arena_command() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "arena.cli"]


def bare_env(tmp_path: Path) -> dict[str, str]:
    """No credentials at all (a remote bot's machine may have none), the token in the environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("KOZYR_SITE", "KOZYR_REMOTE_TOKEN")}
    return {**env, "XDG_CONFIG_HOME": str(tmp_path / "config"), "KOZYR_REMOTE_TOKEN": TOKEN,
            "PYTHONPATH": str(REPO)}
