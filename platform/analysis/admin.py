from django.contrib import admin

from analysis.models import Analysis


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    """Read-only: a result is written once, by the job that held the lease (analysis/jobs.py)."""

    list_display = ("id", "match", "seat", "budget", "status", "attempts", "worker_ms", "created", "finished")
    list_filter = ("status",)
    raw_id_fields = ("match", "version", "requested_by")

    def has_change_permission(self, request, obj=None):
        return False
