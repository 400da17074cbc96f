"""Matches with a seat that waits on a person or a remote connection are marked, so they go to the ``open`` queue
(matches.models.Match.queue). Existing rows are marked from their seats, so one still queued at the upgrade is
published again (republish_lost, a retry) to the queue that plays it now."""

from django.db import migrations, models

OPEN_RUNTIMES = ["remote", "person"]  # bots.models.REMOTE_RUNTIME, PERSON_RUNTIME at the time of this migration


def mark_open_seats(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Seat = apps.get_model("matches", "Seat")
    Match.objects.filter(pk__in=Seat.objects.filter(version__runtime__in=OPEN_RUNTIMES).values("match_id")).update(
        open_seats=True)


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0005_seat_costs"),
        ("bots", "0008_botversion_build_size"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="open_seats",
            field=models.BooleanField(
                default=False, help_text="a seat waits on a person or a remote connection: played on the open queue"),
        ),
        migrations.RunPython(mark_open_seats, migrations.RunPython.noop),
    ]
