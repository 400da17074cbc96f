"""Users and their API tokens."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from knox.models import AbstractAuthToken

SYSTEM_USERNAME = "kozyr"  # owns the house bots (the built-in bots of every game)


class User(AbstractUser):  # type: ignore[django-manager-missing]  # knox adds auth_token_set
    """A Kozyr account. Suspending a user is ``is_active = False`` (no log-in, no token works)."""

    suspended_reason = models.CharField(max_length=200, blank=True)

    @property
    def is_system(self) -> bool:
        return self.username == SYSTEM_USERNAME


class ApiToken(AbstractAuthToken):
    """A named API token. Only its SHA-512 digest is stored (knox); the token is shown once at creation."""

    name = models.CharField(max_length=64)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    @property
    def public_id(self) -> str:
        """The token's first characters: enough to tell tokens apart, useless to authenticate."""
        return self.token_key
