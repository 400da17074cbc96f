"""Where a match is published follows where its seats compute (docs/matches.md, "Queues and workers"): an
uploaded bot's seat sends the match to the ``sandboxed`` queue (played in threads), a person's or a remote
bot's to ``open``, a validation keeps its own queue, and a match of built-in bots only keeps its kind's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.actions import house_version
from bots.models import BotVersion
from config.celery_settings import OPEN_QUEUE, QUEUE_ORDER, SANDBOXED_QUEUE
from matches import actions
from matches.models import Match
from tests.platform.conftest import python_bot

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    published: list[tuple[int, str]] = []
    monkeypatch.setattr(actions, "publish", lambda match_id, queue, **_: published.append((match_id, queue)))
    return published


@pytest.fixture
def uploaded(bura_bot) -> BotVersion:
    """A ready uploaded version: its bot runs in a sandbox."""
    from bots.upload import check_upload
    from matches.validation import do_upload_version

    version = do_upload_version(bura_bot, check_upload("main.py", python_bot("bura")))
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    return BotVersion.objects.get(pk=version.pk)


def test_a_match_with_an_uploaded_bot_goes_to_the_sandboxed_queue_and_stays_there(uploaded, sent,
                                                                                django_capture_on_commit_callbacks):
    greedy = house_version("bura", "greedy")
    with django_capture_on_commit_callbacks(execute=True):
        ladder = actions.create_duplicate_set(kind="ladder", preset="bura", versions=[uploaded, greedy], ranked=True)
        challenge = actions.create_match(kind="challenge", preset="bura", seat_versions=[greedy, uploaded])
        house = actions.create_match(kind="ladder", preset="bura", seat_versions=[greedy, greedy])
    assert all(m.sandboxed_seats and not m.open_seats and m.queue == SANDBOXED_QUEUE for m in (*ladder, challenge))
    assert not house.sandboxed_seats and house.queue == "ladder"  # built-in bots compute in the worker's process
    assert sorted(sent) == sorted([(m.pk, SANDBOXED_QUEUE) for m in (*ladder, challenge)] + [(house.pk, "ladder")])
    # its validation (created by the upload) keeps the validation queue and the workers kept for it
    validation = Match.objects.get(pk=uploaded.validation_match_id)
    assert validation.sandboxed_seats and validation.queue == "validation"
    # a lost message goes back to the queue the match is played from
    Match.objects.filter(pk__in=[m.pk for m in ladder]).update(published_at=timezone.now() - timedelta(minutes=10))
    sent.clear()
    actions.republish_lost(waiting=lambda queue: 0)
    assert {(pk, queue) for pk, queue in sent if pk in {m.pk for m in ladder}} == {
        (m.pk, SANDBOXED_QUEUE) for m in ladder}


def test_a_person_or_remote_seat_wins_over_a_sandboxed_one():
    match = Match(kind="casual", open_seats=True, sandboxed_seats=True)
    assert match.queue == OPEN_QUEUE
    assert QUEUE_ORDER.index(OPEN_QUEUE) < QUEUE_ORDER.index(SANDBOXED_QUEUE) < QUEUE_ORDER.index("ladder")
    # a worker given every queue takes validations and challenges before an uploaded bot's ladder match
    assert QUEUE_ORDER.index("validation") < QUEUE_ORDER.index(SANDBOXED_QUEUE)
