from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("races", "0004_presence"),
    ]

    operations = [
        migrations.AddField(
            model_name="racer",
            name="rematch",
            field=models.BooleanField(default=False, help_text="Asked for, or agreed to, a rematch after the race."),
        ),
    ]
