#!/usr/bin/env python3
"""A tiny Smear policy trained with numpy, then entered in a tournament.

A linear softmax policy over the training environment's observation array
(referee.envs, docs/envs.md), trained by REINFORCE against the sample
heuristic bot in the other two seats of three-player Smear, one round per
episode; its reward is the round's change of its match points. Then it
plays a tournament over gRPC, as a bot made by ``referee bot from-policy``,
against the heuristic and the random sample bots.

    python sample_bots/smear_policy.py --seconds 180                  # train, then the tournament
    python sample_bots/smear_policy.py --seconds 0 --weights FILE     # the tournament with saved weights
    python sample_bots/smear_policy.py --seconds 60 --evaluate 2000   # train, then the baselines' figures

Needs the envs extra (``pip install -e '.[envs]'`` in a checkout, docs/envs.md) to train;
the bot itself needs numpy only.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from referee.envs import single_agent_env  # noqa: E402
from referee.words import plural  # noqa: E402

GAME, PLAYERS = "smear", 3


def features(observation: np.ndarray) -> np.ndarray:
    """The policy's input: the observation squashed into (-1, 1), and a bias."""
    return np.append(np.tanh(observation / 4.0), 1.0).astype(np.float64)


def probabilities(w: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax of the logits ``w @ x`` over the allowed indices (others 0)."""
    logits = w @ x
    logits = np.where(mask > 0, logits, -np.inf)
    logits -= logits.max()
    p = np.exp(logits)
    return p / p.sum()


def train(seconds: float, seed: int = 0, lr: float = 0.01, log: Callable[[str], None] = print) -> np.ndarray:
    """REINFORCE with a running-mean baseline for ``seconds`` of wall time;
    returns the weights (actions x features)."""
    env = single_agent_env(GAME, PLAYERS, seat=0, opponents="heuristic", seed=seed, max_rounds=1)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    w = np.zeros((env.action_space.n, features(obs["observation"]).size))
    baseline, episodes, t0, last = 0.0, 0, time.monotonic(), 0.0
    while time.monotonic() - t0 < seconds:
        grads, total, done = np.zeros_like(w), 0.0, False
        obs, _ = env.reset()
        while not done:
            x, mask = features(obs["observation"]), obs["action_mask"]
            p = probabilities(w, x, mask)
            a = int(rng.choice(p.size, p=p))
            g = -p
            g[a] += 1.0
            grads += np.outer(g, x)  # the gradient of log p(a)
            obs, r, done, _, _ = env.step(a)
            total += r
        w += lr * (total - baseline) * grads
        baseline += 0.01 * (total - baseline)
        episodes += 1
        if time.monotonic() - last > 10:
            last = time.monotonic()
            log(f"{episodes} {plural(episodes, 'episode')}, mean round reward {baseline:+.2f}")
    log(f"trained on {episodes} {plural(episodes, 'episode')} in {time.monotonic() - t0:.0f} s")
    return w


def load(weights: str) -> Callable[[dict], int]:
    """The greedy policy of saved ``weights`` (an .npz from :func:`main`):
    ``obs -> index`` (what ``referee bot from-policy ... --with weights=FILE`` runs)."""
    w = np.load(weights)["w"]

    def policy(obs: dict) -> int:
        return int(np.argmax(probabilities(w, features(obs["observation"]), obs["action_mask"])))

    return policy


def first_allowed(obs: dict) -> int:
    """The baseline that always answers the first allowed index."""
    return int(np.flatnonzero(obs["action_mask"])[0])


def random_allowed(seed: int) -> Callable[[dict], int]:
    """The baseline that answers a uniformly random allowed index."""
    rng = np.random.default_rng(seed)
    return lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))


def evaluate(policy: Callable[[dict], int], episodes: int, seed: int = 1) -> tuple[float, float]:
    """``policy`` in seat 0 against the heuristic in the other two, one-round
    matches, the same ``episodes`` deals for every policy given the same
    ``seed``: (mean round reward, its standard error), in match points."""
    env = single_agent_env(GAME, PLAYERS, seat=0, opponents="heuristic", seed=seed, max_rounds=1)
    totals = np.zeros(episodes)
    for i in range(episodes):
        obs, _ = env.reset()
        done = False
        while not done:  # the observation after the last step has an all-zero mask: no policy call on it
            obs, r, done, _, _ = env.step(policy(obs))
            totals[i] += r
    return float(totals.mean()), float(totals.std(ddof=1) / np.sqrt(episodes)) if episodes > 1 else 0.0


def tournament_file(weights: Path, out: Path, games: int, rounds: int) -> Path:
    """Write the tournament of the policy against the heuristic and random bots."""
    root = Path(__file__).resolve().parent
    text = f"""# written by sample_bots/smear_policy.py
name = "smear-policy"
game = "{GAME}"
players = {PLAYERS}
schedule = "round_robin"
games = {games}
seed = 7
concurrency = 1
database = "{out / 'referee.sqlite'}"
log_dir = "{out / 'logs'}"
params = {{ max_rounds = {rounds} }}

[clock]
decision_ms = 2000

[[bots]]
name = "policy"
command = "python -m referee bot from-policy sample_bots.smear_policy:load --with {shlex.quote(f'weights={weights}')}"

[[bots]]
name = "heuristic"
command = "python {root / 'heuristic_bot.py'} --seed 1"

[[bots]]
name = "random"
command = "python {root / 'random_bot.py'} --seed 2"
"""
    path = out / "smear_policy.toml"
    path.write_text(text)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="training time (0: use --weights as saved)")
    ap.add_argument("--weights", default="runs/smear_policy.npz", help="where the weights are saved / read")
    ap.add_argument("--out", default="runs/smear_policy", help="folder of the tournament's file, store and logs")
    ap.add_argument("--games", type=int, default=2, help="repetitions of the tournament's schedule")
    ap.add_argument("--rounds", type=int, default=20, help="rounds per match (max_rounds)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--evaluate", type=int, default=0, metavar="EPISODES",
                    help="instead of the tournament: the mean round reward against the heuristic of the policy, "
                    "of the first allowed index and of a random allowed index, over EPISODES one-round deals")
    args = ap.parse_args(argv)
    weights = Path(args.weights).resolve()
    weights.parent.mkdir(parents=True, exist_ok=True)
    if args.seconds > 0:
        np.savez(weights, w=train(args.seconds, args.seed))
        print(f"weights saved to {weights}")
    if args.evaluate > 0:
        print(f"mean round reward against the heuristic (seat 0 of 3), {args.evaluate} one-round deals:")
        for name, policy in (("trained policy (greedy)", load(str(weights))), ("first allowed index", first_allowed),
                             ("random allowed index", random_allowed(args.seed))):
            mean, err = evaluate(policy, args.evaluate)
            print(f"  {name:<24} {mean:+.3f} +- {err:.3f}")
        return 0
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    spec = tournament_file(weights, out, args.games, args.rounds)
    print(f"tournament: {spec}")
    return subprocess.run([sys.executable, "-m", "referee", "tournament", "run", str(spec), "--fresh"],
                          cwd=Path(__file__).resolve().parent.parent).returncode


if __name__ == "__main__":
    sys.exit(main())
