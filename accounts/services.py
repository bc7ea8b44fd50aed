"""Writes about players: guests, nicknames, and the optional account that keeps a player's games."""

from __future__ import annotations

import datetime
import logging
import secrets
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model, login, logout, update_session_auth_hash
from django.contrib.auth.password_validation import validate_password
from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from accordion_site.languages import persian_digits

from .errors import (
    AlreadySignedUp,
    NicknameInvalid,
    NicknameTaken,
    NotSignedIn,
    PasswordInvalid,
    WrongCredentials,
    WrongPassword,
)
from .models import Player
from .nicknames import NicknameRuleError, nickname_clean, nickname_is_reserved
from .passwords import password_hash, password_verify
from .selectors import SESSION_PLAYER_KEY, player_by_nickname, player_from_session, player_is_referenced
from .signals import account_erasing, guest_merging
from .signouts import signout_publish

logger = logging.getLogger(__name__)

GUEST_NICKNAME_ATTEMPTS = 12
# Accounts log in with their nickname; the Django user's own username is an internal handle.
ACCOUNT_USERNAME = "player-{id}"


# The words of the nicknames the site makes ("Guest-4821", "Deleted-4821"), kept from people's choosing.
GUEST_WORD = pgettext_lazy("the start of a generated nickname", "Guest")
DELETED_WORD = pgettext_lazy("the start of the nickname that stands in for a deleted player", "Deleted")


def _reserved_words() -> list[str]:
    words = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            words += [str(GUEST_WORD), str(DELETED_WORD)]
    return words


def _numbered_nickname(word: str, attempt: int) -> str:
    """A name in the visitor's language, "Guest-4821" or «مهمان-۴۸۲۱»: a nickname is shown as it is
    stored, on every page, so it is made in the words and digits of the person it names."""
    # Short names while they are easy to find free; longer ones if the short ones keep clashing.
    digits = 4 if attempt < GUEST_NICKNAME_ATTEMPTS // 2 else 8
    number = str(secrets.randbelow(9 * 10 ** (digits - 1)) + 10 ** (digits - 1))
    if translation.get_language() == "fa":
        number = persian_digits(number)
    return f"{word}-{number}"


def _numbered_player_create(word: str, **fields: object) -> Player:
    """A new player named `word` and a free number, found by retrying on the unique nickname key."""
    for attempt in range(GUEST_NICKNAME_ATTEMPTS):
        try:
            with transaction.atomic():
                return Player.objects.create(nickname=_numbered_nickname(word, attempt), **fields)
        except IntegrityError:
            continue
    raise RuntimeError(f"no free nickname found for {word!r}")


def _nickname_valid(text: str) -> str:
    try:
        nickname = nickname_clean(text)
    except NicknameRuleError as error:
        raise NicknameInvalid(str(error)) from error
    if nickname_is_reserved(nickname, words=_reserved_words()):
        raise NicknameInvalid(
            _("nicknames such as %(nickname)r are the site's own: choose another") % {"nickname": nickname}
        )
    return nickname


def _nickname_free(nickname: str, *, player: Player | None) -> None:
    holder = player_by_nickname(nickname=nickname)
    if holder is not None and (player is None or holder.pk != player.pk):
        raise NicknameTaken(_("the nickname %(nickname)r is taken: choose another") % {"nickname": nickname})


def _save_nickname(player: Player, nickname: str) -> None:
    """Store a new nickname on the player, or NicknameTaken when another player has it."""
    _nickname_free(nickname, player=player)
    player.nickname = nickname
    try:
        with transaction.atomic():  # a savepoint, so that losing a race leaves the transaction usable
            player.save()
    except IntegrityError as error:
        raise NicknameTaken(_("the nickname %(nickname)r is taken: choose another") % {"nickname": nickname}) from error


@transaction.atomic
def guest_create() -> Player:
    """A new guest player with a generated nickname such as "Guest-4821", in the active language."""
    return _numbered_player_create(str(GUEST_WORD))


