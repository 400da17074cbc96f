"""What `make run` does before starting the processes: migrate, an admin account, the house bots."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from bots.actions import ensure_house_bots
from web import toolkit


class Command(BaseCommand):
    help = "Prepare a local install: migrate, create the admin account once (printing its password), house bots."

    def handle(self, *args, **options):
        call_command("migrate", verbosity=0, interactive=False)
        User = get_user_model()
        password_file = settings.VAR_DIR / "admin_password"
        if not User.objects.filter(username="admin").exists():
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser("admin", "", password)
            password_file.write_text(password + "\n")
            password_file.chmod(0o600)
        password = password_file.read_text().strip() if password_file.exists() else "(set when it was created)"
        bots = ensure_house_bots()
        self.stdout.write(f"database ready; {len(bots)} house bots registered")
        self.stdout.write(f"admin log-in: user 'admin', password '{password}' (kept in {password_file})")
        # the Get started page's wheel, built now rather than on its first visitor's request
        try:
            toolkit.wheel()
        except (toolkit.ToolkitError, OSError) as error:
            self.stderr.write(f"warning: the toolkit's wheel is built on the first visit instead: {error}")
