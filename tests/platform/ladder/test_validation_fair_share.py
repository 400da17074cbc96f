"""Fair share within the validation queue (docs/matches.md, "Queues and workers"): a user has at most one
validation match published at a time, so one user's pending validations delay another's by one match at
most. The next is released in the transaction that ends the previous one (finished or failed) and, if that
was missed, by the beat's recovery job. On-commit publishes on real PostgreSQL; then a real worker."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bots.actions import do_create_bot
from bots.models import BotVersion
from bots.upload import check_upload
from matches import actions
from matches.models import Match
from matches.validation import do_upload_version
from tests.platform.conftest import python_bot
from tests.platform.faults.test_worker_e2e import workers  # noqa: F401  (the fixture: real workers on Redis)

MANY = 10


@pytest.fixture
def sent(monkeypatch):
    """Every match id the code publishes to the broker, in order."""
    published: list[int] = []
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, retry=False: published.append(match_id))
    return published


@pytest.fixture
def uploads(settings, house_bots):
    """uploads(user, n) -> the validation match ids of n new versions of the user's bot, one upload each."""
    settings.MAX_PENDING_VERSIONS = 3 * MANY  # the per-user cap is not under test here

    def make(user, n: int) -> list[int]:
        bot = do_create_bot(user, game="bura", name=f"{user.username}-bot")
        return [do_upload_version(bot, check_upload("main.py", python_bot() + f"\n# {k}\n".encode()))
                .validation_match_id for k in range(n)]

    return make


def clean_result(match: Match) -> dict:
    seats = list(match.seats.order_by("seat"))
    return {"seats": [{"seat": s.seat, "verdict": "ok", "decisions": 3} for s in seats],
            "ranks": [1 + s.seat % 2 for s in seats], "points": [10 * (s.seat % 2) for s in seats]}


def test_one_users_ten_uploads_hold_another_back_by_one_match_at_most(alice, bob, uploads, sent, settings,
                                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        hers = uploads(alice, MANY)
    with django_capture_on_commit_callbacks(execute=True):
        his = uploads(bob, 1)
    assert sent == [hers[0], his[0]]  # Bob's is behind Alice's first only, not behind all ten
    assert Match.objects.filter(pk__in=hers[1:], published_at__isnull=True).count() == MANY - 1

    actions.claim(hers[0], "worker-1")
    with django_capture_on_commit_callbacks(execute=True):  # her first result releases her second
        assert actions.finish(hers[0], "worker-1", clean_result(Match.objects.get(pk=hers[0])), "", 0, {})
    assert sent == [hers[0], his[0], hers[1]]
    assert BotVersion.objects.get(validation_match=hers[0]).status == "ready"

    settings.MAX_ATTEMPTS = 1
    actions.claim(hers[1], "worker-1")
    with django_capture_on_commit_callbacks(execute=True):  # a validation that could not be played: the next
        assert actions.release(hers[1], "worker-1", "the machine broke")
    assert sent[-1] == hers[2]
    assert BotVersion.objects.get(validation_match=hers[1]).status == "error"

    actions.cancel(Match.objects.get(pk=hers[2]), "cancelled by hand")  # nothing released: a missed turn...
    assert sent[-1] == hers[2]
    with django_capture_on_commit_callbacks(execute=True):  # ...that the beat's recovery job gives back
        actions.republish_lost()
    assert sent[-1] == hers[3]
    with django_capture_on_commit_callbacks(execute=True):
        actions.republish_lost()  # once: her fourth is out
    assert sent.count(hers[3]) == 1 and len(sent) == 5


def test_a_held_validation_is_never_republished_as_lost(alice, uploads, sent, monkeypatch,
                                                        django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        hers = uploads(alice, 3)
    monkeypatch.setattr(actions, "REPUBLISH_AFTER", timedelta(0))
    with django_capture_on_commit_callbacks(execute=True):
        actions.republish_lost()
    assert sent == [hers[0], hers[0]]  # the published one again; the held ones wait their turn


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_on_a_real_worker_the_other_users_validation_is_played_second(workers, alice, bob,  # noqa: F811
                                                                     uploads):
    """Alice queues ten uploads, then Bob one: the worker plays Bob's right after Alice's first (in the
    queue's first-come order it was eleventh)."""
    from tests.support.polling import wait_until

    hers = uploads(alice, MANY)
    his = uploads(bob, 1)
    workers("w1")
    everyone = [*hers, *his]
    wait_until(lambda: not Match.objects.filter(pk__in=everyone, status__in=["queued", "running"]).exists(), 240,
               "every validation to be played")
    order = list(Match.objects.filter(pk__in=everyone).order_by("started").values_list("pk", flat=True))
    assert order.index(his[0]) <= 1, f"Bob's validation was played {order.index(his[0]) + 1}th of {len(order)}"
    assert BotVersion.objects.filter(validation_match__in=everyone, status="ready").count() == len(everyone)
