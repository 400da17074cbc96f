"""What a bot author is told (``Notification``), how they want to hear it (``Preferences``) and what each
channel did with it (``Delivery`` and its ``Attempt`` log, shown to its owner only)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Event(models.TextChoices):
    """The events a bot author can act on (docs/notifications.md, "Events")."""

    VERSION_VALIDATED = "version.validated", "version validated"
    VERSION_REJECTED = "version.rejected", "version rejected"
    BOT_CRASHING = "bot.crashing", "bot crashing in a streak"
    BOT_SUSPENDED = "bot.suspended", "bot suspended"
    TOURNAMENT_STARTED = "tournament.started", "tournament started"
    TOURNAMENT_FINISHED = "tournament.finished", "tournament finished"
    CHALLENGE_PLAYED = "challenge.played", "challenge played"


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    event = models.CharField(max_length=32, choices=Event.choices)
    # One notification per event and user however often the code that notices it runs (a hook retried, two
    # workers finishing the last two matches of a challenge at once): the insert of a second is a no-op.
    key = models.CharField(max_length=200, unique=True)
    title = models.CharField(max_length=200)
    text = models.TextField(blank=True)
    url = models.CharField(max_length=300, blank=True, help_text="the page it is about, site-relative")
    data = models.JSONField(default=dict, blank=True, help_text="the event's ids, sent in the webhook's payload")
    created = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "-created"], name="notification_user_created"),
            # the bell's count on every page: the user's unread rows only
            models.Index(fields=["user"], condition=Q(read_at__isnull=True), name="notification_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.title}"


class Preferences(models.Model):
    """A user's channels beyond the site: e-mail (opt-in) and one webhook."""

    class Format(models.TextChoices):
        JSON = "json", "JSON (Kozyr's payload)"
        DISCORD = "discord", "Discord-compatible"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="notification_preferences")
    email = models.BooleanField(default=False, help_text="also send each notification to my e-mail address")
    webhook_url = models.URLField(max_length=500, blank=True)
    webhook_format = models.CharField(max_length=10, choices=Format.choices, default=Format.JSON)
    # Kept to sign each payload (HMAC-SHA256); shown to its owner once, when created or rotated.
    webhook_secret = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class Delivery(models.Model):
    """One notification sent on one channel: its state across attempts (the task retries with back-off)."""

    class Channel(models.TextChoices):
        EMAIL = "email", "e-mail"
        WEBHOOK = "webhook", "webhook"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RETRYING = "retrying", "retrying"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed"

    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="deliveries")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["notification", "channel"], name="delivery_once_per_channel")]

    def __str__(self) -> str:
        return f"{self.channel} of {self.notification_id}: {self.status}"


class Attempt(models.Model):
    """The delivery log a user reads: each try, what the endpoint answered (or why there was no answer)."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField(auto_now_add=True)
    ok = models.BooleanField()
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    milliseconds = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["user", "-at"], name="attempt_user_at")]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}"
