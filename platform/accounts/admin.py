from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, User


@admin.register(User)
class KozyrUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Suspension", {"fields": ("suspended_reason",)}))
    list_display = ("username", "email", "is_active", "is_staff", "date_joined")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "name", "token_key", "created", "expiry", "last_used")
    readonly_fields = ("digest", "token_key", "created", "last_used")
