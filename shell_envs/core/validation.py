"""Checks of constructor keywords with messages that say what was wrong and what is accepted."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Literal, overload

import numpy as np
from gymnasium.error import ResetNeeded

DEVICES = ("cpu", "cuda")  # where batched envs run: ``device=`` of the vector envs


def choice(name: str, value: object, accepted: tuple[str, ...]) -> str:
    """``value`` if it is one of the ``accepted`` strings, else a ``ValueError``."""
    if not isinstance(value, str) or value not in accepted:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, accepted))}; got {value!r}")
    return value


def device(name: str, value: object) -> tuple[str, int | None]:
    """``(kind, index)`` of a device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a ``torch.device``
    (anything with ``type`` and ``index``; torch is not imported here), else a ``ValueError``."""
    kind, index = getattr(value, "type", None), getattr(value, "index", None)
    if isinstance(value, str):
        kind, colon, number = value.partition(":")
        index = int(number) if number.isdigit() else (-1 if colon else None)
    if kind not in DEVICES or (index is not None and (index < 0 or kind == "cpu")):
        raise ValueError(
            f"{name} must be 'cpu', 'cuda', 'cuda:N' or a torch.device of those; got {value!r}"
        )
    return kind, index


def flag(name: str, value: object) -> bool:
    """``value`` as a bool if it is one, else a ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


@overload
def positive_int(
    name: str, value: object, allow_none: Literal[False] = False, high: int = 2**62
) -> int: ...
@overload
def positive_int(name: str, value: object, allow_none: bool, high: int = 2**62) -> int | None: ...
def positive_int(
    name: str, value: object, allow_none: bool = False, high: int = 2**62
) -> int | None:
    """``value`` as an int if it is a positive integer up to ``high`` (or None when allowed).

    Anything else gets a ``ValueError``; the bound keeps huge numbers (``2**70``) from reaching
    a fixed-size integer as an ``OverflowError``.
    """
    if value is None and allow_none:
        return None
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or not 1 <= value <= high
    ):
        accepted = "a positive integer" + (" or None" if allow_none else "") + f", at most {high}"
        raise ValueError(f"{name} must be {accepted}; got {_show(value)}")
    return int(value)


def integer(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int if it is an integer (Python or numpy, not a bool) in ``[low, high]``.

    Anything else gets a ``ValueError`` naming ``name``, what is accepted and the value given,
    so huge numbers never reach a fixed-size integer as an ``OverflowError``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer{_bounds(low, high)}; got {_show(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{name} must be an integer{_bounds(low, high)}; got {_show(number)}")
    return number


@overload
def seed(name: str, value: None, high: int | None = None) -> None: ...
@overload
def seed(name: str, value: int | np.integer, high: int | None = None) -> int: ...
@overload
def seed(name: str, value: object, high: int | None = None) -> int | None: ...
def seed(name: str, value: object, high: int | None = None) -> int | None:
    """A seed: None, or a non-negative integer (numpy integers too) up to ``high``."""
    if value is None:
        return None
    return integer(name, value, 0, high)


def action_index(value: object, n_actions: int) -> int:
    """One integer action (an int, a numpy integer or a one-element integer array).

    Anything else (a float, a string, a bool, a list, a longer array) gets a ``ValueError``
    saying that the action must be one integer and what was given; the range is the rules'
    business, so an out-of-range integer is returned as it is.
    """
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.shape in ((), (1,)):
        return int(value.reshape(())[()])
    raise ValueError(f"an action must be one integer 0–{n_actions - 1}; got {_show(value)}")


def integer_vector(name: str, values: object, n: int, items: str = "integers") -> np.ndarray:
    """``values`` (anything ``np.asarray`` takes) as ``int64[n]``, not copied when it is one,
    else a ``ValueError`` saying that ``name`` must be ``n`` ``items`` and what it got."""
    array = np.asarray(values)
    if array.shape != (n,) or array.dtype.kind not in "iu":
        raise ValueError(
            f"{name} must be {n} {items} (shape ({n},)); got shape {array.shape} of {array.dtype}"
        )
    return array.astype(np.int64, copy=False)


def mapping(
    name: str,
    value: object,
    accepted: tuple[str, ...],
    what: str = "key",
    ignored: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``value`` as a dict (None: empty) whose keys are all ``accepted``, else ``ValueError``.

    An unknown key is named, with the accepted key it most resembles (``facedown`` →
    ``face_down``), and the accepted keys are listed (``none`` when there are none).  Keys in
    ``ignored`` are neither accepted nor refused: they are left out of the dict returned.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a dict; got {_show(value)}")
    unknown = [k for k in value if k not in accepted and k not in ignored]
    if unknown:
        raise ValueError(
            f"unknown {what}(s) in {name}: {', '.join(_suggest(k, accepted) for k in unknown)}; "
            f"accepted: {', '.join(map(repr, accepted)) or 'none'}"
        )
    return {k: v for k, v in value.items() if k not in ignored}


def reset_needed(call: str) -> ResetNeeded:
    """The error for ``call`` (e.g. ``"step()"``) made before any ``reset()``: Gymnasium's
    ``ResetNeeded``, the type its order enforcing (``gym.make``) raises, saying to reset first."""
    return ResetNeeded(f"{call} before reset(): no game has started; call reset() first")


def _suggest(key: object, accepted: tuple[str, ...]) -> str:
    """``'facedown' (did you mean 'face_down'?)`` or just ``'key'``."""
    if isinstance(key, str):
        close = difflib.get_close_matches(key, accepted, n=1, cutoff=0.6)
        if close:
            return f"{key!r} (did you mean {close[0]!r}?)"
    return repr(key)


def _bounds(low: int | None, high: int | None) -> str:
    """`` from 0 to 9`` / `` ≥ 0`` / ``''``."""
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" ≥ {low}"
    if high is not None:
        return f" ≤ {high}"
    return ""


def _show(value: object) -> str:
    """A value for a message: its repr with its type, shortened (huge numbers by their size)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return shown(value)
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return text if isinstance(value, str) else f"{text} ({type(value).__name__})"


def shown(value: int | np.integer) -> str:
    """An integer for a message: itself, or its size when it is huge.

    Python refuses to write integers of over 4,300 digits, so a huge action or seed must never
    be formatted whole.
    """
    number = int(value)
    if abs(number).bit_length() <= 128:
        return str(number)
    digits = int(abs(number).bit_length() * 0.30103) + 1
    return f"{'a negative' if number < 0 else 'an'} integer of about {digits} digits"


def number_in(value: Any, low: float, high: float, low_open: bool = False) -> bool:
    """True for a real number (not a bool) in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return False
    return bool((low < value if low_open else low <= value) and value <= high)
