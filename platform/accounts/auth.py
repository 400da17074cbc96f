"""API authentication by named knox tokens (``Authorization: Token kz_…``)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from knox.auth import TokenAuthentication

LAST_USED_RESOLUTION = timedelta(minutes=1)  # one write per token per minute at most


class ApiTokenAuthentication(TokenAuthentication):
    def validate_user(self, auth_token):
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used is None or now - token.last_used > LAST_USED_RESOLUTION:
            type(token).objects.filter(pk=token.pk).update(last_used=now)
        return user, token
