"""Build the bot author's toolkit's wheel ahead of the first request for it (web/toolkit.py)."""

from django.core.management.base import BaseCommand

from web import toolkit


class Command(BaseCommand):
    help = "Build the toolkit's wheel (arena, without the platform) that /docs/get-started/ offers."

    def handle(self, *args, **options):
        built = toolkit.wheel()
        self.stdout.write(f"toolkit: {built.path} ({built.size} bytes, sha256 {built.sha256})")
