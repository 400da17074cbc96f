"""The open-data job (beat, hourly): build each finished month's dumps, one task per dump.

A month is due once it has ended and none of its public matches' deals is still in play, or once
``EMBARGO_GRACE`` has passed since its end regardless (the few matches still embargoed then are left out
and counted in the manifest's ``withheld``): waiting for every deal lets a month's last duplicate sets finish
and enter its dump, without letting one stuck deal hold a month back for ever.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.db import IntegrityError
from django.utils import timezone

from opendata import build, select
from opendata.models import Dump

EMBARGO_GRACE = timedelta(days=3)


def due(now=None) -> list[Dump]:
    """The dumps to build now (rows created for months met for the first time)."""
    now = now or timezone.now()
    ready = set(Dump.objects.filter(status=Dump.Status.READY).values_list("preset", "month"))
    found = []
    for preset, month in select.finished_months(now):
        if (preset, month) in ready:
            continue
        _, end = select.month_bounds(month)
        if now < end + EMBARGO_GRACE and select.still_embargoed(preset, month):
            continue
        try:
            dump, _ = Dump.objects.get_or_create(preset=preset, month=month)
        except IntegrityError:  # another beat run created it meanwhile
            dump = Dump.objects.get(preset=preset, month=month)
        found.append(dump)
    return found


@shared_task(ignore_result=True)
def build_due() -> int:
    """Queue a build of every due dump; a build already held by a live lease ignores its message."""
    dumps = due()
    for dump in dumps:
        build_dump.apply_async((dump.pk,), queue="maintenance")
    return len(dumps)


@shared_task(ignore_result=True)
def build_dump(dump_id: int) -> str:
    return build.build(dump_id)
