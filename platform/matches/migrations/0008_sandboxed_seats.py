"""Matches with a seat that computes in a sandbox (an uploaded bot) are marked, so they go to the ``sandboxed``
queue (matches.models.Match.queue), played in threads: the worker waits on the bot's pipe, and the bot's own
process computes. Only rows still to be played are marked from their seats: the mark decides a queue, and an
ended match has none. One still queued at the upgrade is published again (republish_lost) to that queue."""

from django.db import migrations, models

OPEN_RUNTIMES = ["remote", "person"]  # bots.models.REMOTE_RUNTIME, PERSON_RUNTIME at the time of this migration


def mark_sandboxed_seats(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Seat = apps.get_model("matches", "Seat")
    sandboxed = Seat.objects.filter(version__builtin="").exclude(version__runtime__in=OPEN_RUNTIMES)
    Match.objects.filter(status__in=["queued", "running"], pk__in=sandboxed.values("match_id")).update(
        sandboxed_seats=True)


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0007_prune_lookup_indexes"),
        ("bots", "0008_botversion_build_size"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="sandboxed_seats",
            field=models.BooleanField(
                default=False, help_text="a seat computes in a sandbox: played in threads on the sandboxed queue"),
        ),
        migrations.RunPython(mark_sandboxed_seats, migrations.RunPython.noop),
    ]
