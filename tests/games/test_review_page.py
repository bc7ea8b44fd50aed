"""The staff's review pages (/staff/review/): the queue of held results, most pressing first; one
result's timeline with the solver's verdicts; clear or confirm with the reason kept. Staff only."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import Player
from games.models import Game
from games.services import game_assess, game_finish, game_start, games_review
from tests.conftest import player_client, user_client

pytestmark = pytest.mark.django_db

NOON = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)
QUEUE = "/staff/review/"


def held(nickname: str, seconds: int = 2, *, start: datetime.datetime = NOON) -> Game:
    """A ranked win posted over REST `seconds` after the start: held at its finish."""
    player = Player.objects.create(nickname=nickname)
    game, _ = game_start(player=player, mode="daily", now=start)
    solution = game.deal.solution
    assert solution is not None
    finished = game_finish(
        game_id=game.pk, player=player, moves=solution, now=start + datetime.timedelta(seconds=seconds)
    )
    assert finished.review == "pending"
    return finished


def page(game: Game) -> str:
    return f"/staff/review/{game.pk}/"


@pytest.mark.parametrize("who", ["nobody", "player", "signed-in non-staff"])
def test_anyone_but_staff_is_refused(who):
    game = held("Script")
    makers: dict[str, Callable[[], Client]] = {
        "nobody": Client,
        "player": lambda: player_client(game.player),
        "signed-in non-staff": lambda: user_client(staff=False),
    }
    client = makers[who]()
    assert client.get(QUEUE).status_code == 403
    assert client.get(page(game)).status_code == 403
    assert client.post(page(game), {"decision": "cleared", "reason": "looks fine"}).status_code == 403
    assert Game.objects.get(pk=game.pk).review == "pending"


def test_the_queue_puts_the_riskiest_result_near_the_top_first(staff):
    # Both held at a risk of 100, with a cleared result between them on the board: the one that would
    # take first place is looked at first, though it finished later.
    slower = held("Slower", seconds=20)
    middle = held("Middle", seconds=10)
    games_review(game_ids=[middle.pk], decision="cleared", reason="seen it played", reviewer=None, now=NOON)
    quicker = held("Quicker", seconds=2, start=NOON + datetime.timedelta(minutes=5))
    text = staff.get(QUEUE).content.decode()
    assert text.index(f"held-{quicker.pk}") < text.index(f"held-{slower.pk}")


def test_a_result_shows_its_reasons_and_every_event_with_the_solvers_verdict(staff):
    game = held("Script")
    Game.objects.filter(pk=game.pk).update(assessed_at=None)
    game_assess(game_id=game.pk, now=NOON + datetime.timedelta(minutes=5))

    text = staff.get(page(game)).content.decode()

    assert "51 moves arrived only in the finish" in text and "won without ever reaching a lost position" in text
    assert "finish bringing a line of 51 moves" in text and "<td>win</td>" in text


def test_confirming_keeps_the_result_off_the_board_with_the_reason_kept(staff):
    game = held("Script")

    answer = staff.post(page(game), {"decision": "confirmed", "reason": "the solver's line, sent at once"})

    assert answer.status_code == 302
    game.refresh_from_db()
    assert (game.review, game.review_reason) == ("confirmed", "the solver's line, sent at once")
    assert game.reviewed_by is not None and game.reviewed_by.get_username() == "staff"
    assert game.reviewed_at is not None
    assert Client().get(f"/api/leaderboards/daily/{NOON.date()}").json()["entries"] == []
    mine = player_client(game.player).get(f"/api/leaderboards/daily/{NOON.date()}/me").json()
    assert mine["status"] == "off_board"
    assert "confirmed" in staff.get(page(game)).content.decode()


def test_clearing_puts_the_result_on_the_board_as_final(staff):
    game = held("Quick")

    staff.post(page(game), {"decision": "cleared", "reason": "a regular who plays from memory"})

    rows = Client().get(f"/api/leaderboards/daily/{NOON.date()}").json()["entries"]
    assert [(row["game"], row["provisional"]) for row in rows] == [(game.pk, False)]
    assert f"held-{game.pk}" not in staff.get(QUEUE).content.decode()


def test_a_decision_without_a_reason_is_refused_and_changes_nothing(staff):
    game = held("Script")

    answer = staff.post(page(game), {"decision": "cleared", "reason": "  "})

    assert answer.status_code == 400 and "say why" in answer.content.decode()
    assert Game.objects.get(pk=game.pk).review == "pending"
