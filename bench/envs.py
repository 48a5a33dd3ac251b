"""The ``envs`` section: training-environment steps per second per game
(referee.envs, docs/envs.md), against RLCard's Dou Dizhu environment.

Each game's PettingZoo AEC environment is driven the way a training loop
drives it: ``agent_iter()``, ``last()`` (the observation array and action
mask of the agent to act), a uniformly random allowed index, ``step()``.
A no-op environment driven by the same loop shows what the loop itself
costs. A *step* is one index step (a card of a multi-card play is a step of its
own, see docs/envs.md); a *game* is one round (the environments are made
with one-round matches, like RLCard's Dou Dizhu game). Figures are per CPU
second of this single-threaded process.
"""

from __future__ import annotations

import random
import time
import warnings
from typing import Any

import numpy as np

#: one-round matches per game, and the player count measured
CONFIGS: dict[str, tuple[int, dict[str, Any]]] = {
    "doudizhu": (3, {"rounds": 1}),
    "smear": (3, {"max_rounds": 1}),
    "president": (4, {"max_rounds": 1}),
    "tractor": (4, {"max_rounds": 1}),
    "back_alley": (4, {"last_round": 1}),
}


#: the game the ">= 50,000 steps/s" target is measured on, by a fixed rule: the game with the fewest
#: cards in play a round, Smear with 3 players (6 cards each, 18 in all)
LIGHTEST = "smear"


def env_run(game: str, seconds: float, seed: int) -> tuple[int, int, float]:
    """Random masked play of ``game``'s AEC environment for ``seconds`` of
    wall time (at least one game): (index steps, games finished, CPU seconds)."""
    from referee.envs import aec_env

    players, options = CONFIGS[game]
    return drive(aec_env(game, players, seed=seed, **options), seconds, seed)


def drive(env: Any, seconds: float, seed: int) -> tuple[int, int, float]:
    """Random masked play of the AEC environment ``env``, one episode after
    another, for ``seconds`` of wall time (at least one episode): (index
    steps, episodes, CPU seconds)."""
    rng = random.Random(seed)
    steps = games = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while games < 1 or time.perf_counter() - t0 < seconds:
        env.reset()
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            allowed = np.flatnonzero(obs["action_mask"])
            env.step(int(allowed[rng.randrange(len(allowed))]))
            steps += 1
        games += 1
    return steps, games, max(1e-9, time.process_time() - c0)


def loop_run(seconds: float, seed: int) -> tuple[int, float]:
    """The same loop over an environment that does nothing (Dou Dizhu's
    observation and mask sizes, four allowed indices, 80-step episodes): what
    PettingZoo's loop and the random pick cost alone. (steps, CPU seconds)."""
    from pettingzoo import AECEnv

    class Idle(AECEnv):
        metadata = {"name": "idle"}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["seat_0", "seat_1", "seat_2"]
            self._obs = np.zeros(643, dtype=np.float32)
            self._mask = np.zeros(59, dtype=np.int8)
            self._mask[[0, 10, 20, 30]] = 1

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            agents = self.agents = list(self.possible_agents)
            self.rewards, self._cumulative_rewards = dict.fromkeys(agents, 0.0), dict.fromkeys(agents, 0.0)
            self.terminations, self.truncations = dict.fromkeys(agents, False), dict.fromkeys(agents, False)
            self.infos = {a: {} for a in agents}
            self.agent_selection, self._n = "seat_0", 0

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

        def step(self, action: Any) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self._n += 1
            if self._n == 80:
                for a in self.agents:
                    self.terminations[a] = True
            self.agent_selection = self.possible_agents[self._n % 3]

    steps, _, cpu = drive(Idle(), seconds, seed)
    return steps, cpu


