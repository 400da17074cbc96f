"""Remote bots on the real PostgreSQL and Redis: the site served by uvicorn (ASGI, as in production), the real
`arena connect` started as its author would, the starter kit as the bot, and the worker's task playing the
matches in a thread. docs/protocol.md "Remote bots"; docs/matches.md "Remote bots"."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from django.test import Client
from websockets.sync.client import connect as ws_connect

from tests.support.polling import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

REPO = Path(__file__).resolve().parents[3]
STARTER = REPO / "examples" / "bura" / "python" / "main.py"
SLOW_BOT = """
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif message["type"] == "request":
        time.sleep(DELAY)
        print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}), flush=True)
        for _ in range(FLOOD):
            print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}),
                  flush=True)
"""


@pytest.fixture
def site(asgi_site, settings):
    settings.REMOTE_GRACE_SECONDS = 6  # a lost connection's grace, short enough to wait out in a test
    return asgi_site


@pytest.fixture
def remote_bot(alice, as_user):
    """alice's bot with a remote version; (bot, token)."""
    from bots.actions import do_create_bot

    bot = do_create_bot(alice, game="bura", name="far-away", presets=["bura"])
    answer = as_user(alice).post(f"/api/v1/bots/{bot.name}/remote/")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["version"]["runtime"] == "remote" and body["version"]["status"] == "pending"
    assert body["token"] in body["connect"] and "arena connect" in body["connect"]
    return bot, body["token"]


class Connect:
    """`arena connect` as its author starts it, in a process group of its own (killed whole, as a crash)."""

    def __init__(self, site: str, bot: str, token: str, command: list[str], tmp_path: Path, *extra: str):
        self.log_path = tmp_path / f"connect-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([str(REPO / ".venv" / "bin" / "arena"), "connect", "--site", site, "--bot", bot,
                                      "--token", token, *extra, "--", *command], stdout=self.log,
                                     stderr=subprocess.STDOUT, cwd=tmp_path, env=env, start_new_session=True)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def connects():
    started: list[Connect] = []

    def start(*args, **kwargs) -> Connect:
        started.append(Connect(*args, **kwargs))
        return started[-1]

    yield start
    for c in started:
        c.stop()


def slow_bot(tmp_path: Path, delay: float, flood: int = 0) -> list[str]:
    path = tmp_path / f"slow_{delay}_{flood}.py"
    path.write_text(SLOW_BOT.replace("DELAY", repr(delay)).replace("FLOOD", str(flood)))
    return [sys.executable, str(path)]


def version_status(bot) -> str:
    from bots.remote import remote_version

    version = remote_version(bot)  # once: a version rejected between two look-ups is no longer the remote one
    return version.status if version else "gone"


def ladder_match(bot, opponent: str = "greedy-bura"):
    """A ranked duplicate set of the remote bot against a house bot, as matchmaking makes one."""
    from bots.models import Bot
    from matches.actions import create_duplicate_set
    from matches.models import Match

    bot.refresh_from_db()
    house = Bot.objects.get(name=opponent)
    return create_duplicate_set(kind=Match.Kind.LADDER, preset="bura", ranked=True,
                                versions=[bot.current_version, house.current_version])


def finished(match_ids: list[int], timeout: float = 180):
    from matches.models import Match

    ended = ("finished", "failed", "aborted")
    wait_until(lambda: all(m.status in ended for m in Match.objects.filter(pk__in=match_ids)), timeout,
               f"matches {match_ids} to end")
    return {m.pk: m for m in Match.objects.filter(pk__in=match_ids).prefetch_related("seats__version")}


def remote_seat(match):
    return next(s for s in match.seats.all() if s.version.runtime == "remote")


