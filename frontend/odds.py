"""The share of deals the solver wins, which How to play shows: the figures printed by

    .venv/bin/python manage.py winnable_share --deals 10000

(games/management/commands/winnable_share.py), which gave

    deals 10,000 (shuffled_deck('odds:0' … 'odds:9999')), at most 2,000,000 positions each
    won 10,000 (100.00%), lost 0, unknown 0

The solver's budget counts positions, not seconds, so the run gives the same figures on any machine. Run
it again and copy its figures here when the solver or the deal derivation changes."""

SAMPLE_DEALS = 10_000
WON_DEALS = 10_000
