"""matches 0002–0003 and bots 0003 turn the version → validation match link around without losing one."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("matches", "0001_initial"), ("bots", "0002_initial")]
AFTER = [("matches", "0003_match_validates_reverse"), ("bots", "0003_remove_botversion_validation_match")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def back_to_the_latest_schema():
    """The database is shared with the rest of the session: it ends at every app's last migration again
    (stopping at AFTER left later migrations' columns missing for every test that came next)."""
    yield
    executor = MigrationExecutor(connection)
    migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("back_to_the_latest_schema")
def test_every_versions_validation_match_points_back_at_it_after_the_migration_and_before_it_again():
    apps = migrate(BEFORE)
    User, Bot = apps.get_model("accounts", "User"), apps.get_model("bots", "Bot")
    BotVersion, Match = apps.get_model("bots", "BotVersion"), apps.get_model("matches", "Match")
    owner = User.objects.create(username="migrating")
    bot = Bot.objects.create(owner=owner, game="bura", name="migrating-bot")
    validated = {}
    for number in (1, 2, 3):
        match = Match.objects.create(kind="validation", preset="bura", game="bura", base_seed=number)
        version = BotVersion.objects.create(bot=bot, number=number, runtime="python", validation_match=match)
        validated[version.pk] = match.pk
    house = BotVersion.objects.create(bot=bot, number=4, runtime="builtin")  # no validation match
    unrelated = Match.objects.create(kind="ladder", preset="bura", game="bura", base_seed=9).pk

    apps = migrate(AFTER)
    Match, BotVersion = apps.get_model("matches", "Match"), apps.get_model("bots", "BotVersion")
    assert dict(Match.objects.filter(validates__isnull=False).values_list("validates_id", "pk")) == validated
    assert Match.objects.get(pk=unrelated).validates_id is None
    assert not Match.objects.filter(validates_id=house.pk).exists()
    assert {v.pk for v in BotVersion.objects.filter(validation_match__kind="validation")} == set(validated)

    apps = migrate(BEFORE)  # and back: the version names its match again
    BotVersion = apps.get_model("bots", "BotVersion")
    assert dict(BotVersion.objects.filter(validation_match__isnull=False)
                .values_list("pk", "validation_match_id")) == validated
    migrate(AFTER)
