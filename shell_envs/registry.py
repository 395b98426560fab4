"""The games of the package, their one list: read by the CLI, the bench, the agents and the
integrations.  Names only (no env is imported here), so every layer may read it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GAMES", "Game", "game"]


@dataclass(frozen=True)
class Game:
    """One game: its Python name, its command-line name, its title, its rule sets and what one
    bench task of it plays."""

    name: str  # e.g. "what_the_shell": results.json, agent specs, module names
    cli_name: str  # e.g. "what-the-shell": `shell-envs play what-the-shell`, `--game`
    title: str  # e.g. "What the Shell": reports and pictures
    package: str  # the game package, e.g. "shell_envs.what_the_shell"
    rule_sets: tuple[str, ...]  # the names of its rule sets, the first the default ("" if one)
    bench_unit: str  # what one bench task plays, e.g. "game" or "deal" (the progress bars)


GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(
            "what_the_shell",
            "what-the-shell",
            "What the Shell",
            "shell_envs.what_the_shell",
            (),
            "game",
        ),
        Game(
            "scorpion",
            "scorpion",
            "Scorpion",
            "shell_envs.scorpion",
            ("classic", "relaxed", "traditional"),
            "deal",
        ),
    )
}


def game(name: str) -> Game:
    """The game called ``name`` (Python or command-line spelling); ValueError otherwise."""
    for g in GAMES.values():
        if name in (g.name, g.cli_name):
            return g
    names = ", ".join(repr(g.name) for g in GAMES.values())
    raise ValueError(f"game must be one of {names}; got {name!r}")
