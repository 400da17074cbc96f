"""Ratings per bot version and preset: the live OpenSkill value and the official batch fit, with history."""

from __future__ import annotations

from django.db import models


class Rating(models.Model):
    """One version on one preset's scale. Counters and the live value change with every ranked match (in its
    result transaction); the official value changes only when the preset is refitted."""

    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="ratings")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="ratings")
    preset = models.CharField(max_length=40)
    live_mu = models.FloatField()
    live_sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.0, help_text="the sum of match scores (1 win, ½ draw, 0 loss)")
    last_played = models.DateTimeField(null=True, blank=True)
    official = models.FloatField(null=True, blank=True, help_text="Elo scale; null until the version is fitted")
    official_low = models.FloatField(null=True, blank=True)
    official_high = models.FloatField(null=True, blank=True)
    provisional = models.BooleanField(default=True)
    los_next = models.FloatField(null=True, blank=True,
                                 help_text="likelihood of superiority over the next version down the leaderboard")
    fitted_at = models.DateTimeField(null=True, blank=True)
    # Is this version its bot's current one? Kept in step with Bot.current_version (ratings.actions.
    # sync_current) so a leaderboard is one index range, not a join of every rating with every bot.
    is_current = models.BooleanField(default=False)
    # The leaderboard's sort key: the official rating, or far below every rating while there is none (an
    # index cannot say NULLS LAST on every database; this column never is null).
    board = models.FloatField(default=-1e12)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "preset"], name="rating_version_preset")]
        # The leaderboard's order exactly, so a page is read off the index without sorting every rating.
        indexes = [models.Index(fields=["preset", "is_current", "-board", "-live_mu", "id"], name="rating_board_idx"),
                   models.Index(fields=["bot", "preset"], name="rating_bot_idx")]

    def __str__(self) -> str:
        return f"{self.version} on {self.preset}"

    @property
    def half_width(self) -> float | None:
        if self.official_low is None or self.official_high is None:
            return None
        return (self.official_high - self.official_low) / 2

    @property
    def score_percent(self) -> float | None:
        return 100.0 * self.score / self.games if self.games else None


class Refit(models.Model):
    """One run of the official fit over a preset."""

    preset = models.CharField(max_length=40)
    at = models.DateTimeField(auto_now_add=True)
    matches = models.PositiveIntegerField()
    last_match = models.BigIntegerField(default=0, help_text="the highest match id the fit saw")
    rated = models.PositiveIntegerField()
    seconds = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["preset", "-at"], name="refit_preset_idx")]
        ordering = ["-at"]


class RatingSnapshot(models.Model):
    """A version's official rating after one refit: the rating history that pages plot."""

    refit = models.ForeignKey(Refit, on_delete=models.CASCADE, related_name="snapshots")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="rating_snapshots")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="rating_snapshots")
    preset = models.CharField(max_length=40)
    at = models.DateTimeField()
    rating = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["bot", "preset", "at"], name="snapshot_bot_idx")]
        ordering = ["at"]


class RefitRequest(models.Model):
    """A preset's one pending refit. ``requested`` is set by the conditional update that queues a refit (only
    the caller that changed it publishes the message) and cleared by the refit that ran after it, so however many
    ranked results arrive meanwhile, at most one refit waits per preset. The row is the truth, not the broker: a
    lost message leaves it set until the periodic refit_due, which refits regardless, clears it."""

    preset = models.CharField(max_length=40, unique=True)
    requested = models.DateTimeField(null=True, blank=True, help_text="when the pending refit was queued")

    def __str__(self) -> str:
        return f"refit of {self.preset}" + (f" queued at {self.requested}" if self.requested else "")
