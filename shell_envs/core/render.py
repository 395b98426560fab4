"""Rendering helpers shared by both games: fonts for images and a window for human mode."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import ImageFont


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
