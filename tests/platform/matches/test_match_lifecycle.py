"""The match row is the truth: one claim wins, results are written once and only under the lease,
expired leases and lost messages are recovered, and infrastructure failures never cost a bot."""

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import BotVersion
from matches import actions
from matches.models import Match, Seat
from play.tasks import play_match
from tests.platform.conftest import zip_of

BOTS = __import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "bots"


def slow_bot_zip(delay: float = 0.0) -> bytes:
    return zip_of({"main.py": (BOTS / "first_legal.py").read_bytes(), "delay": str(delay).encode()})


@pytest.fixture
def ready_version(alice, bura_bot, upload):
    response = upload(alice, bura_bot.name, "bot.zip", slow_bot_zip())
    assert response.status_code == 201, response.json()
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == "ready", version.reason
    return version


@pytest.fixture
def ladder_match(ready_version):
    from bots.actions import house_version

    return actions.create_match(kind="ladder", preset="bura", overrides={"match": "deals:1"}, ranked=True,
                                seat_versions=[ready_version, house_version("bura", "random")])


def test_it_lets_exactly_one_claim_win(ladder_match):
    assert actions.claim(ladder_match.pk, "worker-a") is not None
    assert actions.claim(ladder_match.pk, "worker-b") is None
    ladder_match.refresh_from_db()
    assert (ladder_match.status, ladder_match.lease_owner, ladder_match.attempts) == ("running", "worker-a", 1)


def test_it_writes_a_result_once_even_when_the_task_is_delivered_twice(ladder_match):
    assert play_match(ladder_match.pk) == "finished"
    first = Match.objects.get(pk=ladder_match.pk)
    assert play_match(ladder_match.pk) == "not-queued"  # the duplicate / late delivery does nothing
    again = Match.objects.get(pk=ladder_match.pk)
    assert (again.finished, again.result, again.attempts) == (first.finished, first.result, 1)
    assert Seat.objects.filter(match=ladder_match).exclude(verdict="").count() == 2


