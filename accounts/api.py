"""REST endpoints for players: who am I, nicknames, sign-up, login, logout, password, deleting an account."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import refusals

from . import selectors, services
from .errors import NotSignedIn
from .models import Player
from .serializers import (
    AccountDeleteInputSerializer,
    CredentialsInputSerializer,
    MeSerializer,
    NicknameInputSerializer,
    PasswordChangeInputSerializer,
    me_payload,
)
from .signals import daily_done_asked
from .throttles import AccountAddressThrottle, AccountPairThrottle, SignupAddressThrottle

ATTEMPT_THROTTLES = [*APIView.throttle_classes, AccountAddressThrottle, AccountPairThrottle]
SIGNUP_THROTTLES = [*APIView.throttle_classes, AccountAddressThrottle, SignupAddressThrottle]
NO_CONTENT = OpenApiResponse(description="Done; no body.")


def _valid(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data  # type: ignore[no-any-return]


def _signed_in_player(request: Request) -> Player:
    """The session's player for an account's request (password, deleting): `not_signed_in` for a visitor.
    A guest gets past here; the service refuses it, saying why."""
    player = selectors.player_from_session(request.session)
    if player is None:
        raise NotSignedIn(_("log in first"))
    return player


def _me(player: Player) -> dict[str, Any]:
    today = timezone.now().date()
    daily_done = any(done for _, done in daily_done_asked.send(sender=Player, player=player, today=today))
    return me_payload(player, daily_done=daily_done)


class MeApi(APIView):
    @extend_schema(
        operation_id="me_get",
        responses={200: MeSerializer, **refusals(404)},
        description="The session's player; 404 for a visitor who has not played yet.",
    )
    def get(self, request: Request) -> Response:
        return Response(_me(selectors.session_player(request.session)))

    @extend_schema(
        operation_id="me_rename",
        request=NicknameInputSerializer,
        responses={200: MeSerializer, **refusals(400, 403, 404)},
        description="Change the session player's nickname. 400 `invalid_nickname` or `nickname_taken`.",
    )
    def patch(self, request: Request) -> Response:
        data = _valid(NicknameInputSerializer, request.data)
        player = services.player_rename(player=selectors.session_player(request.session), nickname=data["nickname"])
        return Response(_me(player))


class SignupApi(APIView):
    throttle_classes = SIGNUP_THROTTLES

    @extend_schema(
        operation_id="accounts_signup",
        request=CredentialsInputSerializer,
        responses={201: MeSerializer, **refusals(400, 403, 409, 429)},
        description="Turn the session's guest into an account (its games stay) and log in to it.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(CredentialsInputSerializer, request.data)
        player = services.account_signup(request=request._request, nickname=data["nickname"], password=data["password"])
        return Response(_me(player), status=status.HTTP_201_CREATED)


class LoginApi(APIView):
    throttle_classes = ATTEMPT_THROTTLES

    @extend_schema(
        operation_id="accounts_login",
        request=CredentialsInputSerializer,
        responses={200: MeSerializer, **refusals(400, 403, 429)},
        description="Log in; the session's guest games join the account. A wrong nickname or password is "
        "400 `wrong_credentials` either way.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(CredentialsInputSerializer, request.data)
        player = services.account_login(request=request._request, nickname=data["nickname"], password=data["password"])
        return Response(_me(player))


class LogoutApi(APIView):
    @extend_schema(operation_id="accounts_logout", request=None, responses={204: NO_CONTENT, **refusals(403)})
    def post(self, request: Request) -> Response:
        services.account_logout(request=request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordApi(APIView):
    throttle_classes = ATTEMPT_THROTTLES

    @extend_schema(
        operation_id="accounts_password",
        request=PasswordChangeInputSerializer,
        responses={204: NO_CONTENT, **refusals(400, 403, 429)},
        description="Change the password; other sessions of the account are logged out.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(PasswordChangeInputSerializer, request.data)
        player = _signed_in_player(request)
        services.account_password_change(request=request._request, player=player, old=data["old"], new=data["new"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountDeleteApi(APIView):
    throttle_classes = ATTEMPT_THROTTLES

    @extend_schema(
        operation_id="accounts_delete",
        request=AccountDeleteInputSerializer,
        responses={204: NO_CONTENT, **refusals(400, 403, 429)},
        description="Delete the session's account for good, with its games and its rows on the leaderboards, and "
        "end the session. Needs the current password: 400 `wrong_password`; 403 `not_signed_in` for a guest or "
        "a visitor. Races run with other players keep their standings: the account's seats and games in them "
        "pass to a stand-in nickname such as `Deleted-4821`.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(AccountDeleteInputSerializer, request.data)
        player = _signed_in_player(request)
        services.account_delete(request=request._request, player=player, password=data["password"], now=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)
