"""Token life cycle, shared by the API and the web pages."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from accounts.models import ApiToken, User
from config.errors import ActionError

MAX_TOKENS_PER_USER = 50


class TokenLimitReached(ActionError):
    def __init__(self, message: str, field: str | None = "name"):
        super().__init__(message, field)


def do_create_token(user: User, name: str, expires_in_days: int | None) -> tuple[ApiToken, str]:
    """A new named token; returns (row, the token string, shown this once and never stored)."""
    with transaction.atomic():
        if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS_PER_USER:
            raise TokenLimitReached(f"at most {MAX_TOKENS_PER_USER} tokens per user; revoke one first")
        expiry = timedelta(days=expires_in_days) if expires_in_days else None
        return ApiToken.objects.create(user=user, expiry=expiry, name=name)


def do_revoke_token(user: User, public_id: str) -> bool:
    deleted, _ = ApiToken.objects.filter(user=user, token_key=public_id).delete()
    return deleted > 0
