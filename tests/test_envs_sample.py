"""From a policy to a bot: the policy bot computes the environment's own
arrays from each request, and the sample (sample_bots/smear_policy.py:
train a numpy policy, then a tournament over real gRPC against the
heuristic bot) runs end to end, shortened to seconds."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from cardgames.v1 import referee_pb2 as pb
from conftest import PY, ROOT
from referee import protocol
from referee.envs.table import Table
from referee.policybot import PolicyChooser, load_policy

OPTIONS = {"doudizhu": {"rounds": 1}, "smear": {"max_rounds": 2}, "president": {"max_rounds": 1},
           "tractor": {"max_rounds": 1}, "back_alley": {"first_round": 12, "last_round": 13}}


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_policy_bot_sees_exactly_the_environments_arrays_and_sends_the_same_action(game: str) -> None:
    table = Table(game, None, {}, OPTIONS[game])
    table.reset(3)
    started = pb.MatchStarted(seats=[pb.SeatInfo(seat=s) for s in range(table.players)])
    rng = random.Random(3)
    compared = 0
    while table.to_act is not None and compared < 150:
        seen_by_bot: list[dict] = []
        choices: list[int] = []

        def policy(obs: dict) -> int:
            seen_by_bot.append(obs)
            i = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            choices.append(i)
            return i

        req = table.decision_request()
        sent = protocol.action_from_pb(PolicyChooser(policy)(req, started))
        seat = table.to_act
        for obs, i in zip(seen_by_bot, choices):  # the environment, step by step, with the same choices
            want = table.observe(seat)
            assert np.array_equal(want["observation"], obs["observation"])
            assert np.array_equal(want["action_mask"], obs["action_mask"])
            compared += 1
            if table.step(i) is not None:
                break
        assert table.game.to_act != seat or table.decision is None or table.decision.size == 0
        last = table.events
        assert any(getattr(e.record, "seat", None) == seat for e in last) or sent is not None


def test_load_policy_takes_a_module_name_or_a_file_and_a_factory(tmp_path: Path) -> None:
    f = tmp_path / "mypolicy.py"
    f.write_text("def act(obs):\n    return 0\n\ndef make(bias):\n    return lambda obs: int(bias)\n")
    assert load_policy(f"{f}:act")({}) == 0
    assert load_policy(f"{f}:make", {"bias": "3"})({}) == 3
    assert callable(load_policy("sample_bots.smear_policy:features"))
    with pytest.raises(ValueError):
        load_policy("no_colon")


def test_sample_trains_a_numpy_policy_and_plays_a_tournament_over_grpc() -> None:
    # launched bots may run under uids of their own: the weights go in a folder they can read
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        run_sample(Path(d))


def run_sample(tmp_path: Path) -> None:
    out = subprocess.run([PY, "sample_bots/smear_policy.py", "--seconds", "3", "--weights", str(tmp_path / "w.npz"),
                          "--out", str(tmp_path / "t"), "--games", "1", "--rounds", "2"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    text = out.stdout + out.stderr  # the tournament's summary goes to either, depending on the terminal
    assert re.search(r"\b6 matches played", text) and "aborted: 0" in text, text[-2000:]  # 3 bots, every seat order
    row = next(line for line in text.splitlines() if re.match(r"^\d+\s+policy\s", line))
    assert row.split()[-1] == "0/0/0/0", row  # no timeout, illegal action, crash or other fault
    w = np.load(tmp_path / "w.npz")["w"]
    assert w.shape[0] == 1 + 3 + 54 + 1 and np.any(w != 0)  # trained: the weights moved


def test_a_policy_file_named_relative_to_where_the_match_is_run_plays_its_seat() -> None:
    """``referee bot from-policy ./mypolicy.py:act`` inside ``referee match``:
    the file is found from the directory the match was started in, though
    the bot runs in a private directory of its own (under its own uid when
    the referee runs as root: the folder is readable by all)."""
    with tempfile.TemporaryDirectory() as d:
        here = Path(d)
        os.chmod(here, 0o755)
        policy = here / "mypolicy.py"
        policy.write_text("import numpy as np\n\n\ndef act(obs):\n    return int(np.flatnonzero(obs['action_mask'])[0])\n")
        policy.chmod(0o644)
        r = subprocess.run([PY, "-m", "referee", "match", "smear", "--rounds", "1", "--json", "--log-dir",
                            str(here / "logs"), "--bot", f"{PY} -m referee bot from-policy ./mypolicy.py:act",
                            "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}",
                            "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"],
                           cwd=here, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["faults"] == [], r.stdout


def test_sample_evaluates_its_policy_and_the_baselines_on_the_same_deals(tmp_path: Path, capsys) -> None:
    from sample_bots import smear_policy

    weights = tmp_path / "w.npz"
    np.savez(weights, w=np.zeros((59, 1 + 641)))  # untrained: ties go to the first allowed index
    assert smear_policy.main(["--seconds", "0", "--weights", str(weights), "--evaluate", "30"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "mean round reward against the heuristic (seat 0 of 3), 30 one-round deals:"
    figures = {line[:26].strip(): line[26:] for line in lines[1:]}
    assert list(figures) == ["trained policy (greedy)", "first allowed index", "random allowed index"]
    assert figures["trained policy (greedy)"] == figures["first allowed index"]  # argmax of zeros: index 0 first
    assert smear_policy.evaluate(smear_policy.first_allowed, 5) == smear_policy.evaluate(smear_policy.first_allowed, 5)
