"""`make run`'s last word on the terminal: once the web server answers, the site's address and the admin
log-in, after every process's start-up lines; then one line a minute on what the site did."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db.models import Count, Q
from django.utils import timezone

from matches.models import Match

WAIT_SECONDS = 300
SUMMARY_EVERY_SECONDS = 60


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def minute_summary(since) -> str:
    counts = Match.objects.aggregate(
        n_finished=Count("pk", filter=Q(status=Match.Status.FINISHED, finished__gte=since)),
        n_failed=Count("pk", filter=Q(status=Match.Status.FAILED, finished__gte=since)),
        n_queued=Count("pk", filter=Q(status=Match.Status.QUEUED)),
        n_running=Count("pk", filter=Q(status=Match.Status.RUNNING)))
    return (f"kozyr: the last minute: {counts['n_finished']} matches finished, {counts['n_failed']} failed; "
            f"now {counts['n_running']} running, {counts['n_queued']} queued")


def workers_answering() -> set[str]:
    """The kinds of Celery worker (`worker`, `maintenance`) that answer a ping: up, past their start-up lines."""
    from config.celery import app

    try:
        replies = app.control.ping(timeout=1.0)
    except Exception:  # the broker is still starting
        return set()
    return {name.split("@", 1)[0] for reply in replies for name in reply}


class Command(BaseCommand):
    help = "Print the site's address and admin log-in once it answers, then a one-line summary every minute."

    def add_arguments(self, parser):
        parser.add_argument("url", help="the site's address, e.g. http://127.0.0.1:8000/")
        parser.add_argument("--once", action="store_true", help="print the banner and stop (no summaries)")
        parser.add_argument("--workers-seconds", type=float, default=120.0,
                            help="how long to wait for the workers to answer before the banner anyway")

    def wait_for_workers(self, deadline: float) -> None:
        """The banner goes after the workers' own start-up lines, so it is the terminal's last word."""
        while not {"worker", "maintenance"} <= workers_answering() and time.monotonic() < deadline:
            time.sleep(0.5)

    def handle(self, *args, url: str, once: bool, workers_seconds: float, **options):
        url = url.rstrip("/") + "/"
        deadline = time.monotonic() + WAIT_SECONDS
        while not answers(url + "healthz"):
            if time.monotonic() > deadline:
                self.stderr.write(f"kozyr: the web server did not answer at {url} within {WAIT_SECONDS} s; "
                                  f"see the lines above")
                return
            time.sleep(0.5)
        self.wait_for_workers(time.monotonic() + workers_seconds)
        password_file = settings.VAR_DIR / "admin_password"
        password = password_file.read_text().strip() if password_file.exists() else "(as you set it)"
        rule = "=" * 72
        self.stdout.write("\n".join([
            rule,
            f"  Kozyr is running at  {url}",
            f"  admin log-in:        user 'admin', password '{password}'",
            f"                       (kept in {password_file})",
            "  Ctrl-C stops everything; the processes' own logs are under "
            f"{settings.VAR_DIR / 'log'}",
            rule]))
        self.stdout.flush()
        while not once:
            since = timezone.now()
            time.sleep(SUMMARY_EVERY_SECONDS)
            try:
                self.stdout.write(minute_summary(since))
            except Exception as err:  # the database is busy or restarting: say so, try again next minute
                self.stdout.write(f"kozyr: no summary this minute ({type(err).__name__}: {err})")
            self.stdout.flush()