def test_a_remote_bot_validates_plays_the_ladder_and_is_marked_remote(site, remote_bot, connects, tmp_path, as_user,
                                                                       alice):
    from bots import blobs
    from ladder.matchmaking import eligible_bots
    from matches.models import Match
    from ratings.models import Rating

    bot, token = remote_bot
    assert bot.name not in [b.name for b in eligible_bots("bura")]  # pending, and not connected
    connect = connects(site, bot.name, token, [sys.executable, str(STARTER)], tmp_path)
    wait_until(lambda: version_status(bot) != "pending", 120, "the remote version's validation")
    assert version_status(bot) == "ready", connect.output()
    assert bot.name in [b.name for b in eligible_bots("bura")]  # ready and connected: matched

    matches = ladder_match(bot)
    ended = finished([m.pk for m in matches])
    for match in ended.values():
        assert match.status == "finished"
        seat = remote_seat(match)
        assert seat.verdict == "ok", (seat.code, seat.detail, connect.output())
    replay_seats = [m.seats.get(version__runtime="remote") for m in ended.values()]
    assert all(s.rank is not None for s in replay_seats)

    # The clock included an allowance for the network, stated in the replay's seat clocks.
    match = Match.objects.get(pk=matches[0].pk)
    replay = orjson.loads(gzip.decompress(blobs.get("replays", match.replay_sha256)))
    seat = remote_seat(match).seat
    assert replay["seat_time"][seat]["move_ms"] > replay["time"]["move_ms"]

    # Marked remote on the leaderboard (API and page), and on the bot's owner page its connection is listed.
    wait_until(lambda: Rating.objects.filter(bot=bot, preset="bura").exists(), 30, "the remote bot's rating")
    rows = as_user(alice).get("/api/v1/leaderboards/bura/").json()
    rows = rows.get("results", rows) if isinstance(rows, dict) else rows
    row = next(r for r in rows if r["bot"] == bot.name)
    assert row["remote"] is True
    assert all(r["remote"] is False for r in rows if r["bot"] != bot.name)
    page = Client().get("/games/bura/").content.decode()
    assert 'class="tag remote"' in page
    state = as_user(alice).get(f"/api/v1/bots/{bot.name}/remote/").json()
    assert len(state["connections"]) == 1 and state["connections"][0]["rtt_p95_ms"] is not None

    wait_until(lambda: "ended" in connect.output(), 15, "arena connect to show the match's end " + connect.output())
    connect.stop()
    wait_until(lambda: bot.name not in [b.name for b in eligible_bots("bura")], 30, "a closed connection to unlist it")


def test_arena_connect_killed_mid_match_and_restarted_within_the_grace_resumes(site, remote_bot, connects, tmp_path):
    from bots.remote import open_connections
    from matches.models import Match

    bot, token = remote_bot
    command = slow_bot(tmp_path, 0.15)
    first = connects(site, bot.name, token, command, tmp_path)
    wait_until(lambda: version_status(bot) == "ready", 120, "validation")
    match = ladder_match(bot)[0]
    # Mid-match: the remote seat has answered a few requests.
    wait_until(lambda: Match.objects.get(pk=match.pk).status == "running" and answers_of(match.pk) >= 4, 60,
               "the match to be under way")
    first.kill()
    wait_until(lambda: not open_connections(bot), 30, "the site to see the connection gone")
    connects(site, bot.name, token, command, tmp_path)
    ended = finished([match.pk])[match.pk]
    seat = remote_seat(ended)
    assert ended.status == "finished" and seat.verdict == "ok", (seat.code, seat.detail)


def test_past_the_grace_the_seat_forfeits_as_disconnected(site, remote_bot, connects, tmp_path):
    from matches.models import Match

    bot, token = remote_bot
    first = connects(site, bot.name, token, slow_bot(tmp_path, 0.15), tmp_path)
    wait_until(lambda: version_status(bot) == "ready", 120, "validation")
    match = ladder_match(bot)[0]
    wait_until(lambda: Match.objects.get(pk=match.pk).status == "running" and answers_of(match.pk) >= 3, 60,
               "the match to be under way")
    first.kill()
    ended = finished([match.pk], timeout=90)[match.pk]
    seat = remote_seat(ended)
    assert (seat.verdict, seat.code) == ("timeout", "disconnected"), (seat.verdict, seat.code, seat.detail)
    assert "grace" in seat.detail
    assert ended.status == "finished"  # a forfeit like a bot's: the opponent wins, ratings move


