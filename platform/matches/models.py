"""Matches: the database row is the truth, the broker's message only a wake-up call.

Life cycle: queued → running → finished | failed | cancelled, or aborted (a person's match whose worker
died). A worker claims a queued match with a
conditional update that takes a lease (owner, expiry), renews the lease while playing, and may write the
result only while it still holds the lease. See docs/matches.md for the invariants and their tests.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from arena.cards import derive_seed
from config.celery_settings import OPEN_QUEUE, SANDBOXED_QUEUE


class MatchQuerySet(models.QuerySet):
    def with_deal_in_play(self) -> MatchQuerySet:
        """Each match annotated with ``deal_still_in_play`` (what ``Match.deal_in_play`` answers): one EXISTS
        subquery in the same statement, so a list of matches costs no query per match."""
        return self.annotate(deal_still_in_play=models.Exists(
            Match.objects.filter(base_seed=models.OuterRef("base_seed"), status__in=DEAL_IN_PLAY)))

    def playing_deal(self, base_seed: int) -> MatchQuerySet:
        """The matches of one deal that have not ended yet."""
        return self.filter(base_seed=base_seed, status__in=DEAL_IN_PLAY)


class Match(models.Model):
    class Kind(models.TextChoices):
        VALIDATION = "validation"
        LADDER = "ladder"
        CHALLENGE = "challenge"
        TOURNAMENT = "tournament"
        # A person at the table against bots (live tables): unranked, played by a worker like any match.
        CASUAL = "casual"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"
        # Stopped for good without a result: a match with a person whose worker died (the person's moves
        # cannot be replayed from the seed). Never rated; the person is offered a rematch.
        ABORTED = "aborted"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    ranked = models.BooleanField(default=False, help_text="counts for ratings (ladder matches)")
    game = models.CharField(max_length=16)
    preset = models.CharField(max_length=40)
    overrides = models.JSONField(default=dict, blank=True, help_text="rule options changed from the preset")
    time_control = models.JSONField(default=dict)
    # The deal comes from derive_seed(base_seed, 0), exactly as `arena play --seed BASE_SEED` game 0. Every
    # rotation of the seats over one deal shares duplicate_set and base_seed: the unit of fair play.
    base_seed = models.BigIntegerField()
    duplicate_set = models.UUIDField(default=uuid.uuid4, db_index=True)
    rotation = models.PositiveSmallIntegerField(default=0)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="requested_matches")
    # A validation match points at the version it validates (matches stand above bots: bots never name a match).
    validates = models.ForeignKey("bots.BotVersion", null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="validation_matches", related_query_name="validation_match",
                                  help_text="the version this validation match validates")
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    # When the match's message was last sent to the broker; null while the match is *held* in the database
    # (a tournament's matches beyond the few it may have out, a user's validations behind their first).
    published_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    replay_sha256 = models.CharField(max_length=64, blank=True)
    replay_size = models.PositiveIntegerField(default=0)
    failure = models.TextField(blank=True, help_text="why the match failed or was retried (infrastructure)")
    open_seats = models.BooleanField(
        default=False, help_text="a seat waits on a person or a remote connection: played on the open queue")
    sandboxed_seats = models.BooleanField(
        default=False, help_text="a seat computes in a sandbox: played in threads on the sandboxed queue")
    live_delay_seconds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="how far behind the play its live view runs; empty: the site's default")

    objects = MatchQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["status", "lease_expires"], name="match_lease_idx"),
            models.Index(fields=["status", "published_at"], name="match_publish_idx"),
            models.Index(fields=["kind", "preset", "status"], name="match_kind_preset_idx"),
            models.Index(fields=["-finished"], name="match_finished_idx"),
            # Whether any match still names a replay, before pruning deletes it (matches/prune.py).
            models.Index(fields=["replay_sha256"], name="match_replay_idx", condition=~models.Q(replay_sha256="")),
        ]
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.kind} {self.preset}, {self.status})"

    @property
    def seed(self) -> int:
        return derive_seed(self.base_seed, 0)

    def deal_in_play(self) -> bool:
        """Whether any match of this match's deal (the same base seed: every rotation of a duplicate set, and
        a replacement for one that failed) is still queued or running. While it is, the deal's seeds,
        replays, frames, logs and every hand stay hidden from everyone. Read from ``with_deal_in_play``'s
        annotation when the match was loaded with it, else asked of the database."""
        annotated = self.__dict__.get("deal_still_in_play")
        if annotated is not None:
            return annotated
        if self.status in DEAL_IN_PLAY:
            return True
        return Match.objects.playing_deal(self.base_seed).exists()

    @property
    def is_done(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.FAILED, self.Status.CANCELLED, self.Status.ABORTED)

    @property
    def queue(self) -> str:
        """The broker queue the match is published to, by where its seats compute (docs/matches.md, "Queues
        and workers"):

        - ``open`` when a seat waits on a person or a remote connection;
        - ``sandboxed`` when a seat is an uploaded bot (a validation excepted): the bot computes in a process of
          its own while the worker only waits on its pipe;
        - its kind's when every seat is a built-in bot, computed in the worker's own process.

        The first two are played in threads, many matches to a process, so a seat that thinks, or a person who
        does, never holds the processes the built-in bots compute in. A validation keeps its own queue: a new
        upload's single match is played at once by the workers kept for it."""
        if self.open_seats:
            return OPEN_QUEUE
        if self.sandboxed_seats and self.kind != self.Kind.VALIDATION:
            return SANDBOXED_QUEUE
        return self.kind

    @property
    def is_held(self) -> bool:
        return self.status == self.Status.QUEUED and self.published_at is None


# A deal is in play while any match that plays it (every match with its base seed) is one of these: until
# then nothing that determines or shows its hidden cards leaves the referee (docs/matches.md, "What is
# hidden until when").
DEAL_IN_PLAY = (Match.Status.QUEUED, Match.Status.RUNNING)


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="seats")
    verdict = models.CharField(max_length=20, blank=True)
    code = models.CharField(max_length=40, blank=True)
    detail = models.TextField(blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True, help_text="the seat's points (or its team's)")
    decisions = models.PositiveIntegerField(default=0)
    think_ms = models.PositiveIntegerField(default=0, help_text="the seat's own clock: its decisions' time, in all")
    worker_ms = models.PositiveIntegerField(
        default=0, help_text="what the seat cost a worker: its thinking plus its share of the rest of the match")
    resources = models.JSONField(null=True, blank=True)
    # The bot's stderr (capped), private to the bot's owner.
    log_sha256 = models.CharField(max_length=64, blank=True)
    log_size = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="seat_unique")]
        indexes = [
            models.Index(fields=["version", "match"], name="seat_version_idx"),
            # Whether any seat still names a log, before pruning deletes it (matches/prune.py).
            models.Index(fields=["log_sha256"], name="seat_log_idx", condition=~models.Q(log_sha256="")),
        ]
        ordering = ["match", "seat"]

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}"
