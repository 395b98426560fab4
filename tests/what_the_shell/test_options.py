"""`WhatTheShellOptions`: the keywords the parallel, batched and GPU What the Shell envs share,
checked in one place, with each player's spaces derived from them."""

from __future__ import annotations

import dataclasses

import pytest

from shell_envs.what_the_shell.env import WhatTheShellEnv
from shell_envs.what_the_shell.options import WhatTheShellOptions
from shell_envs.what_the_shell.vector import WhatTheShellVectorEnv

BAD = [{"max_rounds": 0}, {"max_rounds": 2**31}, {"illegal_action": "pass"},
       {"obs_encoder": "pixels"}]  # fmt: skip


@pytest.mark.parametrize("bad", BAD, ids=lambda kw: f"{next(iter(kw))}={next(iter(kw.values()))}")
def test_every_env_refuses_a_bad_keyword_with_the_options_own_words(bad):
    with pytest.raises(ValueError) as expected:
        WhatTheShellOptions(**bad)
    for make in (lambda: WhatTheShellEnv(**bad), lambda: WhatTheShellVectorEnv(2, **bad)):
        with pytest.raises(ValueError) as got:
            make()
        assert str(got.value) == str(expected.value)


def test_the_envs_take_their_options_and_spaces_from_one_object():
    keywords = {"obs_encoder": "flat", "max_rounds": 30, "illegal_action": "raise"}
    options = WhatTheShellOptions(**keywords)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.max_rounds = 5
    single, batched = WhatTheShellEnv(**keywords), WhatTheShellVectorEnv(2, **keywords)
    assert single.options == options and batched.options == options
    for agent in ("black", "white"):
        assert single.observation_space(agent) == options.observation_space
        assert single.action_space(agent) == options.action_space
    assert single.action_space("black") is not single.action_space("white")  # seeded apart
    assert batched.single_observation_space == options.observation_space
    assert batched.single_action_space == options.action_space
    assert (single.max_rounds, batched.max_rounds, batched.illegal_action) == (30, 30, "raise")
    assert options.n_actions == 81
