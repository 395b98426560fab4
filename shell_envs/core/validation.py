"""Checks of constructor keywords with messages that say what was wrong and what is accepted."""

from __future__ import annotations

import numpy as np


def choice(name: str, value: object, accepted: tuple[str, ...]) -> str:
    """``value`` if it is one of the ``accepted`` strings, else a ``ValueError``."""
    if not isinstance(value, str) or value not in accepted:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, accepted))}; got {value!r}")
    return value


def flag(name: str, value: object) -> bool:
    """``value`` as a bool if it is one, else a ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def positive_int(name: str, value: object, allow_none: bool = False) -> int | None:
    """``value`` as an int if it is a positive integer (or None when allowed), else ValueError."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        accepted = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{name} must be {accepted}; got {value!r}")
    return int(value)
