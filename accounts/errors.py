"""Refusals of the account services, each with a stable `code` (see docs/api.md)."""

from __future__ import annotations

from accordion_site.errors import ServiceError


class NicknameInvalid(ServiceError):
    code = "invalid_nickname"


class NicknameTaken(ServiceError):
    code = "nickname_taken"


class PasswordInvalid(ServiceError):
    """A new password Django's password validators refuse; the message lists their reasons."""

    code = "invalid_password"


class WrongCredentials(ServiceError):
    """A wrong nickname or password: the answer is the same either way, so it tells no one whether a
    nickname has an account."""

    code = "wrong_credentials"


class WrongPassword(ServiceError):
    code = "wrong_password"


class AlreadySignedUp(ServiceError):
    code = "already_signed_up"
    status = 409


class NotSignedIn(ServiceError):
    code = "not_signed_in"
    status = 403


class PlayerNotFound(ServiceError):
    code = "not_found"
    status = 404
