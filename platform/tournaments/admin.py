from django.contrib import admin

from tournaments.models import Entry, Tournament, VersionTest


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    readonly_fields = ("version", "seed", "joined")


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "host", "preset", "format", "status", "starts_at")
    list_filter = ("status", "format")
    inlines = [EntryInline]


@admin.register(VersionTest)
class VersionTestAdmin(admin.ModelAdmin):
    list_display = ("candidate", "base", "preset", "status", "llr", "created")
