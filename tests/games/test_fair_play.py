"""Fair play: the assessment a ranked result gets at its finish, and the per-address allowance of
ranked daily attempts, which guards those attempts and nothing else."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import connections
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import fair_play
from games.models import Game, RankedSlot
from games.races.models import Racer
from games.races.services import COUNTDOWN_SECONDS, race_advance, race_start, room_create
from games.services import deal_for_date, game_finish, game_move, game_start, game_start_race
from tests.api_client import post, start

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)

# --- the assessment at the finish (timing and history; tests/games/test_risk_assessment.py: the rest) ---


def reason_codes(game: Game) -> set[str]:
    return {reason["code"] for reason in game.risk_reasons}


@pytest.mark.django_db
def test_a_scripted_instant_win_over_rest_is_held_and_off_the_board(client):
    game = start(client, mode="daily")
    solution = Game.objects.get(pk=game["id"]).deal.solution
    status, finished = post(client, f"/api/games/{game['id']}/finish", {"moves": solution})
    assert status == 200 and finished["result"]["won"] is True
    assert finished["result"]["rank"] is None and finished["result"]["review"] == "pending"
    assert {"fast_win", "unseen_moves"} <= reason_codes(Game.objects.get(pk=game["id"]))
    assert client.get(f"/api/leaderboards/daily/{game['daily_date']}").json()["entries"] == []


@pytest.mark.django_db
def test_moves_sent_faster_than_a_hand_can_tap_are_held(player):
    game, _ = game_start(player=player, mode="daily", now=NOON)
    for index, move in enumerate(game.deal.solution[:30], start=1):
        game = game_move(
            game_id=game.pk, player=player, move=move, now=NOON + datetime.timedelta(milliseconds=40 * index)
        )
    game = game_finish(game_id=game.pk, player=player, moves=game.moves, now=NOON + datetime.timedelta(minutes=5))
    assert "fast_moves" in reason_codes(game) and game.review == "pending"


@pytest.mark.django_db
def test_practice_games_are_never_assessed(player, winning_game):
    game, _ = game_start(player=player, mode="code", code=winning_game["deal_code"], now=NOON)
    game = game_finish(game_id=game.pk, player=player, moves=winning_game["moves"], now=NOON)
    assert game.risk is None and game.risk_reasons == [] and game.review == ""


# --- per-address allowances ---------------------------------------------------------------------------


def start_from(address: str, **headers: str) -> tuple[int, dict]:
    """A fresh cookie (a new browser) starting today's daily from `address`."""
    return post(Client(REMOTE_ADDR=address, **headers), "/api/games", {"mode": "daily"})


@pytest.mark.django_db
def test_fresh_cookies_from_one_address_stop_getting_ranked_attempts_past_the_limit(settings):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 2
    games = [start_from("198.51.100.7")[1] for _ in range(3)]
    assert [game["ranked"] for game in games] == [True, True, False]
    assert games[2]["practice_reason"] == "address_limit"
    assert start_from("198.51.100.8")[1]["ranked"] is True


@pytest.mark.django_db
def test_a_hint_does_not_give_the_address_its_ranked_attempt_back(settings):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 1
    browser = Client(REMOTE_ADDR="198.51.100.7")
    first = start(browser, mode="daily")
    post(browser, f"/api/games/{first['id']}/hint", {"accept_unranked": True})
    assert start_from("198.51.100.7")[1]["ranked"] is False


@pytest.mark.django_db
def test_a_players_own_second_daily_game_is_practice_because_it_is_a_repeat(client):
    game = start(client, mode="daily")
    post(client, f"/api/games/{game['id']}/finish", {"moves": []})
    again = start(client, mode="daily")
    assert again["ranked"] is False and again["practice_reason"] == "repeat"


