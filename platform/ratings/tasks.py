from __future__ import annotations

from celery import shared_task

from ratings.actions import presets_needing_refit, refit_preset


@shared_task(ignore_result=True)
def refit(preset: str) -> int:
    return refit_preset(preset).rated


@shared_task(ignore_result=True)
def refit_due() -> list[str]:
    """Beat: refit every preset that has ranked matches the last fit did not see."""
    presets = presets_needing_refit()
    for preset in presets:
        refit_preset(preset)
    return presets
