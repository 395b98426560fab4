"""Built-in Scorpion agents: ``random``, ``greedy``, ``lookahead``, ``pimc``, ``learned``: all fair.

Scorpion hides cards: 12 face down and 3 in the reserve.  The agents decide from a
[`ScorpionView`][shell_envs.scorpion.view.ScorpionView], the position with those cards masked
out (`HIDDEN`) and the list of cards whose place is unknown, never from the hidden cards
themselves.  Whoever runs a game passes ``ScorpionView.from_env(env)`` to ``act_with_state``
(or the agent decodes the same view from a ``"tableau"`` or ``"cards"`` observation in
``act``).  The heavy loops are compiled in [`shell_envs.scorpion.search`][] and play moves
with the rules engine.

This module registers the agents and gathers their names, so that every import from it keeps
working; each agent lives in its own module: the simple ones in
[`shell_envs.agents.scorpion_simple`][], ``pimc`` in [`shell_envs.agents.scorpion_pimc`][],
``learned`` in [`shell_envs.agents.scorpion_learned`][], the view in
[`shell_envs.scorpion.view`][].
"""

from __future__ import annotations

from shell_envs.agents.base import register_agent
from shell_envs.agents.scorpion_learned import LearnedAgent
from shell_envs.agents.scorpion_pimc import (
    MAX_EXACT,
    MAX_PLAN,
    PIMC_DEFAULTS,
    UNSOLVED,
    PimcAgent,
    turns_a_card,
)
from shell_envs.agents.scorpion_pimc import _looks_like as _looks_like
from shell_envs.agents.scorpion_pimc import _Sample as _Sample
from shell_envs.agents.scorpion_simple import (
    CLASSIC_SAMPLES,
    MAX_SEARCH,
    RELAXED_SAMPLES,
    RULES,
    TIE_BREAK,
    TIE_NOISE,
    GreedyAgent,
    LookaheadAgent,
    RandomAgent,
)
from shell_envs.agents.scorpion_simple import _FairAgent as _FairAgent
from shell_envs.agents.scorpion_simple import _view as _view
from shell_envs.scorpion.view import HIDDEN, ScorpionView, check_view

__all__ = [
    "CLASSIC_SAMPLES",
    "GAME",
    "HIDDEN",
    "MAX_EXACT",
    "MAX_PLAN",
    "MAX_SEARCH",
    "PIMC_DEFAULTS",
    "RELAXED_SAMPLES",
    "RULES",
    "TIE_BREAK",
    "TIE_NOISE",
    "UNSOLVED",
    "GreedyAgent",
    "LearnedAgent",
    "LookaheadAgent",
    "PimcAgent",
    "RandomAgent",
    "ScorpionView",
    "check_view",
    "turns_a_card",
]

GAME = "scorpion"

register_agent(GAME, "random", RandomAgent)
register_agent(GAME, "greedy", GreedyAgent)
register_agent(GAME, "lookahead", LookaheadAgent)
register_agent(GAME, "pimc", PimcAgent)
register_agent(GAME, "learned", LearnedAgent)
