from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from .nicknames import (
    NICKNAME_KEY_MAX_LENGTH,
    NICKNAME_MAX_LENGTH,
    SET_APART,
    NicknameRuleError,
    nickname_clean,
    nickname_key,
)


def validate_nickname(value: str) -> None:
    """The nickname rule for forms (the admin); services apply the same rule themselves."""
    try:
        nickname_clean(value)
    except NicknameRuleError as error:
        raise ValidationError(str(error)) from error


class Player(models.Model):
    """Someone who plays: a guest known by their session, or an account (a linked Django user) that
    keeps the same player, and so the same games, on every device."""

    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH, validators=[validate_nickname])
    nickname_key = models.CharField(
        max_length=NICKNAME_KEY_MAX_LENGTH,
        unique=True,
        editable=False,
        help_text="The nickname as compared (accounts.nicknames.nickname_key): unique, so no two players share one.",
    )
    nickname_chosen = models.BooleanField(
        default=False, help_text="False while the player still has the nickname generated for a guest."
    )
    watchable = models.BooleanField(
        default=True, help_text="Others may watch this player's games live (and see them in the live list)."
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.nickname

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The key always follows the nickname, however the row is written; a key set apart (SET_APART)
        # stays while the nickname still reads as the key it was set apart from.
        key = nickname_key(self.nickname)
        if self.nickname_key.partition(SET_APART)[0] != key:
            self.nickname_key = key
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "nickname" in update_fields:
            kwargs["update_fields"] = {*update_fields, "nickname_key"}
        super().save(*args, **kwargs)

    @property
    def is_account(self) -> bool:
        return self.user_id is not None
