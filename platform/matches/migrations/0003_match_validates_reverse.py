"""Step 3 of 3 (see 0002): with the version's old field gone, Match.validates gets its reverse names
(version.validation_matches; BotVersion.objects.filter(validation_match=…)). No change to the table."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("bots", "0003_remove_botversion_validation_match"),
        ("matches", "0002_match_validates"),
    ]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="validates",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                    related_name="validation_matches", related_query_name="validation_match",
                                    to="bots.botversion", help_text="the version this validation match validates"),
        ),
    ]
