import accounts.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0002_nickname_rule"),
    ]

    operations = [
        migrations.AlterField(
            model_name="player",
            name="nickname",
            field=models.CharField(max_length=20, validators=[accounts.models.validate_nickname]),
        ),
        migrations.AlterField(
            model_name="player",
            name="nickname_key",
            field=models.CharField(
                editable=False,
                help_text="The nickname as compared (accounts.nicknames.nickname_key): unique, so no two players share one.",
                max_length=80,
                unique=True,
            ),
        ),
    ]
