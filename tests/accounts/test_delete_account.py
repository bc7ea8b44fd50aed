"""Deleting an account: the password confirms it, the games and the boards' rows go, the session ends,
and races run with other players keep their standings under a stand-in nickname."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import pgettext

from accounts.models import Player
from games.models import Game, GameEvent
from games.races import broadcast as race_broadcast
from games.races import services as races
from games.races.models import Racer, Room
from games.races.selectors import room_view
from games.services import game_finish, game_move, game_start
from leaderboards.models import DailyEntry, DailyRecord, DailyScoreCount
from leaderboards.services import score_counts_recount
from tests.api_client import post, start
from tests.leaderboards.conftest import day, finish_daily  # noqa: F401  (fixtures)

from .conftest import PASSWORD, player_of, post_for_status, signed_up
from .test_throttles import allowed

pytestmark = pytest.mark.django_db

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


def delete_account(browser: Client, password: str = PASSWORD) -> tuple[int, Any]:
    response = browser.post("/api/accounts/delete", data={"password": password}, content_type="application/json")
    return response.status_code, response.json() if response.content else None


def me_status(browser: Client) -> int:
    return browser.get("/api/me").status_code


@pytest.fixture
def ada(account: Client) -> Player:
    """The account "Ada" (the `account` browser is logged in to it)."""
    return player_of(account)


@pytest.fixture
def friend(db: None) -> Player:
    return Player.objects.create(nickname="Friend")


def after_start(seconds: float, *, opened: datetime.datetime = NOON) -> datetime.datetime:
    return opened + datetime.timedelta(seconds=3 + races.COUNTDOWN_SECONDS + seconds)


def race(host: Player, *others: Player, deal_code: str, opened: datetime.datetime = NOON) -> Room:
    """A race of `host` and `others` on a deal code, opened at `opened`, past its start signal."""
    room = races.room_create(host=host, deal_code=deal_code, now=opened)
    for other in others:
        races.race_join(code=room.code, player=other, now=opened)
        races.race_ready(code=room.code, player=other, ready=True, now=opened)
    races.race_start(code=room.code, player=host, now=opened + datetime.timedelta(seconds=3))
    races.race_advance(code=room.code, now=after_start(0, opened=opened))
    return room


def race_finish(room: Room, player: Player, moves: list[Any], seconds: float) -> Game:
    game = Game.objects.get(race_code=room.code, player=player)
    return game_finish(game_id=game.pk, player=player, moves=moves, now=after_start(seconds))


def standings(room: Room) -> list[tuple[int, str, int, int]]:
    view = room_view(room=Room.objects.get(pk=room.pk), now=after_start(700))
    return [(entry["place"], entry["nickname"], entry["score"], entry["game"]) for entry in view["standings"]]


def test_deleting_the_account_takes_its_games_and_login_and_ends_the_session(account, ada):
    game = start(account, mode="new")
    user_id = ada.user_id
    assert post_for_status(account, "/api/accounts/delete", {"password": PASSWORD}) == 204
    assert me_status(account) == 404
    assert not Player.objects.filter(pk=ada.pk).exists() and not get_user_model().objects.filter(pk=user_id).exists()
    assert not Game.objects.filter(pk=game["id"]).exists() and not GameEvent.objects.filter(game_id=game["id"]).exists()
    assert post(Client(), "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})[1]["code"] == (
        "wrong_credentials"
    )


def test_the_nickname_is_free_again_and_nothing_stands_in_for_an_account_without_races(account, ada):
    players = Player.objects.count()
    delete_account(account)
    assert Player.objects.count() == players - 1
    assert me_status(signed_up("ada")) == 200


def test_another_device_logged_in_to_the_deleted_account_is_a_visitor_afterwards(account):
    elsewhere = Client()
    post(elsewhere, "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})
    delete_account(account)
    assert me_status(elsewhere) == 404
    assert post(elsewhere, "/api/games", {"mode": "new"})[0] == 201  # as a new guest, not as Ada


def test_a_wrong_password_deletes_nothing(account, ada):
    game = start(account, mode="new")
    status, error = delete_account(account, "guess")
    assert (status, error["code"]) == (400, "wrong_password")
    assert me_status(account) == 200 and Game.objects.filter(pk=game["id"], player=ada).exists()


def test_a_guest_is_told_it_has_no_account_to_delete(client, player):
    start(client, mode="new")
    status, error = delete_account(client, "")
    assert (status, error) == (
        403,
        {"error": "a guest has no account to delete: sign up first", "code": "not_signed_in"},
    )
    assert Game.objects.filter(player=player).count() == 1 and me_status(client) == 200


def test_a_visitor_who_has_not_signed_in_is_told_to_log_in_first(db):
    assert delete_account(Client()) == (403, {"error": "log in first", "code": "not_signed_in"})


def test_deleting_without_the_csrf_token_is_refused(account, ada):
    careful = Client(enforce_csrf_checks=True)
    careful.cookies = account.cookies
    status, error = delete_account(careful)
    assert status == 403 and "CSRF" in error["error"]
    assert Player.objects.filter(pk=ada.pk).exists()


def test_password_guesses_are_slowed_down_as_logins_are(account, ada):
    cache.clear()  # the sign-up's own attempt
    answers = [delete_account(account, f"guess {index}")[0] for index in range(allowed("accounts_pair") + 1)]
    assert set(answers[:-1]) == {400} and answers[-1] == 429
    assert delete_account(account)[0] == 429 and Player.objects.filter(pk=ada.pk).exists()


# --- the daily boards -------------------------------------------------------------------------------


def board(date: datetime.date) -> tuple[int, list[tuple[int, str]]]:
    answer = Client().get(f"/api/leaderboards/daily/{date.isoformat()}").json()
    return answer["count"], [(entry["rank"], entry["player"]) for entry in answer["entries"]]


def score_counts(date: datetime.date) -> list[tuple[int, int]]:
    rows = DailyScoreCount.objects.filter(date=date, players__gt=0).order_by("score")
    return list(rows.values_list("score", "players"))


def test_the_deleted_players_rows_leave_the_days_boards_and_the_others_move_up(account, ada, finish_daily, day):  # noqa: F811
    before_day = day - datetime.timedelta(days=1)
    finish_daily("Best", won=True, seconds=100)
    finish_daily(player=ada, moves=5)
    worst = finish_daily("Worst", moves=2)
    finish_daily(player=ada, moves=4, on=before_day)
    other = finish_daily("Other", moves=1, on=before_day)
    assert board(day) == (3, [(1, "Best"), (2, "Ada"), (3, "Worst")])
    assert board(before_day) == (2, [(1, "Ada"), (2, "Other")])

    assert delete_account(account) == (204, None)

    assert board(day) == (2, [(1, "Best"), (2, "Worst")])
    assert board(before_day) == (1, [(1, "Other")])
    summary = Client().get(f"/api/leaderboards/daily/{day.isoformat()}/summary").json()
    assert summary["players"] == 2
    result = Client().get(f"/api/games/{worst.pk}").json()["result"]
    assert (result["rank"], result["of"]) == (2, 2)
    for date in (day, before_day):  # the counts the boards read agree with a count of their rows
        counted = score_counts(date)
        score_counts_recount(date=date)
        assert counted == score_counts(date)
    assert not DailyEntry.objects.filter(player_id=ada.pk).exists()
    assert sorted(DailyRecord.objects.values_list("player__nickname", "days")) == [
        ("Best", 1),
        ("Other", 1),
        ("Worst", 1),
    ]
    assert DailyEntry.objects.get(game=other).on_board


# --- races ------------------------------------------------------------------------------------------


def test_a_race_run_with_another_racer_keeps_their_standing_under_a_stand_in(account, ada, friend, winning_game):
    room = race(ada, friend, deal_code=winning_game["deal_code"])
    ada_game = race_finish(room, ada, winning_game["moves"], 90)
    friend_game = race_finish(room, friend, winning_game["moves"][:47], 50)
    before = standings(room)
    practice = start(account, mode="new")

    delete_account(account)

    after = standings(room)
    (_, stand_in, *_), _ = after
    assert stand_in.startswith("Deleted-") and after == [(1, stand_in, *before[0][2:]), before[1]]
    assert Racer.objects.get(player=friend).place == 2
    for game in (friend_game, ada_game):  # both replays of the race
        assert Client().get(f"/api/games/{game.pk}").json()["result"]["score"] == game.score
    assert Game.objects.get(pk=ada_game.pk).player.nickname == stand_in
    assert not Game.objects.filter(pk=practice["id"]).exists()
    stand_in_player = Player.objects.get(nickname=stand_in)
    assert stand_in_player.user is None and not stand_in_player.watchable


def test_a_race_under_way_ends_the_deleted_racers_game_and_goes_on_for_the_others(account, ada, friend, winning_game):
    opened = timezone.now() - datetime.timedelta(seconds=30)  # the race is on as the account goes
    room = race(ada, friend, deal_code=winning_game["deal_code"], opened=opened)
    game = Game.objects.get(race_code=room.code, player=ada)
    game_move(game_id=game.pk, player=ada, move=winning_game["moves"][0], now=after_start(5, opened=opened))

    delete_account(account)

    room.refresh_from_db()
    seat = Racer.objects.get(room=room, game=game)
    game.refresh_from_db()
    assert room.state == Room.State.RACING and room.host_id == friend.pk
    assert seat.left_at is not None and game.status == Game.Status.FINISHED and game.piles == 51
    assert seat.player_id == game.player_id != ada.pk


def test_a_lobby_the_deleted_player_hosted_passes_to_the_next_racer_and_its_sockets_hear_it(
    account, ada, friend, monkeypatch, django_capture_on_commit_callbacks
):
    announced: list[tuple[str, str]] = []
    monkeypatch.setattr(race_broadcast, "publish", lambda message: announced.append((message.group, message.kind)))
    room = races.room_create(host=ada, now=NOON)
    races.race_join(code=room.code, player=friend, now=NOON)
    players = Player.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        delete_account(account)
        assert announced == []  # nothing is announced before the commit
    assert set(announced) == {(f"race.{room.code}", "room")}  # the room as it stands after the commit
    room.refresh_from_db()
    assert room.host_id == friend.pk and list(Racer.objects.filter(room=room).values_list("player", flat=True)) == [
        friend.pk
    ]
    assert Player.objects.count() == players - 1  # nothing of Ada's was left to stand in for


def test_a_ghost_of_the_deleted_players_game_stays_in_the_race_another_player_ran(account, ada, friend, winning_game):
    ghost, _ = game_start(player=ada, mode="code", code=winning_game["deal_code"], now=NOON)
    ghost = game_finish(
        game_id=ghost.pk, player=ada, moves=winning_game["moves"], now=NOON + datetime.timedelta(seconds=80)
    )
    room = races.room_create(host=friend, ghost_game_id=ghost.pk, now=NOON + datetime.timedelta(minutes=5))
    races.race_start(code=room.code, player=friend, now=NOON + datetime.timedelta(minutes=5, seconds=3))
    start_at = NOON + datetime.timedelta(minutes=5, seconds=3 + races.COUNTDOWN_SECONDS)
    races.race_advance(code=room.code, now=start_at)
    friend_game = Game.objects.get(race_code=room.code, player=friend)
    game_finish(game_id=friend_game.pk, player=friend, moves=[], now=start_at + datetime.timedelta(seconds=30))
    before = room_view(room=Room.objects.get(pk=room.pk), now=start_at)["standings"]

    delete_account(account)

    after = room_view(room=Room.objects.get(pk=room.pk), now=start_at)["standings"]
    ghost_entry, friend_entry = after
    assert ghost_entry["nickname"].startswith("Deleted-") and ghost_entry["game"] == ghost.pk
    assert {**ghost_entry, "player": 0, "nickname": ""} == {**before[0], "player": 0, "nickname": ""}
    assert friend_entry == before[1] and friend_entry["nickname"] == "Friend"


def test_a_race_nobody_else_ran_goes_with_the_account(account, ada, winning_game):
    room = race(ada, deal_code=winning_game["deal_code"])
    race_finish(room, ada, [], 20)
    players = Player.objects.count()
    delete_account(account)
    assert not Room.objects.filter(pk=room.pk).exists() and Player.objects.count() == players - 1


def test_the_stand_in_is_named_in_the_language_of_the_request_as_a_guest_is(account, ada, friend, winning_game):
    room = race(ada, friend, deal_code=winning_game["deal_code"])
    race_finish(room, ada, [], 20)
    race_finish(room, friend, [], 30)
    account.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    delete_account(account)
    word, _, number = standings(room)[0][1].rpartition("-")
    with translation.override("fa"):
        assert word == pgettext("the start of the nickname that stands in for a deleted player", "Deleted")
    assert word != "Deleted" and number and all("\u06f0" <= digit <= "\u06f9" for digit in number)


def test_the_account_page_offers_deleting_to_an_account_only(account):
    html = account.get("/account").content.decode()
    assert 'data-form="delete"' in html and 'autocomplete="current-password" aria-describedby="delete-help"' in html
    guest = Client()
    start(guest, mode="new")
    assert 'data-form="delete"' not in guest.get("/account").content.decode()
