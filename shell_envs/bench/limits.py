"""Limits of the bench's options, apart so that the command line can check them without
importing the bench itself: beyond them numbers would overflow or exhaust memory."""

from __future__ import annotations

MAX_SEED = 2**32 - 1
MAX_GAMES = 100_000  # per What the Shell agent and anchor
MAX_DEALS = 5_000  # per Scorpion agent and rule set: the size of a deal set
MAX_WORKERS = 1024
