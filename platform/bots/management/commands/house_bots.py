from django.core.management.base import BaseCommand

from bots.actions import ensure_house_bots


class Command(BaseCommand):
    help = "Register every built-in bot of every game as a ready house bot (idempotent)."

    def handle(self, *args, **options):
        bots = ensure_house_bots()
        self.stdout.write(f"{len(bots)} house bots ready: {', '.join(b.name for b in bots)}")
