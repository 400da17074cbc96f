"""The platform image's roles wait for what they need before starting, whatever starts them: `migrate`
for the database to answer, the others for every migration to be applied. Compose's `depends_on`
conditions do the same where the engine supports them (podman-compose ignores health conditions before
podman 4.6), so a role never runs against a database that is not there or not yet migrated."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections
from django.db.migrations.executor import MigrationExecutor

EVERY_SECONDS = 2.0


def database_problem() -> str | None:
    try:
        connection = connections[DEFAULT_DB_ALIAS]
        connection.ensure_connection()
        return None
    except OperationalError as err:
        connections[DEFAULT_DB_ALIAS].close()
        return f"the database does not answer ({str(err).strip().splitlines()[0] if str(err).strip() else err})"


def unapplied_migrations() -> list[str]:
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


class Command(BaseCommand):
    help = "Wait until the database answers (--database) or every migration is applied (--migrated)."

    def add_arguments(self, parser):
        parser.add_argument("--migrated", action="store_true", help="also wait for every migration to be applied")
        parser.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")

    def handle(self, *args, migrated: bool, timeout: float, **options):
        deadline = time.monotonic() + timeout
        said = ""
        while True:
            problem = database_problem()
            if problem is None and migrated:
                try:
                    missing = unapplied_migrations()
                except OperationalError as err:
                    missing, problem = [], f"the database does not answer ({err})"
                if missing:
                    problem = f"{len(missing)} migrations not applied yet (the migrate service applies them)"
            if problem is None:
                return
            if problem != said:
                self.stderr.write(f"kozyr: waiting: {problem}")
                said = problem
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout:g} s: {problem}")
            time.sleep(EVERY_SECONDS)
