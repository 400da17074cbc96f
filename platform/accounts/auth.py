"""API authentication by named knox tokens (``Authorization: Token kz_…``)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from rest_framework import exceptions

LAST_USED_RESOLUTION = timedelta(minutes=1)  # one write per token per minute at most


class ApiTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except UnicodeDecodeError:  # a header that is not UTF-8 cannot hold one of our tokens
            raise exceptions.AuthenticationFailed("invalid token: the Authorization header is not text") from None

    def authenticate_credentials(self, token: bytes):
        from accounts.models import ApiToken

        text = token.decode("utf-8")
        expired = ApiToken.objects.filter(digest=hash_token(text), expiry__lt=timezone.now()).first()
        if expired is not None:
            when = expired.expiry
            expired.delete()
            raise exceptions.AuthenticationFailed(f"this token expired on {when:%Y-%m-%d %H:%M} UTC; create a new "
                                                  f"one on your profile page or with `arena login`")
        return super().authenticate_credentials(token)

    def validate_user(self, auth_token):
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used is None or now - token.last_used > LAST_USED_RESOLUTION:
            type(token).objects.filter(pk=token.pk).update(last_used=now)
        return user, token
