"""Scorpion solitaire: compiled rules, states, encoders, renderers and the Gymnasium env."""

from shell_envs.core.errors import IllegalMove
from shell_envs.scorpion.cards import card_code, parse_card
from shell_envs.scorpion.encoders import ENCODERS, CardsEncoder, TableauEncoder, register_encoder
from shell_envs.scorpion.env import ScorpionEnv
from shell_envs.scorpion.messages import message
from shell_envs.scorpion.options import DEFAULT_MAX_MOVES, ScorpionOptions
from shell_envs.scorpion.state import ScorpionState, deck_of

__all__ = [
    "DEFAULT_MAX_MOVES",
    "ENCODERS",
    "CardsEncoder",
    "IllegalMove",
    "ScorpionEnv",
    "ScorpionOptions",
    "ScorpionState",
    "TableauEncoder",
    "card_code",
    "deck_of",
    "message",
    "parse_card",
    "register_encoder",
]
