"""One lock order everywhere (docs/matches.md, "Lock order"): recording results and uploading versions side by
side never deadlock. Real threads on real PostgreSQL, each with its own connection and transaction."""

from __future__ import annotations

import functools
import threading
from collections import Counter

import pytest
from django.db import connection

from bots.models import BotVersion
from matches import actions
from matches.models import Match
from tests.platform.conftest import python_bot

# The tests hold 48 and 30 connections at once, of a default PostgreSQL's 100: in one xdist process, so that
# the two never run together and starve each other (or the other processes' tests) of connections.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("postgres-connections")]
UPLOADS = 40
RECORDERS = 8  # threads recording the validation results, UPLOADS / RECORDERS each (connections are finite)


def clean_result(match: Match) -> dict:
    """What the referee reports for a validation match every bot played cleanly."""
    seats = list(match.seats.order_by("seat"))
    return {"seats": [{"seat": s.seat, "verdict": "ok", "decisions": 3} for s in seats],
            "ranks": [1 + s.seat % 2 for s in seats], "points": [10 * (s.seat % 2) for s in seats]}


def run_together(jobs) -> list[BaseException]:
    """Start every job at once (one thread and one database connection each); the exceptions they raised."""
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException] = []

    def run(job):
        try:
            barrier.wait()
            job()
        except BaseException as err:  # a test counts every failure, whatever it is
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread is still waiting for a lock"
    return errors


def test_it_uploads_40_versions_while_their_bots_validations_are_recorded(make_user, house_bots, as_user, upload):
    """The incident: `finish` locked every seat's version row (the house bot's too) and then the bot row; an
    upload locked the bot row and then inserted seats that need a share lock on the house bot's version."""
    from bots.actions import do_create_bot
    from bots.upload import check_upload
    from matches.validation import do_upload_version

    owners, pending = [], []
    for k in range(UPLOADS):
        owner = make_user(f"uploader-{k:02d}")
        bot = do_create_bot(owner, game="bura", name=f"racer-{k:02d}")
        version = do_upload_version(bot, check_upload("main.py", python_bot() + f"\n# v1 {k}\n".encode()))
        match = actions.claim(version.validation_match_id, f"worker-{k}")
        assert match is not None
        owners.append((owner, bot))
        pending.append((match, f"worker-{k}", clean_result(match)))
    clients = {owner.pk: as_user(owner) for owner, _ in owners}  # tokens made before the race
    statuses: list[int] = []

    def record(share):
        def go():
            for match, lease, result in share:
                assert actions.finish(match.pk, lease, result, "", 0, {})
        return go

    def send(owner, bot, k):
        def go():
            from django.core.files.uploadedfile import SimpleUploadedFile

            answer = clients[owner.pk].post(f"/api/v1/bots/{bot.name}/versions/",
                                            {"file": SimpleUploadedFile("main.py", python_bot() + f"\n# v2 {k}\n"
                                                                        .encode())}, format="multipart")
            statuses.append(answer.status_code)
        return go

    jobs = [send(owner, bot, k) for k, (owner, bot) in enumerate(owners)]
    jobs += [record(pending[k::RECORDERS]) for k in range(RECORDERS)]
    errors = run_together(jobs)

    kinds = Counter(str(err).splitlines()[0] for err in errors)
    assert not errors, f"{len(errors)} of {len(jobs)} jobs failed: {dict(kinds)}; e.g. {errors[0]!r}"
    assert statuses == [201] * UPLOADS
    assert Match.objects.filter(pk__in=[m.pk for m, _, _ in pending], status="finished").count() == UPLOADS
    racers = BotVersion.objects.filter(bot__name__startswith="racer-")
    assert racers.filter(number=1, status="ready").count() == UPLOADS
    assert racers.filter(number=2, status="pending").count() == UPLOADS


def test_it_refits_a_preset_while_its_ranked_results_are_recorded(house_bots, make_user):
    """A refit locked every rating of the preset in no order while each result locks its seats' ratings in
    version-id order: refits beside results deadlocked 3 to 9 times a run."""
    from bots.actions import do_create_bot
    from ratings.actions import refit_preset

    owner = make_user("rater")
    versions = [BotVersion.objects.create(bot=do_create_bot(owner, game="bura", name=f"rated-{k}"), number=1,
                                          builtin="random", runtime="builtin", status="ready") for k in range(12)]
    sets = [actions.create_duplicate_set(kind="ladder", preset="bura", ranked=True,
                                         versions=[versions[k % 12], versions[(k * 5 + 1) % 12]])
            for k in range(60) if k % 12 != (k * 5 + 1) % 12]
    first = [s[0] for s in sets]
    for match in first:  # every pair rated once, so every rating row exists before the race
        actions.claim(match.pk, "warm-up")
        actions.finish(match.pk, "warm-up", clean_result(match), "", 0, {})
    refit_preset("bura")
    rest = [match for s in sets for match in s[1:]][:20]  # with 10 refits: 30 connections at once
    for match in rest:
        actions.claim(match.pk, f"w{match.pk}")
    jobs = [functools.partial(lambda m: actions.finish(m.pk, f"w{m.pk}", clean_result(m), "", 0, {}), match)
            for match in rest]
    jobs += [functools.partial(refit_preset, "bura") for _ in range(10)]
    errors = run_together(jobs)
    assert errors == []
    assert Match.objects.filter(pk__in=[m.pk for m in rest], status="finished").count() == len(rest)
