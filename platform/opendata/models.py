"""Open-data dumps: one row per preset and month, the truth about which files exist and are complete.

A dump's files are written by ``opendata.build`` under a name of their own attempt and named by the row only
once every one of them is stored whole (status ``ready``): a build that dies halfway leaves files nothing
lists, and the next attempt claims the row again when its lease expires (docs/data.md).
"""

from __future__ import annotations

from django.db import models


class Dump(models.Model):
    class Status(models.TextChoices):
        BUILDING = "building"  # claimed (or waiting to be claimed again after a crash); listed nowhere
        READY = "ready"

    preset = models.CharField(max_length=40)
    month = models.DateField(help_text="the first day of the month whose finished matches it holds (UTC)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.BUILDING)
    attempt = models.PositiveIntegerField(default=0, help_text="builds started; names the attempt's files")
    lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    built = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0.0, help_text="how long the build took")
    matches = models.PositiveIntegerField(default=0)
    withheld = models.JSONField(default=dict, blank=True,
                                help_text="the month's public matches left out, by reason (embargo, consent, …)")
    replays_name = models.CharField(max_length=255, blank=True)
    replays_size = models.BigIntegerField(default=0)
    replays_sha256 = models.CharField(max_length=64, blank=True)
    index_name = models.CharField(max_length=255, blank=True)
    index_size = models.BigIntegerField(default=0)
    index_sha256 = models.CharField(max_length=64, blank=True)
    manifest_name = models.CharField(max_length=255, blank=True)
    manifest_size = models.BigIntegerField(default=0)
    manifest_sha256 = models.CharField(max_length=64, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["preset", "month"], name="dump_preset_month")]
        ordering = ["-month", "preset"]

    def __str__(self) -> str:
        return f"dump {self.preset} {self.label} ({self.status})"

    @property
    def label(self) -> str:
        return self.month.strftime("%Y-%m")

    def files(self) -> list[dict[str, object]]:
        """The dump's files as the page and the manifests list them: kind, storage name, bytes, SHA-256."""
        return [{"kind": kind, "name": getattr(self, f"{kind}_name"), "size": getattr(self, f"{kind}_size"),
                 "sha256": getattr(self, f"{kind}_sha256")} for kind in ("replays", "index", "manifest")]
