"""Agent specs: one string names a built-in agent with settings, a user callable or a model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from shell_envs.agents import AgentSpecError, make_agent, parse_spec
from shell_envs.agents.spec import FunctionAgent, UserAgent, object_spec
from shell_envs.agents.what_the_shell import MCTSAgent

USER_FILE = Path(__file__).with_name("user_agents.py")
# a model file that is not there, and what loading it says: without stable-baselines3 (the
# train extra), that the extra is missing
MISSING_MODEL = (
    "ppo:/nowhere/model.zip",
    "no saved model" if importlib.util.find_spec("stable_baselines3") else "shell-envs[train]",
)


@pytest.mark.parametrize(
    ("text", "label", "kind", "target", "options"),
    [
        ("random", "random", "builtin", "random", ()),
        ("mcts:iterations=1600", "mcts-1600", "builtin", "mcts", (("iterations", 1600),)),
        (
            "lookahead:samples=4,deal_last=true",
            "lookahead(samples=4,deal_last=True)",
            "builtin",
            "lookahead",
            (("samples", 4), ("deal_last", True)),
        ),
        (
            "mcts-learned:uniform=true",
            "mcts-learned(uniform=True)",
            "builtin",
            "mcts-learned",
            (("uniform", True),),
        ),
        ("me=mcts:iterations=50", "me", "builtin", "mcts", (("iterations", 50),)),
        ("tests.bench.user_agents:first_legal", "first_legal", "callable", None, ()),
        ("path/to/agents.py:make", "make", "callable", None, ()),
        ("ppo:runs/model.zip", "ppo-model", "ppo", "runs/model.zip", ()),
        ("ppo:m.zip?encoder=flat", "ppo-m", "ppo", "m.zip", (("encoder", "flat"),)),
        (
            "rllib:ckpt/run1?module=shared",
            "rllib-run1",
            "rllib",
            "ckpt/run1",
            (("module", "shared"),),
        ),
    ],
)
def test_specs_parse_with_readable_labels(text, label, kind, target, options) -> None:
    spec = parse_spec(text)
    assert (spec.label, spec.kind, spec.options) == (label, kind, options)
    if target is not None:
        assert spec.target == target


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "non-empty"),
        ("nonsense", "not a built-in agent"),
        ("mcts:iterations", "key=value"),
        ("ppo:", "needs a path"),
        ("ppo:m.zip?color=red", "unknown option 'color'"),
        ("agents.py:1st", "name of a callable"),
        ("x=", "nothing after"),
    ],
)
def test_malformed_specs_get_one_line_errors_naming_them(text, says) -> None:
    with pytest.raises(AgentSpecError) as error:
        parse_spec(text)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_make_agent_takes_specs_and_keyword_settings_alike() -> None:
    a = make_agent("what_the_shell", "mcts:iterations=50,candidates=4", seed=0)
    b = make_agent("what_the_shell", "mcts", seed=0, iterations=50, candidates=4)
    assert isinstance(a, MCTSAgent) and (a.iterations, a.candidates) == (50, 4)
    assert (b.iterations, b.candidates) == (50, 4)
    assert make_agent("what_the_shell", "mcts").iterations == 400  # the bench's mcts
    with pytest.raises(ValueError, match="unknown scorpion agent .mcts."):
        make_agent("scorpion", "mcts")
    with pytest.raises(AgentSpecError, match="unexpected keyword|iterationz"):
        make_agent("what_the_shell", "mcts:iterationz=5")


def test_user_callables_load_from_a_module_or_a_file() -> None:
    mask = np.zeros(81, np.int8)
    mask[[7, 9]] = 1
    policy = make_agent("what_the_shell", "tests.bench.user_agents:first_legal")
    assert isinstance(policy, FunctionAgent) and policy.act(None, mask) == 7
    agent = make_agent("scorpion", f"{USER_FILE}:make_seeded", seed=3)
    assert isinstance(agent, UserAgent) and agent.agent.game == "scorpion"
    agent.reset(5)
    first = [agent.act(None, mask) for _ in range(5)]
    agent.reset(5)
    assert [agent.act(None, mask) for _ in range(5)] == first


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("tests.bench.no_such_module:f", "cannot import module"),
        ("tests.bench.user_agents:missing", "has no 'missing'"),
        ("/nowhere/agents.py:f", "no file"),
        MISSING_MODEL,
    ],
)
def test_specs_that_cannot_load_say_why(text, says) -> None:
    with pytest.raises(AgentSpecError) as error:
        parse_spec(text).make("what_the_shell", 0)
    assert says in str(error.value) and text.split(":")[0] in str(error.value)


def test_a_factory_must_return_an_agent(tmp_path) -> None:
    module = tmp_path / "bad_factory.py"
    module.write_text("def make(game, seed):\n    return 42\n")
    with pytest.raises(AgentSpecError, match="has no act"):
        make_agent("scorpion", f"{module}:make")


def test_objects_and_functions_get_specs_of_this_process() -> None:
    spec = object_spec(lambda obs, mask: 0, name="zero")
    assert spec.kind == "object" and spec.label == "zero"
    assert spec.make("scorpion").act(None, np.ones(3)) == 0
    with pytest.raises(AgentSpecError):
        object_spec(42)