def flush_relay_of(match_id: int) -> None:
    """What a Redis restarted without persistence does to one match: every relay key of it is gone."""
    from matches import relay
    from matches.models import Match

    match = Match.objects.get(pk=match_id)
    c = relay.client()
    for found in c.scan_iter(match=f"kozyr:live:{relay.attempt_name(match)}:*"):
        c.delete(found)
    c.delete(relay.assigned_key(relay.version_key(remote_seat(match).version)))


def test_a_relay_flush_mid_match_is_nobodys_loss_and_the_match_is_played_again(site, remote_bot, connects,
                                                                              tmp_path):
    from matches.models import Match

    bot, token = remote_bot
    connect = connects(site, bot.name, token, slow_bot(tmp_path, 0.15), tmp_path)
    wait_until(lambda: version_status(bot) == "ready", 120, "validation")
    match = ladder_match(bot)[0]
    wait_until(lambda: Match.objects.get(pk=match.pk).status == "running" and answers_of(match.pk) >= 3, 60,
               "the match to be under way")
    flush_relay_of(match.pk)
    ended = finished([match.pk], timeout=240)[match.pk]
    seat = remote_seat(ended)
    assert (ended.status, seat.verdict) == ("finished", "ok"), (seat.code, seat.detail, connect.output())
    assert ended.attempts >= 2  # the attempt the relay lost was aborted, never scored


def test_the_web_tiers_database_away_mid_match_is_never_the_remote_bots_loss(site, remote_bot, connects, tmp_path,
                                                                            monkeypatch):
    """The web process loses PostgreSQL for longer than the grace while the worker keeps its own: the open
    connection goes on serving its seat from the relay, and a new connection is told to try again."""
    from django.db import OperationalError

    from bots import remote as remote_bots
    from matches import relay_socket
    from matches.models import Match

    away = threading.Event()
    reached = threading.Event()
    real_db = relay_socket.db

    async def db(function, *args, **kwargs):
        if away.is_set():
            reached.set()
            raise OperationalError("the web tier's database is away (a test)")
        return await real_db(function, *args, **kwargs)

    monkeypatch.setattr(relay_socket, "db", db)
    monkeypatch.setattr(remote_bots, "HEARTBEAT_SECONDS", 6)
    bot, token = remote_bot
    connect = connects(site, bot.name, token, slow_bot(tmp_path, 0.3), tmp_path)
    wait_until(lambda: version_status(bot) == "ready", 120, "validation")
    match = ladder_match(bot)[0]
    wait_until(lambda: Match.objects.get(pk=match.pk).status == "running" and answers_of(match.pk) >= 2, 60,
               "the match to be under way")
    away.set()
    wait_until(reached.is_set, 30, "the connection's heartbeat to meet the outage")
    time.sleep(8)  # sleep-ok: an outage longer than the grace (6 s), so a connection closed now could not return
    away.clear()
    ended = finished([match.pk], timeout=240)[match.pk]
    seat = remote_seat(ended)
    assert (ended.status, seat.verdict) == ("finished", "ok"), (seat.code, seat.detail, connect.output())


def test_a_flood_of_lines_is_cut_off_as_for_a_sandboxed_bot(site, remote_bot, connects, tmp_path):
    bot, token = remote_bot
    connects(site, bot.name, token, slow_bot(tmp_path, 0.0, flood=50), tmp_path)
    wait_until(lambda: version_status(bot) != "pending", 120, "validation")
    from bots.remote import remote_version
    version = remote_version(bot) or bot.versions.order_by("-number").first()
    version.refresh_from_db()
    assert version.status == "rejected"
    assert version.reason.startswith("protocol-error"), version.reason  # the extra line is judged as the next answer


