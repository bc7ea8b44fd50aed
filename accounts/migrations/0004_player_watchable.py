from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_nickname_key_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="watchable",
            field=models.BooleanField(
                default=True,
                help_text="Others may watch this player's games live (and see them in the live list).",
            ),
        ),
    ]
