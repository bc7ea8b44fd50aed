"""The rules of Accordion as pure Python: no Django, no I/O. Everything else calls this package."""

from .cards import DECK, RANKS, SUITS, cards_match, validate_deal
from .deals import (
    DailyDeal,
    DealCodeTypo,
    certified_daily_deal,
    checked_deal_code,
    daily_deal,
    daily_seed,
    deal_from_code,
    format_deal_code,
    new_deal_code,
    normalize_deal_code,
    seed_commitment,
)
from .position import IllegalMove, Move, Position, apply_move, legal_moves, replay
from .scoring import GOOD_GAME_PILES, score

__all__ = [
    "DECK",
    "GOOD_GAME_PILES",
    "RANKS",
    "SUITS",
    "DailyDeal",
    "DealCodeTypo",
    "IllegalMove",
    "Move",
    "Position",
    "apply_move",
    "cards_match",
    "certified_daily_deal",
    "checked_deal_code",
    "daily_deal",
    "daily_seed",
    "deal_from_code",
    "format_deal_code",
    "legal_moves",
    "new_deal_code",
    "normalize_deal_code",
    "replay",
    "score",
    "seed_commitment",
    "validate_deal",
]