def test_tokens_reach_only_their_own_bot_and_connections_are_bounded(site, remote_bot, alice, bob, as_user, settings,
                                                                    connects, tmp_path):
    from bots.actions import do_create_bot

    bot, token = remote_bot
    other = do_create_bot(bob, game="bura", name="bobs-bot")
    bobs_token = as_user(bob).post(f"/api/v1/bots/{other.name}/remote/").json()["token"]
    # Another bot's token: refused with the reason, and arena connect stops (status 2) instead of retrying.
    refused = connects(site, bot.name, bobs_token, [sys.executable, str(STARTER)], tmp_path)
    assert refused.proc.wait(30) == 2
    assert "not" in refused.output() and "far-away" in refused.output()
    # A stranger cannot make a remote version of alice's bot, nor see its connections.
    assert as_user(bob).post(f"/api/v1/bots/{bot.name}/remote/").status_code == 404
    assert as_user(bob).get(f"/api/v1/bots/{bot.name}/remote/").status_code == 404
    ws = site.replace("http://", "ws://") + "/api/remote/connect/?bot=" + bot.name
    assert close_of(ws, "kzr_remote_forged") == (4001, "unauthorized")
    settings.REMOTE_CONNECTIONS_PER_BOT = 1
    with ws_connect(ws, additional_headers={"Authorization": f"Bearer {token}"}) as first:
        assert orjson.loads(first.recv(10))["type"] == "welcome"
        assert close_of(ws, token) == (4029, "already has 1 open connection")
    # Revoked: the next connection is refused.
    assert as_user(alice).post(f"/api/v1/bots/{bot.name}/remote/revoke/").json()["revoked"] == 1
    assert close_of(ws, token) == (4001, "unauthorized")


def close_of(url: str, token: str) -> tuple[int, str]:
    """Connect, read until the site closes; its close code and the first words of the reason it gave."""
    from websockets.exceptions import ConnectionClosed

    with ws_connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as socket_:
        try:
            while True:
                socket_.recv(10)
        except ConnectionClosed as closed:
            reason = closed.rcvd.reason if closed.rcvd else ""
            code = closed.rcvd.code if closed.rcvd else 1006
    words = {4001: "unauthorized", 4029: "already has 1 open connection"}
    return code, words.get(code, reason) if words.get(code, "") in reason else reason


def answers_of(match_id: int) -> int:
    from matches import relay
    from matches.models import Match

    match = Match.objects.get(pk=match_id)
    seat = remote_seat(match).seat
    return int(relay.client().get(relay.key(relay.attempt_name(match), "seat", seat, "answers")) or 0)


@pytest.fixture
def ready_remote(alice, house_bots):
    """alice's bot whose current version is a ready remote one, and a function that connects it (a row, as the
    site's websocket handler writes one)."""
    from bots.actions import do_create_bot, make_current
    from bots.models import RemoteToken
    from bots.remote import do_make_remote_version, open_connection

    bot = do_create_bot(alice, game="bura", name="far-ready")
    version, _ = do_make_remote_version(bot)
    version.status = "ready"
    version.save()
    make_current(version)
    bot.refresh_from_db()

    def connect():
        return open_connection(RemoteToken.objects.get(bot=bot), version, address="127.0.0.1", max_matches=4)

    return bot, connect