def test_it_refuses_a_result_from_a_worker_that_lost_its_lease(ladder_match):
    assert actions.claim(ladder_match.pk, "slow-worker")
    Match.objects.filter(pk=ladder_match.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
    assert actions.recover_expired_leases() == 1
    assert actions.claim(ladder_match.pk, "second-worker")
    result = {"seats": [], "ranks": [1, 2], "points": [0, 0]}
    assert actions.finish(ladder_match.pk, "slow-worker", result, "", 0, {}) is False
    ladder_match.refresh_from_db()
    assert (ladder_match.status, ladder_match.lease_owner, ladder_match.attempts) == ("running", "second-worker", 2)


def test_it_requeues_an_expired_lease_and_fails_after_the_last_attempt(ladder_match, settings):
    settings.MAX_ATTEMPTS = 2
    for attempt in (1, 2):
        assert actions.claim(ladder_match.pk, f"dead-worker-{attempt}")
        Match.objects.filter(pk=ladder_match.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
        assert actions.recover_expired_leases() == 1
    ladder_match.refresh_from_db()
    assert ladder_match.status == "failed"
    assert "stopped renewing its lease" in ladder_match.failure
    assert not Seat.objects.filter(match=ladder_match).exclude(verdict="").exists()  # no result, no rating


def test_it_republishes_a_queued_match_whose_message_was_lost(ladder_match, monkeypatch):
    sent = []
    monkeypatch.setattr(actions, "publish", lambda match_id, queue: sent.append((match_id, queue)))
    assert actions.republish_lost() == 0  # just published: not yet
    Match.objects.filter(pk=ladder_match.pk).update(published_at=timezone.now() - timedelta(minutes=10))
    assert actions.republish_lost() == 1
    assert sent == [(ladder_match.pk, "sandboxed")]  # an uploaded bot's: played in the bots worker's threads
    assert actions.republish_lost() == 0  # published again just now


def test_it_rejects_a_crashing_bot_with_the_reason_shown_to_its_owner_only(alice, bob, bura_bot, upload, as_user):
    response = upload(alice, bura_bot.name, "crash.py", (BOTS / "crash.py").read_bytes())
    assert response.status_code == 201
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    version.refresh_from_db()
    assert version.status == "rejected"
    assert version.reason.startswith("crash")
    mine = as_user(alice).get(f"/api/v1/bots/{bura_bot.name}/versions/1/").json()
    theirs = as_user(bob).get(f"/api/v1/bots/{bura_bot.name}/versions/1/").json()
    assert mine["reason"].startswith("crash") and theirs["reason"] is None
    seat = Seat.objects.get(match_id=version.validation_match_id, version=version)
    log_url = f"/api/v1/matches/{seat.match_id}/seats/{seat.seat}/log/"
    assert b"secret-stderr-of-the-crasher" in as_user(alice).get(log_url).content
    assert as_user(bob).get(log_url).status_code == 404


def test_it_leaves_the_match_queued_when_the_worker_cannot_run_sandboxes(ladder_match, monkeypatch, settings):
    from play import startup as signals

    settings.WORKER_SELF_STOP = False
    monkeypatch.setattr(signals, "_CHECKED", {"bwrap": (1e18, "sandbox backend bwrap unavailable: no bwrap")})
    assert play_match(ladder_match.pk) == "worker-broken"
    ladder_match.refresh_from_db()
    assert (ladder_match.status, ladder_match.attempts) == ("queued", 0)


def test_it_never_scores_a_sandbox_that_cannot_start_against_the_bot(ladder_match, monkeypatch, settings):
    """The machine passed its start-up check but the sandbox fails mid-way: the attempt is the machine's."""
    from play import startup as signals

    settings.WORKER_SELF_STOP = False
    monkeypatch.setattr(signals, "_CHECKED", {"bwrap": (1e18, None)})
    import sandbox

    def broken_machine(*args, **kwargs):
        raise sandbox.SandboxError("could not create the bot's cgroup: No space left on device")

    monkeypatch.setattr(sandbox, "start", broken_machine)  # the runner's launcher calls sandbox.start
    assert play_match(ladder_match.pk) == "infrastructure"
    ladder_match.refresh_from_db()
    assert (ladder_match.status, ladder_match.attempts) == ("queued", 1)
    assert "could not create the bot's cgroup" in ladder_match.failure
    assert not Seat.objects.filter(match=ladder_match).exclude(verdict="").exists()


def test_it_replays_a_server_match_from_its_seed_with_the_local_runner(ladder_match, tmp_path):
    import gzip
    import json

    from arena.replay import rebuild
    from bots import blobs

    assert play_match(ladder_match.pk) == "finished"
    ladder_match.refresh_from_db()
    replay = json.loads(gzip.decompress(blobs.get("replays", ladder_match.replay_sha256)))
    assert replay["seed"] == ladder_match.seed
    rebuild(replay)  # raises when the recorded actions do not replay to the recorded result


def test_it_never_plays_two_rotations_of_one_deal_side_by_side_on_one_machine(ready_version, monkeypatch):
    """Two sandboxes at once could signal each other; the second rotation waits for the first to finish."""
    import socket

    from bots.actions import house_version
    from play import tasks

    first, second = actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                                 versions=[ready_version, house_version("bura", "random")])
    assert actions.claim(first.pk, f"{socket.gethostname()}:1:abc")
    later = []
    monkeypatch.setattr(tasks.play_match, "apply_async", lambda args, **options: later.append((args, options)))
    assert play_match(second.pk) == "deferred"
    assert later == [((second.pk,), {"queue": "sandboxed", "countdown": tasks.SIBLING_DELAY})]
    assert Match.objects.get(pk=second.pk).status == "queued"
    Match.objects.filter(pk=first.pk).update(lease_owner="another-machine:1:abc")
    assert play_match(second.pk) == "finished"


def test_staff_can_suspend_a_bot_from_the_admin(client, alice, bura_bot, make_user):
    from bots.models import Bot

    staff = make_user("staff", is_staff=True, is_superuser=True)
    client.force_login(staff)
    answer = client.post("/admin/bots/bot/", {"action": "suspend", "_selected_action": [bura_bot.pk]})
    assert answer.status_code == 302
    bot = Bot.objects.get(pk=bura_bot.pk)
    assert bot.suspended_by == "staff" and "staff" in bot.suspended_reason and not bot.on_ladder
