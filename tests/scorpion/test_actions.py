"""Scorpion's action codec (`shell_envs.scorpion.actions`): one home for how moves are numbered."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import numba
import numpy as np
import pytest

from shell_envs.scorpion import actions, encoders, env, rules, solver, winnable
from shell_envs.scorpion.actions import (
    N_ACTIONS,
    N_ACTIONS_UNDO,
    N_CARDS,
    N_COLUMNS,
    N_MOVES,
    RESERVE_ACTION,
    UNDO_ACTION,
    decode_move,
    decode_move_plain,
    encode_move,
    encode_move_plain,
)
from shell_envs.scorpion.env import ScorpionEnv

PACKAGE = Path(actions.__file__).parent


def test_every_card_move_round_trips():
    seen = set()
    for card in range(N_CARDS):
        for column in range(N_COLUMNS):
            action = encode_move(card, column)
            assert action == card * N_COLUMNS + column  # the env's documented numbering
            assert decode_move(action) == (card, column)
            seen.add(action)
    assert seen == set(range(N_MOVES))


def test_the_numbers_after_the_card_moves():
    assert (N_MOVES, RESERVE_ACTION, UNDO_ACTION) == (364, 364, 365)
    assert (N_ACTIONS, N_ACTIONS_UNDO) == (365, 366)
    assert ScorpionEnv().action_space.n == N_ACTIONS
    assert ScorpionEnv(allow_undo=True).action_space.n == N_ACTIONS_UNDO


def test_the_compiled_and_the_plain_codec_agree():
    @numba.njit
    def round_trip(out):
        for action in range(N_MOVES):
            card, column = decode_move(action)
            out[action, 0] = card
            out[action, 1] = column
            out[action, 2] = encode_move(card, column)

    compiled = np.zeros((N_MOVES, 3), np.int64)
    round_trip(compiled)
    plain = [
        (*decode_move_plain(a), encode_move_plain(*decode_move_plain(a))) for a in range(N_MOVES)
    ]
    assert compiled.tolist() == [list(row) for row in plain]
    assert [decode_move(a) for a in range(N_MOVES)] == [tuple(row[:2]) for row in plain]
    # the plain pair is the compiled pair's own Python, not a second codec
    assert encode_move_plain is getattr(encode_move, "py_func", encode_move)
    assert decode_move_plain is getattr(decode_move, "py_func", decode_move)


def test_rules_re_exports_the_codec_and_the_rule_set_names():
    for name in ("N_ACTIONS", "N_ACTIONS_UNDO", "N_CARDS", "N_COLUMNS", "RESERVE_ACTION",
                 "UNDO_ACTION", "decode_move", "encode_move"):  # fmt: skip
        assert getattr(rules, name) is getattr(actions, name), name
    assert rules.RULE_SETS == ("classic", "relaxed", "traditional")
    for module in (env, winnable, solver):
        with pytest.deprecated_call():  # the old name, deprecated
            assert module.RULES is rules.RULE_SETS, module.__name__


def test_the_observation_layouts_are_named():
    assert (encoders.TABLEAU_RESERVE, encoders.TABLEAU_REMOVED, encoders.TABLEAU_SIZE) == (
        364,
        365,
        366,
    )
    assert (encoders.CARDS_FACE_DOWN, encoders.CARDS_RESERVE, encoders.CARDS_REMOVED) == (
        208,
        215,
        216,
    )
    assert encoders.TableauEncoder().size == encoders.TABLEAU_SIZE
    assert encoders.CardsEncoder().size == encoders.CARDS_SIZE == 217


def _spelled_out_codec(source: str) -> list[str]:
    """Code (not docstrings or comments) that spells the codec out: ``* 7``, ``// 7``,
    ``% 7``, ``divmod(…, 7)`` or the literals 364 / 365 (the rules' arrays are named)."""
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.STRING)
    ]
    found = []
    for i, token in enumerate(tokens[1:-1], start=1):
        before, after = tokens[i - 1].string, tokens[i + 1].string
        literal = token.type == tokenize.NUMBER and token.string in ("364", "365")
        seven = token.string == "7" and (
            before in ("*", "//", "%") or (before, after) == (",", ")")
        )
        if literal or seven:
            found.append(f"line {token.start[0]}: {token.line.strip()}")
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for p in PACKAGE.rglob("*.py") if p.name != "actions.py"),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_no_module_spells_the_codec_out(path: Path):
    found = _spelled_out_codec(path.read_text(encoding="utf-8"))
    assert not found, f"use shell_envs.scorpion.actions instead: {found}"
