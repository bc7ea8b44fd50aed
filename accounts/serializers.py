"""The JSON shapes of the players API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

import datetime
from typing import Any

from django.urls import reverse
from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer, StrictCharField
from games.models import Game

from .models import Player
from .selectors import PlayerProfile

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


class StatsSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Finished games, ranked or not.")
    wins = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / games, from 0 to 1; null with no games.")
    best_score = serializers.IntegerField(allow_null=True)
    fastest_win = serializers.IntegerField(allow_null=True, help_text="Seconds.")
    average_win_seconds = serializers.FloatField(allow_null=True)
    average_piles = serializers.FloatField(allow_null=True, help_text="Piles left at the end, on average.")
    current_streak = serializers.IntegerField(help_text="Consecutive UTC dates with a ranked daily game finished.")
    longest_streak = serializers.IntegerField()


class ProfileGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The game's page: its replay.")
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    daily_date = serializers.DateField(allow_null=True)
    deal_code = serializers.CharField(allow_null=True)
    ranked = serializers.BooleanField()
    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    won = serializers.BooleanField()
    seconds = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class ScorePointSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    at = serializers.DateTimeField()
    score = serializers.IntegerField()
    won = serializers.BooleanField()


class DailyResultSerializer(serializers.Serializer):
    date = serializers.DateField()
    won = serializers.BooleanField()
    piles = serializers.IntegerField()
    score = serializers.IntegerField()
    game = serializers.IntegerField()


class CalendarSerializer(serializers.Serializer):
    first_day = serializers.DateField()
    last_day = serializers.DateField(help_text="Today (UTC).")
    days = DailyResultSerializer(many=True, help_text="Dates with a finished ranked daily game, oldest first.")


class ProfileSerializer(serializers.Serializer):
    nickname = serializers.CharField()
    account = serializers.BooleanField()
    since = serializers.DateTimeField(help_text="When the player first played.")
    stats = StatsSerializer()
    recent = ProfileGameSerializer(many=True, help_text="The newest finished games, newest first.")
    scores = ScorePointSerializer(many=True, help_text="Score over time: the last 100 finished games, oldest first.")
    calendar = CalendarSerializer()


def _profile_game(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "url": reverse("game", args=[game.pk]),
        "mode": game.mode,
        "daily_date": game.deal.daily_date,
        "deal_code": game.deal.shared_code,
        "ranked": game.ranked,
        "score": game.score,
        "piles": game.piles,
        "won": game.won,
        "seconds": game.seconds,
        "finished_at": game.finished_at,
    }


def profile_payload(profile: PlayerProfile, *, today: datetime.date) -> dict[str, Any]:
    player = profile.player
    return ProfileSerializer(
        {
            "nickname": player.nickname,
            "account": player.is_account,
            "since": player.created_at,
            "stats": profile.stats,
            "recent": [_profile_game(game) for game in profile.recent],
            "scores": [
                {"game": game.pk, "at": game.finished_at, "score": game.score, "won": game.won}
                for game in profile.scores
            ],
            "calendar": {"first_day": profile.calendar_from, "last_day": today, "days": profile.calendar},
        }
    ).data
