"""The arenas' pages (frontend/arenas.py), the profile's arenas, and TV featuring an arena's leader."""

from __future__ import annotations

import datetime
import json

import pytest
from django.test import Client
from django.utils import timezone

from accordion_site.languages import persian_digits
from accounts.models import Player
from arenas import services
from arenas.leaders import live_leader_games
from arenas.models import Arena
from games import services as game_services
from games.models import Game

from .conftest import current_game, first_games, lose, win

pytestmark = pytest.mark.django_db


def test_the_arenas_page_and_the_header_link_to_it() -> None:
    answer = Client().get("/arenas")

    assert answer.status_code == 200
    assert b'data-testid="arena-form"' in answer.content
    assert b'data-testid="nav-arenas"' in answer.content


def test_an_arenas_page_names_its_socket(live_arena: Arena) -> None:
    answer = Client().get(f"/arenas/{live_arena.code}")

    assert answer.status_code == 200
    assert f'data-ws-path="/ws/arenas/{live_arena.code}/"'.encode() in answer.content


def test_a_code_typed_in_lower_case_leads_to_the_arenas_own_address(live_arena: Arena) -> None:
    answer = Client().get(f"/arenas/{live_arena.code.lower()}")

    assert answer.status_code == 302 and answer["Location"] == f"/arenas/{live_arena.code}"


@pytest.mark.parametrize("path", ["/arenas/NOSUCH", "/arenas/NOSUCH/results"])
def test_an_unknown_arena_has_no_page(path: str) -> None:
    assert Client().get(path).status_code == 404


def test_the_results_link_every_game_to_its_replay_once_the_arena_is_over(
    client: Client, player: Player, live_arena: Arena
) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    first = win(current_game(live_arena, player), at=timezone.now())
    second = services.arena_next(code=live_arena.code, player=player, now=timezone.now())
    page = f"/arenas/{live_arena.code}/results"
    assert f"/games/{first.pk}/replay".encode() not in client.get(page).content  # its deal still counts

    now = timezone.now()  # the clock runs out: the arena's hour moved into the past
    Arena.objects.filter(pk=live_arena.pk).update(
        starts_at=now - datetime.timedelta(minutes=11), ends_at=now - datetime.timedelta(minutes=1)
    )
    services.arena_end(code=live_arena.code, now=now)
    content = client.get(page).content

    assert f"/games/{first.pk}/replay".encode() in content
    assert f"/games/{second.pk}/replay".encode() in content
    assert live_arena.seed.encode() in content


