# A player's newest finished games, for the profile (games.profiles.player_profile).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0003_game_events'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='game',
            index=models.Index(fields=['player', 'status', '-finished_at', '-id'], name='game_player_finished_idx'),
        ),
    ]
