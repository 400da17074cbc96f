"""The field's help says what it counts in the site's words: a deal is one hand, so a pairing plays duplicate
sets (the same cards once in every seat rotation), not "deals". Only the help text changes: the column and the
API's field name stay `deals`."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_remote_bots'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tournament',
            name='deals',
            field=models.PositiveSmallIntegerField(default=1, help_text='duplicate sets per pairing'),
        ),
    ]