def test_a_profile_lists_the_players_arenas_with_their_place(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    now = timezone.now()
    for who in (player, other_player):
        services.arena_join(code=live_arena.code, player=who, now=now)
    win(current_game(live_arena, other_player), at=now)

    content = Client().get(f"/players/{player.nickname}").content.decode()

    row = content[content.index(f'data-code="{live_arena.code}"') :]
    assert f"/arenas/{live_arena.code}/results" in row
    assert '<td class="num">2</td>' in row  # second place


def test_tv_features_the_leader_of_a_live_arena_before_the_most_watched_game(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    now = timezone.now()
    for who in (player, other_player):
        services.arena_join(code=live_arena.code, player=who, now=now)
    lose(current_game(live_arena, other_player), at=now, moves=10)
    leader_game = services.arena_next(code=live_arena.code, player=other_player, now=now)

    assert live_leader_games(now=now) == [leader_game.pk]
    shown = Client().get("/api/tv").json()["game"]
    assert shown["id"] == leader_game.pk and shown["mode"] == "arena"


def test_the_sites_arenas_are_named_for_their_schedule_and_a_players_is_an_arena(live_arena: Arena) -> None:
    scheduled = services.arenas_schedule(now=timezone.now(), hours=24)
    hourly = next(arena for arena in scheduled if arena.kind == Arena.Kind.HOURLY)
    daily = next(arena for arena in scheduled if arena.kind == Arena.Kind.DAILY)

    assert f'Hourly arena <code dir="ltr">{hourly.code}</code>' in Client().get(f"/arenas/{hourly.code}").text
    assert f'Daily arena <code dir="ltr">{daily.code}</code>' in Client().get(f"/arenas/{daily.code}/results").text
    players = Client().get(f"/arenas/{live_arena.code}").text
    assert f'>Arena <code dir="ltr">{live_arena.code}</code>' in players and "Hourly arena" not in players
    persian = Client(headers={"Accept-Language": "fa"}).get(f"/arenas/{hourly.code}").text
    assert f'میدان ساعتی <code dir="ltr">{hourly.code}</code>' in persian


def test_the_results_say_which_games_review_holds_or_set_aside_and_write_the_length_in_the_readers_digits(
    client: Client, player: Player, live_arena: Arena
) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    held = win(current_game(live_arena, player), at=timezone.now())
    services.arena_next(code=live_arena.code, player=player, now=timezone.now())
    set_aside = lose(current_game(live_arena, player), at=timezone.now())
    Game.objects.filter(pk__in=[held.pk, set_aside.pk]).update(review=Game.Review.PENDING)
    game_services.games_review(
        game_ids=[set_aside.pk], decision=Game.Review.CONFIRMED, reason="a script", reviewer=None, now=timezone.now()
    )
    services.arena_games_restanded(game_ids=[held.pk])
    now = timezone.now()
    Arena.objects.filter(pk=live_arena.pk).update(
        starts_at=now - datetime.timedelta(minutes=11), ends_at=now - datetime.timedelta(minutes=1)
    )
    services.arena_end(code=live_arena.code, now=now)
    page = f"/arenas/{live_arena.code}/results"

    english = client.get(page).text
    persian = client.get(page, headers={"Accept-Language": "fa"}).text

    notes = english.split('data-testid="arena-game-held">')[1:]
    assert [note.split("<", 1)[0] for note in notes] == [
        "under review: it counts once cleared",
        "not counted after review",
    ]
    assert ", 10 minutes" in english and f"، {persian_digits('10')} دقیقه" in persian


def test_an_arena_games_own_page_is_titled_arena_in_either_language(
    client: Client, player: Player, live_arena: Arena
) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = current_game(live_arena, player)

    english = client.get(f"/games/{game.pk}").text
    persian = client.get(f"/games/{game.pk}", headers={"Accept-Language": "fa"}).text

    assert '<h1 class="mode-chip" data-testid="game-title">Arena</h1>' in english
    assert '<h1 class="mode-chip" data-testid="game-title">میدان</h1>' in persian


def home_arenas() -> list[str] | None:
    """The codes of the arenas the home page comes with, or None when it has no arenas section."""
    content = Client().get("/").text
    if 'data-testid="home-arenas"' not in content:
        return None
    data = content.split('<script id="home-arenas-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    return [arena["code"] for arena in json.loads(data)]


def test_the_home_page_lists_the_sites_arenas_live_now_else_the_next_and_never_a_players(live_arena: Arena) -> None:
    assert home_arenas() is None  # a player's arena, live: shared by its link, not on the home page

    scheduled = sorted(services.arenas_schedule(now=timezone.now(), hours=3), key=lambda arena: arena.starts_at)
    assert home_arenas() == [arena.code for arena in scheduled[:2]]

    now = timezone.now()
    Arena.objects.filter(pk=scheduled[1].pk).update(starts_at=now - datetime.timedelta(minutes=1))
    assert home_arenas() == [scheduled[1].code]


def test_the_review_queue_places_a_held_arena_game_in_its_arena_not_on_a_day(
    player: Player, other_player: Player, live_arena: Arena, staff: Client
) -> None:
    # Grace leads the arena with a counted win on deal 1; Ada's small result on deal 2, where nobody else
    # has played, is held: it would make her second in the arena.
    first_games(live_arena, other_player, player)
    win(current_game(live_arena, other_player), at=timezone.now())
    lose(current_game(live_arena, player), at=timezone.now())
    services.arena_next(code=live_arena.code, player=player, now=timezone.now())
    held = lose(current_game(live_arena, player), at=timezone.now(), moves=3)
    # A daily win held at the same risk would be first on its day's board: it is looked at first.
    rival = Player.objects.create(nickname="Rival")
    daily, _ = game_services.game_start(player=rival, mode="daily", now=timezone.now())
    assert daily.deal.solution is not None
    daily = game_services.game_finish(game_id=daily.pk, player=rival, moves=daily.deal.solution, now=timezone.now())
    Game.objects.filter(pk__in=[held.pk, daily.pk]).update(review=Game.Review.PENDING, risk=80)
    services.arena_games_restanded(game_ids=[held.pk])

    rows = staff.get("/staff/review/").text.split('data-testid="held-')[1:]

    assert [int(found.split('"', 1)[0]) for found in rows] == [daily.pk, held.pk]
    cells = [cell.split("</td>", 1)[0] for cell in rows[1].split("<td>")[1:]]
    assert cells[2:4] == [f"arena {live_arena.code}", "#2"]
