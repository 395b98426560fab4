"""Rendering helpers shared by both games: fonts for images, a window for human mode and the
envs' render modes ([`RenderModes`][])."""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import ImageFont

from shell_envs.core.validation import reset_needed


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's bundled scalable font at ``size`` pixels (no system fonts needed)."""
    return ImageFont.load_default(size=size)


class HumanWindow:
    """A pygame window that shows RGB frames; pygame is the optional ``human`` extra."""

    def __init__(self, title: str, fps: int = 4) -> None:
        try:
            import pygame
        except ImportError as exc:
            from gymnasium.error import DependencyNotInstalled

            raise DependencyNotInstalled(
                'render_mode="human" needs pygame: pip install "shell-envs[human]"'
            ) from exc
        self._pygame = pygame
        self._title = title
        self._fps = fps
        self._screen: pygame.Surface | None = None
        self._clock = pygame.time.Clock()

    def show(self, frame: np.ndarray) -> None:
        """Draw one (H, W, 3) uint8 frame and keep the window responsive."""
        pygame = self._pygame
        h, w = frame.shape[:2]
        if self._screen is None:
            pygame.init()
            pygame.display.set_caption(self._title)
            self._screen = pygame.display.set_mode((w, h))
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self._fps)

    def close(self) -> None:
        """Close the window if it was opened."""
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None


class RenderModes(ABC):
    """``render`` by ``render_mode``, as both games' envs offer it: ``ansi`` the text layout
    (`_text`), ``rgb_array`` an image (`_image`), ``human`` that image in a window titled
    ``window_title``; ``close`` closes the window and pickles leave it out."""

    window_title = ""
    render_mode: str | None
    metadata: dict[str, Any]
    _started: bool  # a game was started (reset or set_state)
    _window: HumanWindow | None

    @abstractmethod
    def _text(self) -> str:
        """The game as text (the ``ansi`` mode)."""

    @abstractmethod
    def _image(self) -> np.ndarray:
        """The game as an ``(H, W, 3)`` uint8 image (``rgb_array`` and ``human``)."""

    def render(self) -> Any:
        """``ansi``: the text layout; ``rgb_array``: an image; ``human``: show it in a window
        (returns None).

        Before the first ``reset`` (or `set_state`) there is no game: ``ResetNeeded``, as the
        order enforcing of Gymnasium and PettingZoo raises.
        """
        if not self._started:
            raise reset_needed("render()")
        if self.render_mode == "ansi":
            return self._text()
        if self.render_mode == "rgb_array":
            return self._image()
        self._render_frame()
        return None

    def _render_frame(self) -> None:
        """Show the game in the human window (only in ``"human"`` mode)."""
        if self.render_mode != "human":
            return
        if self._window is None:
            self._window = HumanWindow(self.window_title, self.metadata["render_fps"])
        self._window.show(self._image())

    def close(self) -> None:
        """Close the human window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_window"] = None
        return state
