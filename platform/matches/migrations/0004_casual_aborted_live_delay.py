# Casual matches (a person against bots), the aborted status (a person's match whose worker died), and
# how far behind the play a match's live view runs (docs/matches.md "Live tables").

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0003_match_validates_reverse'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='live_delay_seconds',
            field=models.PositiveSmallIntegerField(blank=True, help_text="how far behind the play its live view runs; empty: the site's default", null=True),
        ),
        migrations.AlterField(
            model_name='match',
            name='kind',
            field=models.CharField(choices=[('validation', 'Validation'), ('ladder', 'Ladder'), ('challenge', 'Challenge'), ('tournament', 'Tournament'), ('casual', 'Casual')], max_length=12),
        ),
        migrations.AlterField(
            model_name='match',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('finished', 'Finished'), ('failed', 'Failed'), ('cancelled', 'Cancelled'), ('aborted', 'Aborted')], default='queued', max_length=10),
        ),
    ]
