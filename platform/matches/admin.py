from django.contrib import admin

from matches.models import Match, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "version", "verdict", "code", "rank", "score", "decisions")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    """Read-only: a result is written once, by the worker that held the lease."""

    list_display = ("id", "kind", "preset", "status", "attempts", "created", "finished")
    list_filter = ("status", "kind", "preset")
    inlines = [SeatInline]

    def has_change_permission(self, request, obj=None):
        return False