def test_organisers_may_keep_remote_bots_out_and_a_disconnected_one_is_never_matched(ready_remote, alice, bob,
                                                                                     settings):
    from datetime import timedelta

    from django.utils import timezone

    from bots.actions import do_create_bot
    from bots.remote import close_connection
    from ladder.matchmaking import eligible_bots
    from matches.casual import CasualError, ready_bot
    from matches.challenges import ChallengeError, check_challenge
    from tournaments.actions import do_create_tournament, do_join
    from tournaments.lifecycle import TournamentError, start

    bot, connect = ready_remote
    names = lambda: [b.name for b in eligible_bots("bura")]  # noqa: E731
    other = do_create_bot(bob, game="bura", name="bobs-uploaded")
    other.current_version = bot.current_version.__class__.objects.get(bot__name="greedy-bura")
    # Not connected: not on the ladder, not challengeable, no casual match against it.
    assert bot.name not in names()
    with pytest.raises(ChallengeError, match="not connected now"):
        check_challenge(other, bot, "bura")
    with pytest.raises(CasualError, match="not connected now"):
        ready_bot(bot, "opponent", "bura")
    row = connect()
    assert bot.name in names()
    assert check_challenge(other, bot, "bura") == "bura"
    # An organiser's preset exclusion keeps even a connected remote bot off that preset's ladder.
    settings.REMOTE_EXCLUDED_PRESETS = ["bura"]
    assert bot.name not in names() and "greedy-bura" in names()
    settings.REMOTE_EXCLUDED_PRESETS = []
    # A connection whose web process died goes stale by itself.
    bot.remote_connections.update(seen=timezone.now() - timedelta(minutes=5))
    assert bot.name not in names()
    bot.remote_connections.update(seen=timezone.now())
    close_connection(row.pk)
    assert bot.name not in names()

    # A tournament that takes no remote bots refuses the entry, and withdraws one that became remote by the start.
    closed = do_create_tournament(alice, name="sandboxed only", preset="bura", format="round_robin", rounds=None,
                                  deals=1, time_control={}, entry="open", max_entries=8,
                                  starts_at=timezone.now() + timedelta(hours=1), entry_deadline=None,
                                  remote_bots=False)
    assert closed.remote_bots is False
    with pytest.raises(TournamentError, match="remote"):
        do_join(alice, closed, bot)
    open_one = do_create_tournament(alice, name="everyone", preset="bura", format="round_robin", rounds=None,
                                    deals=1, time_control={}, entry="open", max_entries=8,
                                    starts_at=timezone.now() + timedelta(hours=1), entry_deadline=None)
    assert do_join(alice, open_one, bot).bot == bot
    open_one.remote_bots = False  # as if the host had chosen so: the start freezes versions and checks again
    open_one.save()
    start(open_one)
    entry = open_one.entries.get(bot=bot)
    assert "remote" in entry.withdrawn


def test_a_remote_version_is_never_given_more_matches_than_its_connections_take(ready_remote):
    from bots.models import Bot
    from ladder.matchmaking import eligible_bots
    from matches.actions import create_match
    from matches.models import Match

    bot, connect = ready_remote
    row = connect()
    row.max_matches = 2
    row.save()
    names = lambda: [b.name for b in eligible_bots("bura")]  # noqa: E731
    house = Bot.objects.get(name="greedy-bura").current_version
    create_match(kind=Match.Kind.LADDER, preset="bura", seat_versions=[bot.current_version, house], ranked=True)
    assert bot.name in names()  # one of two places taken
    create_match(kind=Match.Kind.LADDER, preset="bura", seat_versions=[house, bot.current_version], ranked=True)
    assert bot.name not in names() and "greedy-bura" in names()  # both taken: wait for one to end


def test_a_connection_ends_for_good_when_revoked_and_reconnects_for_a_newer_version(ready_remote):
    from bots.remote import Ended, do_make_remote_version, heartbeat, revoke_tokens

    bot, connect = ready_remote
    row = connect()
    heartbeat(row.pk, 12, 5)
    row.refresh_from_db()
    assert (row.rtt_p95_ms, row.rtt_samples) == (12, 5)
    do_make_remote_version(bot)  # v2: this connection plays v1, so it must reconnect to play v2
    with pytest.raises(Ended, match="newer remote version") as ended:
        heartbeat(row.pk, 12, 5)
    assert ended.value.final is False
    revoke_tokens(bot)
    with pytest.raises(Ended, match="revoked") as ended:
        heartbeat(row.pk, 12, 5)
    assert ended.value.final is True
