from __future__ import annotations

from celery import shared_task

from ratings.actions import presets_needing_refit, refit_preset, refit_requested


@shared_task(ignore_result=True)
def refit(preset: str) -> int:
    """Queued once REFIT_EVERY ranked matches are past the last refit (at most one pending per preset)."""
    done = refit_requested(preset)
    return done.rated if done else 0


@shared_task(ignore_result=True)
def refit_due() -> list[str]:
    """Beat: refit every preset that has ranked matches the last fit did not see."""
    presets = presets_needing_refit()
    for preset in presets:
        refit_preset(preset)
    return presets
