# A person's seat at a live table is a bot row of kind "person": bot names stay unique among bots, and a
# person has one seat per game (issue 22, docs/matches.md "Live tables").

import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0005_botversion_language_build'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='bot',
            name='bot_name_unique_ci',
        ),
        migrations.AddField(
            model_name='bot',
            name='kind',
            field=models.CharField(choices=[('bot', 'Bot'), ('person', 'Person')], default='bot', max_length=8),
        ),
        migrations.AddConstraint(
            model_name='bot',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('name'), condition=models.Q(('kind', 'bot')), name='bot_name_unique_ci'),
        ),
        migrations.AddConstraint(
            model_name='bot',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'person')), fields=('owner', 'game'), name='person_seat_unique'),
        ),
    ]
