from __future__ import annotations

from django.conf import settings
from django.db import models


class Player(models.Model):
    """Someone who plays: a guest known by their session, optionally linked to a user account later."""

    nickname = models.CharField(max_length=32)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.nickname
