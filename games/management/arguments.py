"""Argument types shared by the games' management commands."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """A whole number of at least 1 (a count of deals, dates or positions)."""
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return number