@transaction.atomic
def player_for_session(*, session: SessionBase) -> Player:
    """The session's player, creating a guest on first play."""
    player = player_from_session(session)
    if player is None:
        player = guest_create()
        session[SESSION_PLAYER_KEY] = player.pk
        session.save()
    return player


@transaction.atomic
def player_rename(*, player: Player, nickname: str) -> Player:
    """Give the player a nickname of their choosing (NicknameInvalid, or NicknameTaken by another)."""
    _save_nickname(player, _nickname_valid(nickname))
    if not player.nickname_chosen:
        player.nickname_chosen = True
        player.save(update_fields=["nickname_chosen"])
    logger.info("player %s is now %r", player.pk, player.nickname)
    return player


def _password_valid(password: str, *, nickname: str) -> None:
    # The similarity check compares the password with the username: here, the nickname people see.
    try:
        validate_password(password, user=get_user_model()(username=nickname))
    except ValidationError as error:
        raise PasswordInvalid(" ".join(error.messages)) from error


def account_signup(*, request: HttpRequest, nickname: str, password: str) -> Player:
    """Turn the session's guest (a new one for a visitor who has not played) into an account with this
    nickname and password, keeping all its games, and log the session in to it. The password is hashed
    before the transaction, with no database connection held (accounts/passwords.py)."""
    player = player_from_session(request.session)
    if player is not None and player.is_account:
        raise AlreadySignedUp(_("you are logged in to an account already: log out to make another"))
    chosen = _nickname_valid(nickname)
    _nickname_free(chosen, player=player)
    _password_valid(password, nickname=chosen)
    return _account_create(request=request, nickname=chosen, encoded=password_hash(password=password))


@transaction.atomic
def _account_create(*, request: HttpRequest, nickname: str, encoded: str) -> Player:
    player = player_from_session(request.session)
    if player is not None and player.is_account:
        raise AlreadySignedUp(_("you are logged in to an account already: log out to make another"))
    if player is None:
        player = guest_create()
    _save_nickname(player, nickname)
    user = get_user_model()(username=ACCOUNT_USERNAME.format(id=player.pk), password=encoded)
    user.save()
    player.user = user
    player.nickname_chosen = True
    player.save(update_fields=["user", "nickname_chosen"])
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_PLAYER_KEY] = player.pk
    logger.info("player %s signed up as %r", player.pk, player.nickname)
    return player


def account_login(*, request: HttpRequest, nickname: str, password: str) -> Player:
    """Log the session in to the account with this nickname. The guest the session played as until now
    hands its games over to the account (`guest_merging`: games/transfers.py decides between two attempts at
    one daily deal).

    The stored hash is read, the connection handed back, the password checked on the hashing threads
    (accounts/passwords.py), and only then is a connection taken again to write."""
    account = player_by_nickname(nickname=nickname)
    user = account.user if account is not None else None
    encoded = user.password if user is not None and user.is_active else None
    # An unknown nickname still costs one password hash, so the answer's timing does not tell which
    # nicknames have an account either.
    correct, must_update = password_verify(password=password, encoded=encoded)
    if account is None or encoded is None or not correct:
        raise WrongCredentials(_("wrong nickname or password"))
    rehashed = password_hash(password=password) if must_update else None
    return _account_log_in(request=request, account=account, checked=encoded, rehashed=rehashed)


