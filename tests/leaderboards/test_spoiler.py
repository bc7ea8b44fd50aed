"""No move line of a daily deal reaches anyone but its owner before the day is over: not in replays,
nor their events, nor hints or still-winnable checks on practice games of the deal."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.api_client import post, start
from tests.leaderboards.conftest import get

pytestmark = pytest.mark.django_db


@pytest.fixture
def todays_leader(client) -> dict:
    """The `client` player's finished ranked attempt at today's deal."""
    game = start(client, mode="daily")
    post(client, f"/api/games/{game['id']}/finish", {"moves": []})
    return game


def test_the_replay_events_of_todays_games_reach_only_their_owner(client, other_client, todays_leader):
    theirs = start(other_client, mode="daily")
    post(other_client, f"/api/games/{theirs['id']}/finish", {"moves": []})
    path = f"/api/games/{todays_leader['id']}/events"
    assert get(other_client, path)[0] == 404 and get(Client(), path)[0] == 404
    status, answer = get(client, path)
    assert status == 200 and [event["kind"] for event in answer["events"]] == ["start", "finish"]


def test_once_the_day_is_over_anyone_replays_the_games_events_with_the_servers_times(finish_daily, visitor):
    game = finish_daily("ada", moves=3, seconds=90)
    status, answer = get(visitor, f"/api/games/{game.pk}/events")
    assert status == 200 and (answer["game"], answer["player"], answer["more"]) == (game.pk, "ada", False)
    kinds = [(event["v"], event["kind"], event["piles"]) for event in answer["events"]]
    assert kinds == [(1, "start", 52), (2, "move", 51), (3, "move", 50), (4, "move", 49), (5, "finish", 49)]
    at = [datetime.datetime.fromisoformat(event["at"]) for event in answer["events"]]
    assert (at[-1] - at[0]).total_seconds() == 90
    assert answer["events"][-1]["result"]["score"] == 30 and answer["events"][1]["result"] is None


def test_events_come_after_a_version_in_pages(finish_daily, visitor, monkeypatch):
    from games import api

    monkeypatch.setattr(api, "EVENTS_PAGE", 2)
    game = finish_daily("ada", moves=3)
    first = get(visitor, f"/api/games/{game.pk}/events")[1]
    assert [event["v"] for event in first["events"]] == [1, 2] and first["more"] is True
    last = get(visitor, f"/api/games/{game.pk}/events?after=4")[1]
    assert [event["v"] for event in last["events"]] == [5] and last["more"] is False


@pytest.mark.parametrize("after", ["-1", "x", "\u0663", "1" * 12, "+2"])
def test_a_bad_version_to_read_after_is_a_400(finish_daily, visitor, after):
    game = finish_daily("ada")
    status, answer = get(visitor, f"/api/games/{game.pk}/events?after={after}")
    assert status == 400 and answer["error"].startswith("after:")


def test_staff_read_todays_finished_games_to_review_them(todays_leader):
    staff = Client()
    staff.force_login(get_user_model().objects.create_user(username="referee", is_staff=True))
    assert get(staff, f"/api/games/{todays_leader['id']}/events")[0] == 200


def test_no_hints_on_a_practice_game_of_todays_deal(client, todays_leader):
    practice = start(client, mode="daily")
    status, error = post(client, f"/api/games/{practice['id']}/hint", {})
    assert status == 403 and error["code"] == "withheld"


def test_no_still_winnable_indicator_on_a_practice_game_of_todays_deal(client, todays_leader):
    practice = start(client, mode="daily")
    status, answer = get(client, f"/api/games/{practice['id']}/winnable")
    assert status == 403 and answer["code"] == "withheld"


def test_the_board_of_today_shows_no_line_and_todays_analysis_withholds_them(client, todays_leader, today):
    _, board = get(client, f"/api/leaderboards/daily/{today.isoformat()}")
    assert set(board["entries"][0]) == {"rank", "player", "score", "piles", "seconds", "won", "game", "provisional"}
    _, analysis = get(client, f"/api/games/{todays_leader['id']}/analysis")
    assert analysis["withheld"] is True and analysis["deal_line"] is None


def test_a_players_own_events_are_theirs_while_they_play(client):
    game = start(client, mode="daily")
    status, answer = get(client, f"/api/games/{game['id']}/events")
    assert status == 200 and [event["kind"] for event in answer["events"]] == ["start"]


def test_a_profile_shows_todays_result_but_neither_its_deal_nor_its_moves(other_client, todays_leader):
    status, profile = get(other_client, "/api/players/Ada")
    assert status == 200
    [entry] = profile["recent"]
    assert entry["id"] == todays_leader["id"] and entry["daily_date"] == todays_leader["daily_date"]
    assert {"deal", "moves", "deal_code"} & {name for name, value in entry.items() if value} == set()
    # The profile links the game; the game itself stays hidden until the day is over.
    assert get(other_client, f"/api/games/{entry['id']}")[0] == 404
