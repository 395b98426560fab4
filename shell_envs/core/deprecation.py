"""Deprecated names, written one way: a module's ``__getattr__`` built from a table of the
names that left it, and a warning for a deprecated method.

A module whose names moved sets ``__getattr__ = moved_names(__name__, removal, {old: (home,
new)})``; a module that moved whole sets ``__getattr__ = alias_module(__name__, home,
removal)``.  Either reads a name from its new home only when the old name is used (so a
module may forward to one of a higher layer without importing it), with a
``DeprecationWarning`` at the user's line naming the replacement and the release that removes
the old name.  ``tests/test_deprecations.py`` reads these tables to check that each name is
listed in ``docs/deprecations.md``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# the warnings' texts, by the fields {module}, {old}, {home}, {new} and {removal}
MOVED = (
    "{module}.{old} moved to {home}.{new}; import it from there (the old name is removed in "
    "{removal})"
)
MOVED_PRIVATE = "{module}.{old} moved to {home}.{new} (the old name is removed in {removal})"
RENAMED = "{module}.{old} is deprecated: use {home}.{new} (the old name is removed in {removal})"
IMPORT_FROM = "{module}.{old} is deprecated and is removed in {removal}; import {new} from {home}"
MODULE_MOVED = "{module} is deprecated and is removed in {removal}; import {new} from {home}"


@dataclass(frozen=True)
class Moved:
    """Where one deprecated name went: its new home module and name there, the release that
    removes the old name, and the warning's text."""

    home: str
    new: str
    removal: str
    message: str

    def text(self, module: str, old: str) -> str:
        """The warning for reading ``old`` from ``module``."""
        return self.message.format(
            module=module, old=old, home=self.home, new=self.new, removal=self.removal
        )


@dataclass(frozen=True)
class DeprecatedNames:
    """A module's ``__getattr__``: each name of ``moved`` from its new home with a warning;
    with ``alias_of``, every other public name of that module too (the module moved whole)."""

    module: str
    moved: Mapping[str, Moved] = field(default_factory=dict)
    alias_of: str | None = None
    removal: str = ""
    message: str = MODULE_MOVED

    def __call__(self, name: str) -> Any:
        """``name`` from its new home, warning at the caller's line (``stacklevel=2``)."""
        found = self.moved.get(name)
        if found is None and self.alias_of is not None and not name.startswith("_"):
            home = importlib.import_module(self.alias_of)
            if hasattr(home, name):
                found = Moved(self.alias_of, name, self.removal, self.message)
        if found is None:
            raise AttributeError(f"module {self.module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(found.home), found.new)
        warnings.warn(found.text(self.module, name), DeprecationWarning, stacklevel=2)
        return value

    def __or__(self, other: DeprecatedNames) -> DeprecatedNames:
        """One ``__getattr__`` of both tables (for names removed in different releases)."""
        return DeprecatedNames(
            self.module, {**self.moved, **other.moved}, self.alias_of, self.removal, self.message
        )


def moved_names(
    module: str, removal: str, table: Mapping[str, tuple[str, str]], message: str = MOVED
) -> DeprecatedNames:
    """The ``__getattr__`` of ``module``, whose names ``table`` maps each to ``(new home
    module, new name)``, all removed in ``removal``."""
    return DeprecatedNames(
        module, {old: Moved(home, new, removal, message) for old, (home, new) in table.items()}
    )


def alias_module(
    module: str,
    home: str,
    removal: str,
    message: str = MODULE_MOVED,
    moved: Mapping[str, tuple[str, str]] | None = None,
) -> DeprecatedNames:
    """The ``__getattr__`` of ``module``, which moved whole to ``home``: every public name of
    ``home`` (or, in ``moved``, its other home and name), removed in ``removal``."""
    table = moved_names(module, removal, moved or {}, message).moved
    return DeprecatedNames(module, table, home, removal, message)


def warn_deprecated(old: str, new: str, removal: str) -> None:
    """Warn at the caller's caller that ``old`` (a method, say) is deprecated for ``new``."""
    warnings.warn(
        f"{old} is deprecated and is removed in {removal}; use {new}",
        DeprecationWarning,
        stacklevel=3,
    )
