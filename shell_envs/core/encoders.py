"""A small registry of named observation encoders, one registry per game.

An encoder is any object with a ``space`` attribute (a ``gymnasium.spaces.Space``) and an
``encode(...)`` method whose arguments each game documents.  Registries map names to
factories so users can add their own encoders without touching the environments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class EncoderRegistry:
    """Name → encoder factory, for one game."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._factories: dict[str, Callable[..., Any]] = {}

    def register(self, name: str, factory: Callable[..., Any], *, overwrite: bool = False) -> None:
        """Add ``factory`` (called with the env's encoder keyword arguments) under ``name``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"encoder name must be a non-empty string, got {name!r}")
        if name in self._factories and not overwrite:
            raise ValueError(
                f"{self.game} already has an encoder named {name!r}; "
                "pass overwrite=True to replace it"
            )
        self._factories[name] = factory

    def names(self) -> list[str]:
        """The registered encoder names, sorted."""
        return sorted(self._factories)

    def create(self, spec: Any, **kwargs: Any) -> Any:
        """Build the encoder named ``spec``; an encoder object passes through as it is."""
        if isinstance(spec, str):
            if spec not in self._factories:
                raise ValueError(
                    f"unknown {self.game} obs_encoder {spec!r}; "
                    f"registered: {', '.join(self.names())}"
                )
            return self._factories[spec](**kwargs)
        if hasattr(spec, "space") and callable(getattr(spec, "encode", None)):
            return spec
        raise ValueError(
            f"obs_encoder must be a registered name ({', '.join(self.names())}) or an object "
            f"with a 'space' attribute and an 'encode' method, got {spec!r}"
        )
