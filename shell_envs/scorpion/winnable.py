"""The solver's verdicts on numbered deals, shipped with the package.

Each rule set has two files, both written by ``benchmarks/scorpion_winnable_seeds.py`` from
the winnability study's results:

- ``shell_envs/data/scorpion_verdicts_<rules>.tsv``: every deal of the study, one per line:
  ``seed``, ``verdict`` (won / lost), ``nodes`` searched and the winning ``line`` length, so
  that anyone can re-check a deal (``shell-envs solve --seed N --check``);
- ``shell_envs/data/scorpion_winnable_<rules>.txt``: the won deals, ``seed`` then the winning
  line as env actions, for winnable-only games.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import NamedTuple

import numpy as np

from shell_envs.core.deprecation import RENAMED, moved_names
from shell_envs.scorpion.rules import RULE_SETS


def _check_rules(rules: str) -> str:
    """Validate a rule-set name."""
    if rules not in RULE_SETS:
        raise ValueError(f"rules must be one of {RULE_SETS}; got {rules!r}")
    return rules


@cache
def _table(rules: str) -> tuple[tuple[int, ...], dict[int, tuple[int, ...]]]:
    """The seeds of a rule set and the stored solutions, read once."""
    name = f"scorpion_winnable_{_check_rules(rules)}.txt"
    text = (resources.files("shell_envs") / "data" / name).read_text(encoding="utf-8")
    seeds: list[int] = []
    lines: dict[int, tuple[int, ...]] = {}
    for raw in text.splitlines():
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        seed = int(parts[0])
        seeds.append(seed)
        if len(parts) > 1:
            lines[seed] = tuple(int(a) for a in parts[1:])
    return tuple(seeds), lines


class DealVerdict(NamedTuple):
    """The shipped verdict of one deal: ``won`` or ``lost``, nodes searched, winning line length."""

    verdict: str
    nodes: int
    line_length: int


@cache
def deal_verdicts(rules: str = "classic") -> dict[int, DealVerdict]:
    """Every deal number of the winnability study with its verdict under ``rules``."""
    name = f"scorpion_verdicts_{_check_rules(rules)}.tsv"
    text = (resources.files("shell_envs") / "data" / name).read_text(encoding="utf-8")
    out = {}
    for raw in text.splitlines():
        if raw.startswith("#") or raw.startswith("seed") or not raw.strip():
            continue
        seed, verdict, nodes, length = raw.split("\t")
        out[int(seed)] = DealVerdict(verdict, int(nodes), int(length))
    return out


def winnable_seeds(rules: str = "classic") -> tuple[int, ...]:
    """Deal numbers proven winnable under ``rules`` (``"classic"``, ``"relaxed"`` or
    ``"traditional"``)."""
    return _table(rules)[0]


def stored_solution(rules: str, seed: int) -> tuple[int, ...] | None:
    """The stored winning line (env actions) of a winnable seed, or None if not stored."""
    return _table(rules)[1].get(int(seed))


def pick_winnable_seed(rng: np.random.Generator, rules: str = "classic") -> int:
    """A winnable deal number drawn uniformly from the shipped list with ``rng``."""
    seeds = winnable_seeds(rules)
    return int(seeds[int(rng.integers(len(seeds)))])


# RULES, the old name of RULE_SETS, until 0.5.0 (docs/deprecations.md)
__getattr__ = moved_names(
    __name__, "0.5.0", {"RULES": ("shell_envs.scorpion.rules", "RULE_SETS")}, RENAMED
)