@transaction.atomic
def _account_log_in(*, request: HttpRequest, account: Player, checked: str, rehashed: str | None) -> Player:
    """Log in to `account`, whose password hash was `checked` against the password given."""
    user = get_user_model().objects.select_for_update().filter(player=account).first()
    if user is None or user.password != checked or not user.is_active:
        # Changed (or the account deleted) while the password was being checked: check again.
        raise WrongCredentials(_("wrong nickname or password"))
    if rehashed is not None:  # hashed with an older work factor: store today's
        user.password = rehashed
        user.save(update_fields=["password"])
    guest = player_from_session(request.session)
    if guest is not None and not guest.is_account and guest.pk != account.pk:
        moved = sum(cast(int, count) for _, count in guest_merging.send(sender=Player, guest=guest, account=account))
        # Rows the transfer does not move (say, seats in past races) keep naming the guest, so it stays.
        if not player_is_referenced(player=guest):
            guest.delete()
        logger.info("guest %s merged into player %s (%s games)", guest.pk, account.pk, moved)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_PLAYER_KEY] = account.pk
    logger.info("player %s logged in", account.pk)
    return account


def _password_checked(*, user: Any, password: str) -> str:
    """The user's stored hash, once `password` is found to match it (else WrongPassword)."""
    encoded: str = user.password
    if not password_verify(password=password, encoded=encoded)[0]:
        raise WrongPassword(_("the current password is wrong"))
    return encoded


def _lock_unchanged(*, user: Any, checked: str) -> Any:
    """The user's row, locked, if its password hash is still the one `checked`; else WrongPassword."""
    locked = get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    if locked is None or locked.password != checked:
        raise WrongPassword(_("the current password is wrong"))
    return locked


def account_delete(*, request: HttpRequest, player: Player, password: str, now: datetime.datetime) -> None:
    """Delete an account for good, confirmed by its password, and end this session (every other session
    of the account finds no player any more). Its games go with their events, its ranked attempts leave
    the daily boards (their counts, ranks and records recounted) and its all-time record goes. What other
    players' races still show — the seats of races run with others and the games those seats show — is
    handed to a stand-in, "Deleted-4821", that no session or login can ever be, so their standings and
    replays stay (`account_erasing`: games/transfers.py). A guest has no account to delete: refused."""
    user = player.user
    if user is None:
        raise NotSignedIn(_("a guest has no account to delete: sign up first"))
    _account_erase(request=request, player=player, checked=_password_checked(user=user, password=password), now=now)


@transaction.atomic
def _account_erase(*, request: HttpRequest, player: Player, checked: str, now: datetime.datetime) -> None:
    user = _lock_unchanged(user=player.user, checked=checked)
    stand_in = _numbered_player_create(str(DELETED_WORD), watchable=False)
    erasing = account_erasing.send(sender=Player, player=player, stand_in=stand_in, now=now)
    erased = sum(cast(int, count) for _, count in erasing)
    if not player_is_referenced(player=stand_in):
        stand_in.delete()
    player_id = player.pk
    player.delete()
    user.delete()
    logout(request)
    signout_publish(player_id=player_id)
    logger.info("player %s deleted their account (%s games deleted)", player_id, erased)


def account_logout(*, request: HttpRequest) -> None:
    """End the session: its player, guest or account, is no longer this browser's, and the account's
    sockets opened with it close."""
    player = player_from_session(request.session)
    logout(request)
    if player is not None and player.is_account:
        signout_publish(player_id=player.pk)


def account_password_change(*, request: HttpRequest, player: Player, old: str, new: str) -> None:
    """Change an account's password; this session stays logged in, every other one is logged out."""
    user = player.user
    if user is None:
        raise NotSignedIn(_("a guest has no password: sign up first"))
    checked = _password_checked(user=user, password=old)
    _password_valid(new, nickname=player.nickname)
    _password_store(request=request, player=player, checked=checked, encoded=password_hash(password=new))


@transaction.atomic
def _password_store(*, request: HttpRequest, player: Player, checked: str, encoded: str) -> None:
    user = _lock_unchanged(user=player.user, checked=checked)
    user.password = encoded
    user.save(update_fields=["password"])
    kept = request.session.session_key
    update_session_auth_hash(request, user)
    signout_publish(player_id=player.pk, kept_session=kept)
    logger.info("player %s changed their password", player.pk)
