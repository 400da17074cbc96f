"""Step 2 of 3 (see matches 0002): the version no longer names its validation match; the match names it."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("bots", "0002_initial"),
        ("matches", "0002_match_validates"),
    ]

    operations = [
        migrations.RemoveField(model_name="botversion", name="validation_match"),
    ]
