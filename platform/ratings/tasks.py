from __future__ import annotations

import logging

from celery import shared_task

from ratings.actions import presets_needing_refit, refit_preset, refit_requested
from ratings.models import Refit
from ratings.people import PEOPLE, presets_needing_people_refit, refit_people

log = logging.getLogger(__name__)


def _report(done: Refit) -> None:
    """Its duration is kept on the row (Refit.seconds: /metrics reads the latest) and said in the log."""
    log.info("refit of %s: %d matches, %d versions rated in %.2f s", done.preset, done.matches, done.rated,
             done.seconds, extra={"preset": done.preset, "refit_seconds": round(done.seconds, 3)})


@shared_task(ignore_result=True)
def refit(preset: str) -> int:
    """Queued once REFIT_EVERY ranked matches are past the last refit (at most one pending per preset)."""
    done = refit_requested(preset)
    if done is None:
        return 0
    _report(done)
    return done.rated


@shared_task(ignore_result=True)
def refit_due() -> list[str]:
    """Beat: refit every preset that has ranked matches the last fit did not see, and the people's ratings of
    every preset with casual matches their last fit did not see."""
    presets = presets_needing_refit()
    for preset in presets:
        _report(refit_preset(preset))
    for preset in presets_needing_people_refit():
        _report(refit_people(preset))
        presets.append(PEOPLE + preset)
    return presets