def run(quick: bool, reps: int) -> dict[str, Any]:
    """Steps and games per CPU second per game (medians of ``reps``), and
    RLCard's Dou Dizhu environment (``env.run`` with random agents) when
    installed, interleaved with ours."""
    from bench import peers

    slice_s = 0.3 if quick else 2.0
    rl = peers.make_rlcard_env()
    out: dict[str, Any] = {"games": {}, "rlcard": None, "note": rl if isinstance(rl, str) else None}
    per: dict[str, list[tuple[float, float]]] = {g: [] for g in CONFIGS}
    rl_runs: list[float] = []
    ratios: list[float] = []
    idle: list[float] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in range(reps):
            for g in CONFIGS:
                steps, games, cpu = env_run(g, slice_s, 1000 + rep)
                per[g].append((steps / cpu, games / cpu))
            steps, cpu = loop_run(slice_s / 2, rep)
            idle.append(steps / cpu)
            if not isinstance(rl, str):
                n, cpu = rl[1](slice_s)
                rl_runs.append(n / cpu)
                ratios.append(per["doudizhu"][-1][1] / (n / cpu))
    for g, xs in per.items():
        xs_steps = sorted(x[0] for x in xs)
        xs_games = sorted(x[1] for x in xs)
        out["games"][g] = {"players": CONFIGS[g][0], "steps_per_s": xs_steps[len(xs) // 2],
                           "games_per_s": xs_games[len(xs) // 2]}
    out["loop_steps_per_s"] = sorted(idle)[len(idle) // 2]
    if rl_runs:
        out["rlcard"] = {"label": rl[0], "games_per_s": sorted(rl_runs)[len(rl_runs) // 2],
                         "ours_over_theirs": sorted(ratios)[len(ratios) // 2]}
    return out


def report(r: dict[str, Any], say: Any, fmt: Any) -> None:
    say("\n-- training environments (referee.envs, PettingZoo AEC loop, random allowed index), per CPU second"
        " of one core; one-round matches")
    say(f"{'game':<11} {'players':>7} {'env steps/s':>12} {'games/s':>9}")
    for g, x in r["games"].items():
        say(f"{g:<11} {x['players']:>7} {fmt(x['steps_per_s'], 0):>12} {fmt(x['games_per_s']):>9}")
    if r["rlcard"]:
        x = r["rlcard"]
        say(f"{x['label']:<32} {fmt(x['games_per_s']):>9} games/s; ours (doudizhu env) / theirs = "
            f"{fmt(x['ours_over_theirs'], 2)}x")
    elif r["note"]:
        say(f"   {r['note']}")
    x = r["games"]["doudizhu"]
    per_game = x["steps_per_s"] / x["games_per_s"]
    say(f"{'the same loop, environment doing nothing':<42} {fmt(r['loop_steps_per_s'], 0):>12} steps/s: at "
        f"{per_game:.0f} steps a Dou Dizhu game, at most {fmt(r['loop_steps_per_s'] / per_game)} games/s")
    say("   step = one index step (each card of a multi-card play is one); game = one round")


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The envs section's targets (``what``, ``measured``, ``met``). Without
    RLCard the comparison with it has ``"met": None`` and the reason in
    ``"not_measured"``."""
    out: list[dict[str, Any]] = []
    what = "Dou Dizhu environment games/s >= 20x RLCard's Dou Dizhu environment (env.run, random agents)"
    if r["rlcard"]:
        x = r["rlcard"]["ours_over_theirs"]
        out.append({"what": what.replace("RLCard's", r["rlcard"]["label"] + ","),
                    "measured": f"{x:.2f}x", "met": x >= 20.0})
    else:
        missing = r["note"] is None or r["note"].startswith("RLCard not available (ModuleNotFoundError")
        out.append({"what": what, "measured": "", "met": None,
                    "not_measured": "RLCard not installed (pip install rlcard)" if missing else r["note"]})
    x = r["games"][LIGHTEST]
    out.append({"what": f">= 50,000 env steps/s on the lightest game ({LIGHTEST}, {x['players']} players: the "
                        "fewest cards a round), one core",
                "measured": f"{x['steps_per_s']:,.0f} steps/s", "met": x["steps_per_s"] >= 50_000})
    return out
