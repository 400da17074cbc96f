from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"


class KozyrAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin, whose site checks passwords under the log-in limits (accounts/admin_site.py);
    named in INSTALLED_APPS, never the default of `accounts`."""

    default = False
    default_site = "accounts.admin_site.KozyrAdminSite"
