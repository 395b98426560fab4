"""Exceptions shared by both games."""

from __future__ import annotations


class IllegalMove(ValueError):
    """An action the rules do not allow; the message says why."""
