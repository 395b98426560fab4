"""Built-in Scorpion agents: ``random``, ``greedy``, ``lookahead``, ``pimc``, ``learned``: all fair.

Scorpion hides cards: 12 face down and 3 in the reserve.  The agents decide from a
[`ScorpionView`][shell_envs.scorpion.view.ScorpionView], the position with those cards masked
out (`HIDDEN`) and the list of cards whose place is unknown, never from the hidden cards
themselves.  Whoever runs a game passes ``ScorpionView.from_env(env)`` to ``act_with_state``
(or the agent decodes the same view from a ``"tableau"`` or ``"cards"`` observation in
``act``).  The heavy loops are compiled in [`shell_envs.scorpion.search`][] and play moves
with the rules engine.

This package registers the agents and is their public surface; each family lives in its own
module, laid out as What the Shell's agents are: what they share (the view check and the base
class with the memory of positions seen) in `shell_envs.agents.scorpion.common`, ``random``
and ``greedy`` in `shell_envs.agents.scorpion.simple`, ``lookahead`` and ``pimc`` in
`shell_envs.agents.scorpion.search`, ``learned`` in [`shell_envs.agents.scorpion.learned`][];
the view lives in [`shell_envs.scorpion.view`][].
"""

from __future__ import annotations

from shell_envs.agents.base import register_agents
from shell_envs.agents.scorpion.learned import LearnedAgent
from shell_envs.agents.scorpion.search import (
    CLASSIC_SAMPLES,
    MAX_EXACT,
    MAX_PLAN,
    MAX_SEARCH,
    PIMC_DEFAULTS,
    RELAXED_SAMPLES,
    TIE_BREAK,
    UNSOLVED,
    LookaheadAgent,
    PimcAgent,
    turns_a_card,
)
from shell_envs.agents.scorpion.simple import TIE_NOISE, GreedyAgent, RandomAgent
from shell_envs.core.deprecation import IMPORT_FROM, moved_names
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

# each built-in agent registers under its class's ``name``, in this order
register_agents(GAME, (RandomAgent, GreedyAgent, LookaheadAgent, PimcAgent, LearnedAgent))


# RULES, the old name of RULE_SETS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, IMPORT_FROM
)
