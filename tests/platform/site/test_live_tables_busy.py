"""Live tables on a busy site: real workers and beat on Redis and PostgreSQL, the ladder 30 deep, two people at
tables at once, each followed by a spectator. The worker holding one person's match is SIGKILLed: that match
ends aborted (a person's moves cannot be replayed), the other person's match and the ladder play on, every
ladder result counts once, and the aborted person sits down again and finishes a match on the busy site."""

from __future__ import annotations

import random
import threading
import time

import orjson
import pytest
from django.db import connection
from django.test import Client

from matches.models import Match
from tests.platform.faults.test_busy_recovery import LADDER_DEPTH, LEASE_SECONDS, Beat, pids_of, site_env
from tests.support.polling import wait_until
from tests.support.workers import Worker, flush_broker, publish_to_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.site]


class Table(threading.Thread):
    """One person at a table, answering as the page does (a moment's thought per move), until the match ends."""

    def __init__(self, user, match_id: int, seed: int):
        super().__init__(daemon=True)
        self.client = Client()
        self.client.force_login(user)
        self.match_id, self.rng = match_id, random.Random(seed)
        self.status, self.moves, self.error = None, 0, None

    def run(self) -> None:
        try:
            after, deadline = 0, time.monotonic() + 240
            while time.monotonic() < deadline:
                body = self.client.get(f"/play/{self.match_id}/lines/?after={after}").json()
                for entry in body["lines"]:
                    message = entry["m"]
                    if message["type"] == "hello":
                        self.client.post(f"/play/{self.match_id}/answer/", b'{"type":"ready"}',
                                         content_type="application/json")
                    elif message["type"] == "request":
                        time.sleep(0.05)
                        action = self.rng.choice(message["legal_actions"])
                        self.client.post(f"/play/{self.match_id}/answer/", orjson.dumps(
                            {"type": "action", "id": message["id"], "action": action}),
                            content_type="application/json")
                        self.moves += 1
                after += len(body["lines"])
                if body["status"] in ("finished", "aborted"):
                    self.status = body["status"]
                    return
                time.sleep(0.05)
        except Exception as err:  # reported by the test
            self.error = err
        finally:
            connection.close()


class Spectator(threading.Thread):
    """The live view of one match, polled twice a second (both spectators together stay within the anonymous
    live-read limit), until the match is no longer running."""

    def __init__(self, match_id: int, seat: int | str):
        super().__init__(daemon=True)
        self.client, self.match_id, self.seat = Client(), match_id, seat
        self.most, self.answers = 0, []

    def run(self) -> None:
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                answer = self.client.get(f"/matches/{self.match_id}/live/?seat={self.seat}&viewer=spectator")
                self.answers.append(answer.status_code)
                body = answer.json()
                if body.get("live", {}).get("status") not in ("running", "queued"):
                    return
                self.most = max(self.most, body.get("steps", 0))
                time.sleep(0.5)
        finally:
            connection.close()


def test_people_at_tables_on_a_busy_site_with_a_worker_killed_under_one_of_them(tmp_path, settings, house_bots,
                                                                                make_user, monkeypatch):
    from bots.models import Bot
    from matches import actions
    from matches.casual import start_casual
    from ratings.models import Rating

    settings.LIVE_DELAY_SECONDS = 1
    Bot.objects.exclude(game="bura").update(active=False)  # short matches: the test is about recovery
    monkeypatch.setattr(actions, "publish", publish_to_redis)
    flush_broker()
    started: list = []
    try:
        beat = Beat(site_env(tmp_path, settings, "beat"), tmp_path / "beat")
        started.append(beat)
        workers = [Worker(f"w{k}", site_env(tmp_path, settings, f"w{k}"), tmp_path / f"w{k}.log") for k in range(2)]
        started += workers
        for worker in workers:
            worker.wait_ready()
        wait_until(lambda: Match.objects.filter(kind="ladder", status="queued").count() >= LADDER_DEPTH // 2, 90,
                   "the ladder to fill")
        people = [make_user("ann"), make_user("ben")]
        greedy = Bot.objects.get(name="greedy-bura")
        matches = [start_casual(user, greedy, "bura").pk for user in people]
        # the casual queue comes before the ladder's: both tables are dealt as soon as a worker is free
        wait_until(lambda: Match.objects.filter(pk__in=matches, status="running").count() == 2, 90,
                   "both tables to be dealt on the busy site")
        tables = [Table(user, pk, seed) for seed, (user, pk) in enumerate(zip(people, matches, strict=True))]
        spectators = [Spectator(pk, "public") for pk in matches]  # a seat's own view is its person's alone
        for thread in (*tables, *spectators):
            thread.start()
        wait_until(lambda: all(t.moves >= 2 for t in tables), 60, "both people to have played")
        # Spectators see the moves LIVE_DELAY_SECONDS late: the kill waits until they have seen some, or a kill
        # within the first second would leave the doomed match's spectator nothing it had followed.
        wait_until(lambda: all(s.most > 0 or not s.is_alive() for s in spectators), 30,
                   "the spectators to see the first moves")
        # The worker holding a table's match still being played (either worker: each plays one of them; a quick
        # person's match may already have ended under load, so the one still running is taken).
        held = [(m, w) for m in Match.objects.filter(pk__in=matches, status="running") for w in workers
                if m.lease_owner.split(":")[1] in pids_of(w)]
        assert held, f"no table's match still running to kill: {[(t.match_id, t.status) for t in tables]}"
        doomed_match, doomed_worker = held[0]
        doomed_worker.kill()
        for thread in tables:
            thread.join(timeout=LEASE_SECONDS + 120)
        assert all(t.error is None for t in tables), [t.error for t in tables]
        by_match = {t.match_id: t.status for t in tables}
        assert by_match[doomed_match.pk] == "aborted", by_match
        assert [s for pk, s in by_match.items() if pk != doomed_match.pk] == ["finished"], by_match
        doomed_match.refresh_from_db()
        assert doomed_match.attempts == 1 and doomed_match.result is None
        for spectator in spectators:
            spectator.join(timeout=30)
            assert set(spectator.answers) == {200}, spectator.answers
        # The doomed match was followed until its worker died. The other may have ended, under load, before any of
        # its moves was older than the spectators' delay: then its spectator rightly saw none (the wait above).
        assert next(s for s in spectators if s.match_id == doomed_match.pk).most > 0
        # the aborted person sits down again and plays to the end while the ladder goes on
        replacement = Worker("w2", site_env(tmp_path, settings, "w2"), tmp_path / "w2.log")
        started.append(replacement)
        replacement.wait_ready()
        loser = next(user for user, pk in zip(people, matches, strict=True) if pk == doomed_match.pk)
        again = start_casual(loser, greedy, "bura").pk
        table = Table(loser, again, 9)
        table.start()
        table.join(timeout=180)
        assert table.status == "finished", (table.status, table.error)
        # every finished ladder match counted once in the ratings; the people's casual matches in none of them
        finished = Match.objects.filter(kind="ladder", status="finished", preset="bura").count()
        assert finished > 0
        games = sum(Rating.objects.filter(bot__kind="bot", preset="bura").values_list("games", flat=True))
        assert games == 2 * finished  # two bots a match on bura
        assert Rating.objects.get(bot__name=f"@{loser.username}", preset="bura").games == 1
    finally:
        for process in reversed(started):
            process.stop()
