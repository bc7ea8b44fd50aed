"""The share of deals the solver wins, which How to play shows: the figures printed by

    .venv/bin/python manage.py winnable_share --deals 200

(games/management/commands/winnable_share.py: deals shuffled_deck('odds:0' … 'odds:199'), at most
2,000,000 positions each: won 200, lost 0, unknown 0). Run it again and copy its figures here when the
solver or the deal derivation changes."""

SAMPLE_DEALS = 200
WON_DEALS = 200
