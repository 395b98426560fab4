"""The learned Scorpion agent: numpy forward equals torch's, training sees what play sees.

The test against torch skips without it (the ``train`` extra); the others run on a core install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shell_envs.agents import make_agent
from shell_envs.agents.scorpion import LearnedAgent, ScorpionView
from shell_envs.bench.patience import play_deal
from shell_envs.scorpion import network, rules
from tests.agents.test_scorpion_agents import mask_of, random_states
from tests.examples.helpers import load_example


def test_numpy_forward_equals_torch_forward():
    torch = pytest.importorskip("torch")
    example = load_example("train_scorpion")
    torch.manual_seed(0)
    scorer = example.MoveScorer(hidden=16, init_gain=5.0)
    for p in scorer.parameters():  # larger weights than the init, so every unit matters
        torch.nn.init.normal_(p, std=0.3)
    policy = type("Policy", (), {"mlp_extractor": scorer})()
    net = example.export(policy)
    rng = np.random.default_rng(0)
    feats = rng.standard_normal((3, network.N_SLOTS, network.N_FEATURES)).astype(np.float32)
    with torch.no_grad():
        expected = scorer.forward_actor(torch.from_numpy(feats.reshape(3, -1))).numpy()
    for i in range(3):
        np.testing.assert_allclose(network.scores(net, feats[i]), expected[i], rtol=1e-5, atol=1e-5)


def test_training_features_are_the_agents_features():
    # the batched features of full states (training) equal those of the player's view (play)
    states = random_states(30, 4, rules.RULE_SETS)
    n = len(states)
    arrays = tuple(np.stack([s.arrays[j] for s in states]) for j in range(6))
    masks = np.stack([mask_of(s) for s in states])
    visited = np.zeros((n, network.MAX_VISITED), np.int64)
    n_visited = np.zeros(n, np.int64)
    obs = np.zeros((n, network.N_SLOTS, network.N_FEATURES), np.float32)
    slots = np.zeros((n, network.N_SLOTS), np.int64)
    counts = np.zeros(n, np.int64)
    levels = np.zeros(n, np.int64)
    network.batch_features(arrays, masks, visited, n_visited, obs, slots, counts, levels)
    feats = np.empty((rules.N_ACTIONS, network.N_FEATURES), np.float32)
    moves = np.empty(rules.N_ACTIONS, np.int64)
    for i, state in enumerate(states):
        view = ScorpionView.from_state(state)
        legal = np.flatnonzero(masks[i]).astype(np.int64)
        here = np.array([view.position_hash()], np.int64)
        m, level = network.move_features(
            view.state_arrays(), legal, legal.size, here, 1, feats, moves
        )
        assert (m, level) == (counts[i], levels[i])
        assert np.array_equal(moves[:m], slots[i, :m])
        np.testing.assert_array_equal(feats[:m], obs[i, :m])
        assert not obs[i, m:].any() and np.all(obs[i, :m, network.F_VALID] == 1.0)
        assert n_visited[i] == 1 and visited[i, 0] == here[0]


def test_moves_back_to_a_seen_position_are_candidates_only_when_nothing_else_is():
    view = ScorpionView.from_state(random_states(1, 8)[0])
    legal = np.flatnonzero(mask_of(random_states(1, 8)[0])).astype(np.int64)
    feats = np.empty((rules.N_ACTIONS, network.N_FEATURES), np.float32)
    moves = np.empty(rules.N_ACTIONS, np.int64)
    none = np.zeros(0, np.int64)
    m, level = network.move_features(view.state_arrays(), legal, legal.size, none, 0, feats, moves)
    assert level == 0 and m > 0 and not feats[:m, network.F_REVISIT].any()
    after = []  # where each candidate leads: seen them all, and only revisits are left
    for a in moves[:m]:
        state = random_states(1, 8)[0]
        rules.apply_action(state.arrays, int(a))
        after.append(ScorpionView.from_state(state).position_hash())
    seen = np.array(after, np.int64)
    m2, level = network.move_features(view.state_arrays(), legal, legal.size, seen, m, feats, moves)
    assert level == 1 and m2 >= m and feats[:m2, network.F_REVISIT].all()


def test_learned_agent_is_deterministic_for_a_seed_and_plays_legal_moves():
    for temperature in (0.0, 1.0):
        first = play_deal(make_agent("scorpion", "learned", temperature=temperature), 3, "classic")
        again = play_deal(make_agent("scorpion", "learned", temperature=temperature), 3, "classic")
        assert first == again and first[3] != "illegal"
    for state in random_states(20, 6, rules.RULE_SETS):
        mask = mask_of(state)
        assert mask[make_agent("scorpion", "learned", seed=1).act_with_state(
            ScorpionView.from_state(state), mask
        )]  # fmt: skip


def test_weights_option_and_bad_files(tmp_path):
    shipped = network.shipped()
    data = Path(network.__file__).parent.parent / "data"
    assert (data / network.WEIGHTS_FILE).stat().st_size < 100_000
    path = tmp_path / "net.npz"
    flipped = list(shipped)
    flipped[0] = -flipped[0]  # another network: it must be the one used
    network.save(tuple(flipped), path)
    assert all(np.array_equal(a, b) for a, b in zip(network.load(path), flipped, strict=True))
    state = random_states(1, 3)[0]
    view, mask = ScorpionView.from_state(state), mask_of(state)
    mine = make_agent("scorpion", f"learned:weights='{path}'")
    assert np.array_equal(mine.net[0], flipped[0])
    assert mask[mine.act_with_state(view, mask)]
    np.savez(tmp_path / "bad.npz", w1=np.zeros(3))
    with pytest.raises(ValueError, match="lacks"):
        LearnedAgent(weights=str(tmp_path / "bad.npz"))
    with pytest.raises(ValueError, match="shape"):
        LearnedAgent(net=tuple(np.zeros(2, np.float32) for _ in network.WEIGHT_NAMES))
    for bad in (-1.0, float("inf"), float("nan"), True, "hot"):
        with pytest.raises(ValueError, match="temperature"):
            LearnedAgent(temperature=bad)


def test_shipped_agent_plays_without_torch():
    script = (
        "import json, sys\n"
        "class NoTorch:  # importing torch fails (scipy, imported by the bench, looks it up\n"
        "    def find_spec(self, name, path=None, target=None):  # in sys.modules: not None)\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            raise ImportError('no torch here')\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "from shell_envs.agents import make_agent\n"
        "from shell_envs.bench.patience import play_deal\n"
        "games = [play_deal(make_agent('scorpion', 'learned', rules=r), 5, r)\n"
        "         for r in ('classic', 'relaxed', 'traditional')]\n"
        "assert 'torch' not in sys.modules\n"
        "print(json.dumps(games))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for _won, score, moves, end in json.loads(out.stdout):
        assert moves > 0 and score >= 0 and end in ("won", "no move", "dead", "stalled", "move cap")
