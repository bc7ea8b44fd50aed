"""Someone else's game that will not open on its page (/games/<id>) says why in a player's words and
where to go instead: its live view when the visitor may watch it, the day's leaderboard for a hidden
daily result, or home. The API keeps refusing it as if there were no such game."""

from __future__ import annotations

import datetime

from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import services
from games.models import Game


def start(player: Player, mode: str, code: str | None = None) -> Game:
    game, _ = services.game_start(player=player, mode=mode, code=code, now=timezone.now())
    return game


def page(client: Client, game: Game) -> str:
    response = client.get(f"/games/{game.pk}", headers={"accept-language": "en"})
    assert response.status_code == 200
    return response.content.decode()


def test_a_game_in_play_offers_to_watch_it_live(other_client, player, winning_game):
    game = start(player, "code", winning_game["deal_code"])

    shown = page(other_client, game)

    assert "Ada is playing this game" in shown
    assert "but you can watch it live, move by move." in shown
    assert f'href="/watch/{game.pk}"' in shown
    assert other_client.get(f"/api/games/{game.pk}").json()["error"] == f"there is no game {game.pk} you can see"


def test_todays_daily_in_play_says_nobody_can_watch_it_till_the_day_ends_and_offers_the_board(
    other_client, other_player, player
):
    game = start(player, "daily")
    # Even for a player who has finished their own attempt: the rule is the same for everyone.
    own = start(other_player, "daily")
    services.game_finish(game_id=own.pk, player=other_player, moves=[], now=timezone.now())

    shown = page(other_client, game)

    assert "Ada is playing this game" in shown
    assert "Ada is playing it on today&#x27;s daily deal, which nobody else can watch." in shown
    assert "Replays of today&#x27;s games open when the day ends (midnight UTC)" in shown
    assert 'data-testid="unavailable-board" href="/daily"' in shown
    assert f'href="/watch/{game.pk}"' not in shown


def test_a_game_whose_player_does_not_let_others_watch_names_that(other_client, player, winning_game):
    player.watchable = False
    player.save(update_fields=["watchable"])
    game = start(player, "code", winning_game["deal_code"])

    shown = page(other_client, game)

    assert "you cannot watch it live either: Ada does not let others watch their games." in shown
    assert f'href="/watch/{game.pk}"' not in shown


def test_a_finished_daily_result_is_hidden_until_the_day_ends_and_the_board_is_offered(other_client, player):
    game = start(player, "daily")
    services.game_finish(game_id=game.pk, player=player, moves=[], now=timezone.now())

    shown = page(other_client, game)

    assert "Ada&#x27;s game is hidden until the day ends" in shown
    assert "Ada played it on today&#x27;s daily deal. Replays of today&#x27;s games open when the day ends" in shown
    assert 'data-testid="unavailable-board" href="/daily"' in shown
    assert f'href="/watch/{game.pk}"' not in shown


def test_a_game_that_opens_has_no_reason_to_give(client, other_client, player, winning_game):
    game = start(player, "code", winning_game["deal_code"])
    own = page(client, game)
    services.game_finish(game_id=game.pk, player=player, moves=[], now=timezone.now())
    finished = page(other_client, game)  # anyone may replay a finished game

    for shown in (own, finished):
        assert "Game unavailable" in shown  # only if loading fails, with the failure's own words
        assert "is playing this game" not in shown and f'href="/watch/{game.pk}"' not in shown


def test_the_game_page_is_headed_by_its_mode_and_a_daily_deals_day_in_both_calendars(client, player):
    game = start(player, "daily")
    game.deal.daily_date = datetime.date(2026, 11, 30)
    game.deal.save(update_fields=["daily_date"])

    english = page(client, game)
    persian = client.get(f"/games/{game.pk}", headers={"accept-language": "fa"}).content.decode()

    assert '<h1 class="mode-chip" data-testid="game-title">Daily deal · 30 Nov 2026</h1>' in english
    assert "دست روزانه · ۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)</h1>" in persian  # Daily deal · 9 Azar 1405 (30 Nov 2026)


def test_the_watch_page_is_headed_by_the_players_name_before_its_socket_answers(other_client, player):
    game = start(player, "daily")
    shown = other_client.get(f"/watch/{game.pk}", headers={"accept-language": "en"}).content.decode()
    assert 'Watching <bdi data-testid="watch-player">Ada</bdi></h1>' in shown
