"""The JSON shapes of the players API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer, StrictCharField

from .models import Player

# Long enough for any nickname or password a person types; the services say what is wrong with it.
_TEXT_LIMIT = 200


def _text(**kwargs: Any) -> serializers.CharField:
    return StrictCharField(max_length=_TEXT_LIMIT, allow_blank=True, trim_whitespace=False, **kwargs)


class NicknameInputSerializer(ClosedInputSerializer):
    nickname = _text(help_text="3 to 20 letters (any script), digits, _ or -.")


class CredentialsInputSerializer(ClosedInputSerializer):
    nickname = _text()
    password = _text()


class PasswordChangeInputSerializer(ClosedInputSerializer):
    old = _text(help_text="The current password.")
    new = _text(help_text="The new password; Django's password validators apply.")


class AccountDeleteInputSerializer(ClosedInputSerializer):
    password = _text(help_text="The current password: deleting the account needs it, whoever holds the session.")


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    nickname = serializers.CharField()
    account = serializers.BooleanField(help_text="Signed up (a password keeps this player on any device).")
    nickname_chosen = serializers.BooleanField(help_text="False while the nickname is the one generated for a guest.")
    daily_done = serializers.BooleanField(help_text="Today's daily attempt (UTC) is finished.")


def me_payload(player: Player, *, daily_done: bool) -> dict[str, Any]:
    return MeSerializer(
        {
            "id": player.pk,
            "nickname": player.nickname,
            "account": player.is_account,
            "nickname_chosen": player.nickname_chosen,
            "daily_done": daily_done,
        }
    ).data
