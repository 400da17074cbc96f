"""A validation match points at the version it validates (until now the version pointed at its match).

Step 1 of 3: add Match.validates (no reverse accessor yet: BotVersion still has the old field of that
name) and copy every version's validation_match into it. bots 0003 then drops the old field, and
matches 0003 gives the new one its reverse names. Reversible: the copy runs back the other way.
"""

import django.db.models.deletion
from django.db import migrations, models


def checked_at_once(schema_editor):
    # PostgreSQL defers FK checks to the commit; pending checks forbid the ALTER TABLE that follows in the same
    # migration (dropping a foreign key alters the table it points at), so run them as the rows change.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def copy_forward(apps, schema_editor):
    checked_at_once(schema_editor)
    BotVersion = apps.get_model("bots", "BotVersion")
    Match = apps.get_model("matches", "Match")
    links = BotVersion.objects.filter(validation_match_id__isnull=False).values_list("pk", "validation_match_id")
    for version_id, match_id in links.iterator(chunk_size=2000):
        Match.objects.filter(pk=match_id).update(validates_id=version_id)


def copy_back(apps, schema_editor):
    checked_at_once(schema_editor)
    BotVersion = apps.get_model("bots", "BotVersion")
    Match = apps.get_model("matches", "Match")
    links = Match.objects.filter(validates_id__isnull=False).values_list("pk", "validates_id")
    for match_id, version_id in links.iterator(chunk_size=2000):
        BotVersion.objects.filter(pk=version_id).update(validation_match_id=match_id)


class Migration(migrations.Migration):

    dependencies = [
        ("bots", "0002_initial"),
        ("matches", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="validates",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                    related_name="+", to="bots.botversion",
                                    help_text="the version this validation match validates"),
        ),
        migrations.RunPython(copy_forward, copy_back, elidable=False),
    ]
