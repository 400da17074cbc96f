"""Tournaments: entries with frozen versions, rounds of pairings, each pairing a unit of duplicate sets
played as ordinary matches; and version tests (SPRT)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        DOUBLE_ROUND_ROBIN = "double_round_robin", "double round robin"
        GAUNTLET = "gauntlet", "gauntlet (one bot against the field)"
        SWISS = "swiss", "Swiss"
        KNOCKOUT = "knockout", "knockout"
        TABLE_ROUND_ROBIN = "table_round_robin", "round robin of tables (3–6 sides)"
        SWISS_TABLES = "swiss_tables", "Swiss tables by score (3–6 sides)"

    class Entry(models.TextChoices):
        OPEN = "open"
        INVITE = "invite", "invite code"
        PRIVATE = "private", "private (the host adds entrants)"

    class Status(models.TextChoices):
        OPEN = "open", "open for entries"
        RUNNING = "running"
        PAUSED = "paused"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hosted_tournaments")
    name = models.CharField(max_length=80, unique=True)
    description = models.TextField(blank=True, max_length=4000)
    preset = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=20, choices=Format.choices)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Swiss: the number of rounds")
    deals = models.PositiveSmallIntegerField(default=1, help_text="duplicate sets per pairing")
    time_control = models.JSONField(default=dict)
    live_delay_seconds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="how far behind the play its matches' live views run (a final may want "
                                         "longer); empty: the site's default")
    remote_bots = models.BooleanField(
        default=True, help_text="remote versions (played from their owners' machines over arena connect) may "
                                "enter; off: only bots that run in the site's sandbox")
    entry = models.CharField(max_length=10, choices=Entry.choices, default=Entry.OPEN)
    invite_code = models.CharField(max_length=32, blank=True)
    max_entries = models.PositiveIntegerField(default=64)
    entry_deadline = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    challenger = models.ForeignKey("Entry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                   help_text="gauntlet: the entrant who meets the field")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True, help_text="why it was cancelled or paused")

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due_idx")]
        ordering = ["-starts_at"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if self.entry == self.Entry.INVITE and not self.invite_code:
            self.invite_code = secrets.token_urlsafe(9)
        super().save(*args, **kwargs)


# The formats for presets of 3–6 sides: tables (Table rows) instead of one-to-one pairings (Pairing rows).
TABLE_FORMATS = (Tournament.Format.TABLE_ROUND_ROBIN, Tournament.Format.SWISS_TABLES)


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="entries")
    version = models.ForeignKey("bots.BotVersion", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="entries", help_text="frozen when the tournament starts")
    seed = models.PositiveIntegerField(null=True, blank=True, help_text="1 = the strongest by rating at the start")
    joined = models.DateTimeField(auto_now_add=True)
    withdrawn = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot"], name="entry_once")]
        ordering = ["seed", "joined"]

    def __str__(self) -> str:
        return f"{self.bot.name} in {self.tournament.name}"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    finished = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_once")]
        ordering = ["number"]


class Pairing(models.Model):
    """Two entrants (or one with a bye) in a round. ``score`` is ``first``'s match points once decided."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    board = models.PositiveSmallIntegerField()
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(null=True, blank=True)
    margin = models.FloatField(default=0.0, help_text="first's duplicate point difference")
    games_first = models.FloatField(default=0.0, help_text="first's match scores summed over the pairing's matches")
    games = models.PositiveIntegerField(default=0)
    tiebreak_sets = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["round", "board"]

    @property
    def is_bye(self) -> bool:
        return self.second_id is None


class Table(models.Model):
    """A table of a 3–6-side preset: its entrants in seat (or team) order. ``scores`` maps each entrant to its
    share of the other sides it beat over the table's matches, once all are in; an entrant sitting the round
    out has a table of its own with ``bye`` set."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    board = models.PositiveSmallIntegerField()
    seating = models.JSONField(help_text="entry ids in seat (or team) order")
    totals = models.JSONField(default=dict, help_text="entry id -> summed match scores so far")
    games = models.PositiveIntegerField(default=0)
    scores = models.JSONField(null=True, blank=True)
    bye = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "board"]


class TableSet(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="sets")
    duplicate_set = models.UUIDField(unique=True)


class PairingSet(models.Model):
    """A duplicate set played for a pairing (its matches share ``duplicate_set``)."""

    pairing = models.ForeignKey(Pairing, on_delete=models.CASCADE, related_name="sets")
    duplicate_set = models.UUIDField(unique=True)
    tiebreak = models.BooleanField(default=False)


class Trophy(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="trophies")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="trophies")
    place = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "place"], name="trophy_once")]
        ordering = ["place"]


class VersionTest(models.Model):
    """A sequential probability ratio test of a candidate version against a base version (fishtest's SPRT on
    duplicate pairs)."""

    class Status(models.TextChoices):
        RUNNING = "running"
        H1 = "accepted_h1", "accepted: the candidate is stronger"
        H0 = "accepted_h0", "accepted: the candidate is not stronger"
        STOPPED = "stopped"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="version_tests")
    candidate = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+")
    base = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+")
    preset = models.CharField(max_length=40)
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=10.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_pairs = models.PositiveIntegerField(default=2000)
    parallel = models.PositiveSmallIntegerField(default=4, help_text="duplicate pairs kept queued at once")
    # the pentanomial counts: duplicate pairs whose two games gave the candidate 0, ½, 1, 1½ or 2 points
    counts = models.JSONField(default=list)
    llr = models.FloatField(default=0.0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]


class TestSet(models.Model):
    test = models.ForeignKey(VersionTest, on_delete=models.CASCADE, related_name="sets")
    duplicate_set = models.UUIDField(unique=True)
    counted = models.BooleanField(default=False)
