# How far behind the play a tournament's matches are shown live (issue 22: a final may want a longer delay).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='live_delay_seconds',
            field=models.PositiveSmallIntegerField(blank=True, help_text="how far behind the play its matches' live views run (a final may want longer); empty: the site's default", null=True),
        ),
    ]