@pytest.mark.django_db
def test_behind_the_trusted_proxy_the_forwarded_address_is_counted(settings):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "10.0.0.2"
    assert start_from(proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")[1]["ranked"] is True
    assert start_from(proxy, HTTP_X_FORWARDED_FOR="198.51.100.8")[1]["ranked"] is True
    # A client cannot pick its address: only the entry the proxy appended counts.
    assert start_from(proxy, HTTP_X_FORWARDED_FOR="203.0.113.1, 198.51.100.7")[1]["ranked"] is False


# --- one address, many people: the allowance guards only the day's ranked attempts ----------------------

ADDRESS = "198.51.100.7"
PASSWORD = "correct horse battery"


@pytest.fixture
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def signed_up(nickname: str, *, address: str = ADDRESS) -> Client:
    browser = Client(REMOTE_ADDR=address)
    status, answer = post(browser, "/api/accounts/signup", {"nickname": nickname, "password": PASSWORD})
    assert status == 201, answer
    return browser


def established(browser: Client) -> Client:
    """The browser's account, made older than ACCOUNT_OWN_SLOT_AFTER_HOURS."""
    player = Player.objects.get(pk=browser.session["player_id"])
    joined = player.user.date_joined - datetime.timedelta(hours=25)
    type(player.user).objects.filter(pk=player.user_id).update(date_joined=joined)
    return browser


@pytest.mark.django_db
def test_fifty_fresh_visitors_from_one_address_all_play_new_games_and_race(settings):
    assert settings.RANKED_ATTEMPTS_PER_ADDRESS < 50 and settings.RACE_ROOMS_PER_MINUTE < 50
    rooms = []
    for index in range(50):
        visitor = Client(REMOTE_ADDR=ADDRESS)
        status, game = post(visitor, "/api/games", {"mode": "new"})
        assert status == 201, game
        if index % 8 == 0:
            status, room = post(visitor, "/api/races", {})
            assert status == 201, room
            rooms.append(room["code"])
        else:
            status, room = post(visitor, f"/api/races/{rooms[-1]}/join", {})
            assert status == 200, room
        assert Racer.objects.filter(room__code=rooms[-1], player_id=visitor.session["player_id"]).exists()
    assert Player.objects.count() == 50


@pytest.mark.django_db
def test_past_the_address_allowance_a_daily_game_is_practice_and_says_why(settings):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 3
    games = [start_from(ADDRESS) for _ in range(50)]
    assert all(status == 201 for status, _ in games)
    assert [game["ranked"] for _, game in games] == [True] * 3 + [False] * 47
    assert {game["practice_reason"] for _, game in games[3:]} == {"address_limit"}


@pytest.mark.django_db
def test_an_established_account_keeps_its_own_ranked_attempt_whatever_its_address(settings, fast_password_hashing):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 1
    old_account = established(signed_up("Ada"))
    new_account = signed_up("Bea")
    assert start_from(ADDRESS)[1]["ranked"] is True
    assert start_from(ADDRESS)[1]["practice_reason"] == "address_limit"
    assert start(new_account, mode="daily")["practice_reason"] == "address_limit"
    assert start(old_account, mode="daily")["ranked"] is True
    # Its own attempt took nothing from the address: what the guests used stays what it was.
    assert fair_play.address_attempts(deal_id=Game.objects.first().deal_id, key=fair_play.address_key(ADDRESS)) == 1


@pytest.mark.django_db
def test_signing_up_playing_the_daily_and_deleting_the_account_never_frees_the_address(settings, fast_password_hashing):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 3
    ranked = []
    for index in range(5):
        browser = signed_up(f"Cycle{index}")
        ranked.append(start(browser, mode="daily")["ranked"])
        response = browser.post("/api/accounts/delete", {"password": PASSWORD}, content_type="application/json")
        assert response.status_code == 204
    assert ranked == [True, True, True, False, False]
    assert not Game.objects.exists() and RankedSlot.objects.filter(player=None).count() == 3


@pytest.mark.django_db(transaction=True)
def test_simultaneous_first_starts_from_one_address_take_exactly_the_allowance(settings):
    settings.RANKED_ATTEMPTS_PER_ADDRESS = 3
    deal_for_date(date=NOON.date())
    players = [Player.objects.create(nickname=f"Pupil {index}") for index in range(8)]
    ready = threading.Barrier(len(players))
    started: list[Game] = []

    def start_daily(player: Player) -> None:
        try:
            ready.wait()
            started.append(game_start(player=player, mode="daily", now=NOON, address=ADDRESS)[0])
        finally:
            connections.close_all()

    threads = [threading.Thread(target=start_daily, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(game.ranked for game in started) == [False] * 5 + [True] * 3
    assert RankedSlot.objects.count() == 3


@pytest.mark.django_db
def test_a_flood_of_starts_from_one_player_is_refused_and_the_neighbours_play_on(settings):
    settings.GAME_START_RATE = "3/minute"
    flooder, neighbour = Client(REMOTE_ADDR=ADDRESS), Client(REMOTE_ADDR=ADDRESS)
    start(flooder, mode="new")  # makes the guest; the player's own count starts with its next start
    answers = [post(flooder, "/api/games", {"mode": "new"}) for _ in range(4)]
    assert [status for status, _ in answers] == [201, 201, 201, 429]
    assert answers[3][1]["code"] == "rate_limited"
    assert answers[3][1]["error"].startswith("too many new games: try again in ")
    assert post(neighbour, "/api/games", {"mode": "new"})[0] == 201
    assert start_from(ADDRESS)[0] == 201


@pytest.mark.django_db
def test_a_daily_start_while_racing_a_ghost_of_the_days_game_answers_with_the_daily_game(client):
    daily = start(client, mode="daily")
    post(client, f"/api/games/{daily['id']}/finish", {"moves": []})
    player = Player.objects.get(pk=client.session["player_id"])
    now = timezone.now()
    room = room_create(host=player, ghost_game_id=daily["id"], now=now)
    race_start(code=room.code, player=player, now=now)
    race_advance(code=room.code, now=now + datetime.timedelta(seconds=COUNTDOWN_SECONDS))
    racing = Game.objects.get(player=player, mode="race")
    again = start(client, mode="daily")
    assert again["id"] not in (racing.pk, daily["id"]) and again["mode"] == "daily"
    assert again["practice_reason"] == "repeat"
    assert start(client, mode="daily")["id"] == again["id"]


@pytest.mark.django_db
def test_a_race_on_the_days_deal_is_not_the_days_attempt(player):
    deal = deal_for_date(date=NOON.date())
    game_start_race(player=player, deal=deal, race_code="ABCDEF", now=NOON)
    daily, created = game_start(player=player, mode="daily", now=NOON)
    assert created and daily.mode == "daily" and daily.ranked
