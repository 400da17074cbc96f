"""Staff tools: suspend or restore a bot (a suspended bot plays no ranked match and enters no tournament)."""

from django.contrib import admin, messages

from bots.models import Bot, BotVersion
from bots.signals import ladder_standing_changed


@admin.action(description="Suspend the selected bots (staff)")
def suspend(modeladmin, request, queryset):
    ids = list(queryset.values_list("pk", flat=True))
    count = queryset.update(suspended_reason=f"suspended by staff ({request.user.username})", suspended_by="staff")
    ladder_standing_changed.send(sender=Bot, bot_ids=ids)
    messages.success(request, f"{count} bot(s) suspended.")


@admin.action(description="Lift the suspension of the selected bots")
def unsuspend(modeladmin, request, queryset):
    count = queryset.update(suspended_reason="", suspended_by="")
    messages.success(request, f"{count} bot(s) restored.")


class VersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "status", "runtime", "size", "sha256", "retired", "reason", "created")
    readonly_fields = fields
    can_delete = False  # versions are immutable: replays point at them


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "owner", "active", "suspended_reason", "current_version")
    list_filter = ("game", "active", "suspended_by")
    search_fields = ("name", "owner__username")
    readonly_fields = ("current_version", "created", "updated")
    actions = [suspend, unsuspend]
    inlines = [VersionInline]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and {"active", "suspended_reason"} & set(form.changed_data):
            ladder_standing_changed.send(sender=Bot, bot_ids=[obj.pk])
