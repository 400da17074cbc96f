"""An analysis of one seat of a finished match: the row is the truth, the Celery message a wake-up call.

Cached by what determines it: the replay (its SHA-256), the seat and the budget (playouts per candidate
action). A second request for the same key finds the row and never runs the search again. Life cycle:
queued → running → done | failed (with the reason); a job claims the row with a conditional update that
takes a lease, and writes the result only while it still holds it, so a message delivered twice, or a
killed worker's job run again, never counts its work twice (analysis/jobs.py, docs/analysis.md).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

RESEND_AFTER = timedelta(minutes=10)


class Analysis(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="analyses")
    replay_sha256 = models.CharField(max_length=64, help_text="the analysed replay, stored by this hash")
    seat = models.PositiveSmallIntegerField()
    budget = models.PositiveIntegerField(help_text="playouts per candidate action")
    # The analysed seat's version: its job's worker time counts against this version's fair share.
    version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="analyses")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="analyses")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    reason = models.TextField(blank=True, help_text="why it failed")
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    worker_ms = models.PositiveIntegerField(default=0, help_text="the job's CPU time: the analysis and the par run")
    # arena.analysis.analyse's answer for this seat (its decisions and summary), and arena.par.par's.
    result = models.JSONField(null=True, blank=True)
    par = models.JSONField(null=True, blank=True)
    expected_loss = models.FloatField(null=True, blank=True, help_text="the points the seat's decisions cost")
    decisions = models.PositiveIntegerField(default=0, help_text="decisions weighed")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["replay_sha256", "seat", "budget"],
                                               name="analysis_cache_key")]
        indexes = [models.Index(fields=["version", "status", "finished"], name="analysis_version_idx")]
        ordering = ["match", "seat"]
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis of seat {self.seat} of match {self.match_id} ({self.status})"

    @property
    def waits_long(self) -> bool:
        """Queued for longer than RESEND_AFTER: its message may have been lost (the broker away when it was
        sent), so the page offers to send it again (a second message finds the row taken or done)."""
        return self.status == self.Status.QUEUED and self.created < timezone.now() - RESEND_AFTER

    @property
    def is_stale(self) -> bool:
        """Running on a lease that ran out: its worker died, and the job may be run again."""
        expires = self.lease_expires
        return self.status == self.Status.RUNNING and (expires is None or expires < timezone.now())
