"""What accounts asks of the apps built on it (games), as signals, so that accounts never imports them."""

from django.dispatch import Signal

# Sent by the answers that describe the session's player (`me`, sign-up, login) with `player` and `today`;
# a receiver answers whether the player's attempt at today's daily deal is finished (games/receivers.py).
daily_done_asked = Signal()

# Sent inside the login's transaction when the session's guest joins the account it logs in to, with
# `guest` and `account`; a receiver hands the guest's games over and answers how many moved.
guest_merging = Signal()

# Sent inside an account's deletion, before the player is deleted, with `player`, `stand_in` (a player
# no session or login can ever be) and `now`; a receiver erases the player's games, handing to `stand_in`
# what other players still need, and answers how many were deleted.
account_erasing = Signal()
