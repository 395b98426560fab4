"""Side-by-side timing: rates come from compiled code, never from the plain-Python stand-ins
that run while a background compile fills the cache."""

from __future__ import annotations

import time

import pytest

from shell_envs.bench import timing
from shell_envs.core import background


@pytest.mark.parametrize("compiling", [True, False])
def test_a_background_compile_is_waited_for_before_timing(monkeypatch, compiling):
    events: list[str] = []
    state = {"pending": compiling}

    def wait(timeout: float | None = None) -> bool:
        events.append("wait")
        state["pending"] = False
        return True

    monkeypatch.setattr(background, "pending", lambda: state["pending"])
    monkeypatch.setattr(background, "wait", wait)

    def run(n: int) -> int:
        events.append("plain" if state["pending"] else "compiled")
        time.sleep(n * 1e-6)
        return n

    rates = timing.measure_side_by_side({"w": ("steps", run)}, seconds=0.001, repeats=3)
    assert len(rates["w"].rates) == 3
    expected = ["plain", "wait", "compiled"] if compiling else ["compiled"]
    assert events[: len(expected)] == expected
    assert events[len(expected) :] == ["compiled"] * (len(events) - len(expected))
