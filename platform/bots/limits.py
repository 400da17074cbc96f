"""Per-user caps on bots and on versions waiting for validation.

Checked inside ``do_create_bot`` and ``do_upload_version`` (bots/actions.py), the one way in for the API,
the pages and commands alike. Inside a transaction the owner's row is locked first, so concurrent requests
of one user are counted one after the other and cannot pass a cap together. Staff and the house-bot
account are exempt. The rate limits (uploads and new bots an hour) are the views' business:
accounts/limits.py.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from bots.models import Bot, BotVersion
from config.errors import ActionError


class CapReached(ActionError):
    """A per-user cap: the API answers 403 with the message naming the cap; ``field`` names the input the
    message belongs beside on the pages (or None)."""

    status = 403
    code = "cap_reached"


def exempt(user) -> bool:
    return bool(user.is_staff or user.is_system)


def _lock(owner) -> None:
    # FOR NO KEY UPDATE: serialises these checks without blocking inserts that merely reference the user
    if transaction.get_connection().in_atomic_block:
        list(get_user_model().objects.select_for_update(no_key=True).filter(pk=owner.pk).values_list("pk", flat=True))


def check_bot_cap(owner) -> None:
    if exempt(owner):
        return
    _lock(owner)
    cap = settings.MAX_BOTS_PER_USER
    have = Bot.objects.filter(owner=owner, kind=Bot.Kind.BOT).count()  # a person's seats are not bots
    if have >= cap:
        raise CapReached(f"at most {cap} bots per account, and you have {have}: upload a new version of one of "
                         f"them instead (a bot keeps all its versions)")


def check_pending_cap(owner) -> None:
    if exempt(owner):
        return
    _lock(owner)
    cap = settings.MAX_PENDING_VERSIONS
    waiting = BotVersion.objects.filter(bot__owner=owner, status=BotVersion.Status.PENDING).count()
    if waiting >= cap:
        raise CapReached(f"at most {cap} versions per account may wait for their validation match at once, and "
                         f"you have {waiting} waiting: upload again when one of them is validated", "file")
