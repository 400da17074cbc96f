"""The account row as the lock of everything one user does at a time (first in the lock order,
docs/matches.md): their uploads numbered in turn, their per-user caps counted in turn, their validations
released one at a time."""

from __future__ import annotations

from django.contrib.auth import get_user_model


def lock_account(user_id: int | None) -> None:
    """Lock the user's row until the surrounding transaction ends (FOR NO KEY UPDATE: rows that merely
    reference the user are not blocked)."""
    if user_id is not None:
        list(get_user_model().objects.select_for_update(no_key=True).filter(pk=user_id).values_list("pk"))
