"""The ``envs`` section: training-environment steps per second per game
(referee.envs, docs/envs.md), against RLCard's Dou Dizhu environment.

Each game's PettingZoo AEC environment is driven the way a training loop
drives it: ``agent_iter()``, ``last()`` (the observation array and action
mask of the agent to act), a uniformly random allowed index, ``step()``.
A no-op environment driven by the same loop shows what the loop itself
costs. A *step* is one index step (a card of a multi-card play is a step of its
own, see docs/envs.md); a *game* is one round (the environments are made
with one-round matches, like RLCard's Dou Dizhu game). Figures are per CPU
second of this single-threaded process. Every game is measured twice: from
the source in this process, and from the compiled build (what ``make
wheel`` builds, :mod:`bench.compiled`) in a child process
(``python -m bench.envs``); the targets are judged on the compiled build.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path
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


def compiled_run(tree: Path, seconds: float, seed: int) -> dict[str, tuple[int, int, float]]:
    """:func:`env_run` of every game in a child process importing the
    compiled build at ``tree`` (:mod:`bench.compiled`): game -> (index
    steps, games, CPU seconds). ``RuntimeError`` if the child fails or
    imported the source instead."""
    from bench import compiled

    r = subprocess.run([sys.executable, "-m", "bench.envs", str(seconds), str(seed)], cwd=tree,
                       env=compiled.environment(tree), capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"the compiled environments failed: {r.stderr.strip()[-2000:]}")
    out = json.loads(r.stdout)
    if not out.pop("compiled"):
        raise RuntimeError(f"{tree} did not import as the compiled build")
    return {g: tuple(x) for g, x in out.items()}


def _median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def run(quick: bool, reps: int) -> dict[str, Any]:
    """Steps and games per CPU second per game (medians of ``reps``), of the
    source (this process) and of the compiled build (a child process, when
    it can be built: ``"compiled": None`` and the reason in
    ``"compiled_note"`` otherwise), and RLCard's Dou Dizhu environment
    (``env.run`` with random agents) when installed, interleaved with ours."""
    from bench import compiled, peers

    slice_s = 0.3 if quick else 2.0
    rl = peers.make_rlcard_env()
    tree = compiled.tree(say=lambda line: print("   " + line, flush=True))
    out: dict[str, Any] = {"games": {}, "rlcard": None, "note": rl if isinstance(rl, str) else None,
                           "compiled": None, "compiled_note": tree if isinstance(tree, str) else None}
    per: dict[str, list[tuple[float, float]]] = {g: [] for g in CONFIGS}
    per_c: dict[str, list[tuple[float, float]]] = {g: [] for g in CONFIGS}
    rl_runs: list[float] = []
    ratios: list[float] = []
    ratios_c: list[float] = []
    idle: list[float] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rep in range(reps):
            for g in CONFIGS:
                steps, games, cpu = env_run(g, slice_s, 1000 + rep)
                per[g].append((steps / cpu, games / cpu))
            if isinstance(tree, Path):
                for g, (steps, games, cpu) in compiled_run(tree, slice_s, 1000 + rep).items():
                    per_c[g].append((steps / cpu, games / cpu))
            steps, cpu = loop_run(slice_s / 2, rep)
            idle.append(steps / cpu)
            if not isinstance(rl, str):
                n, cpu = rl[1](slice_s)
                rl_runs.append(n / cpu)
                ratios.append(per["doudizhu"][-1][1] / (n / cpu))
                if isinstance(tree, Path):
                    ratios_c.append(per_c["doudizhu"][-1][1] / (n / cpu))

    def medians(runs: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
        return {g: {"players": CONFIGS[g][0], "steps_per_s": _median([x[0] for x in xs]),
                    "games_per_s": _median([x[1] for x in xs])} for g, xs in runs.items()}

    out["games"] = medians(per)
    if isinstance(tree, Path):
        out["compiled"] = medians(per_c)
    out["loop_steps_per_s"] = _median(idle)
    if rl_runs:
        out["rlcard"] = {"label": rl[0], "games_per_s": _median(rl_runs), "ours_over_theirs": _median(ratios),
                         "compiled_over_theirs": _median(ratios_c) if ratios_c else None}
    return out


def report(r: dict[str, Any], say: Any, fmt: Any) -> None:
    say("\n-- training environments (referee.envs, PettingZoo AEC loop, random allowed index), per CPU second"
        " of one core; one-round matches; source = this checkout's Python, compiled = the compiled build"
        " (make wheel)")
    c = r["compiled"]
    say(f"{'game':<11} {'players':>7} {'source steps/s':>15} {'games/s':>9} {'compiled steps/s':>17} {'games/s':>9}")
    for g, x in r["games"].items():
        cs = f"{fmt(c[g]['steps_per_s'], 0):>17} {fmt(c[g]['games_per_s']):>9}" if c else f"{'-':>17} {'-':>9}"
        say(f"{g:<11} {x['players']:>7} {fmt(x['steps_per_s'], 0):>15} {fmt(x['games_per_s']):>9} {cs}")
    if not c:
        say(f"   compiled build not measured: {r['compiled_note']}")
    if r["rlcard"]:
        x = r["rlcard"]
        line = (f"{x['label']:<32} {fmt(x['games_per_s']):>9} games/s; ours (doudizhu env) / theirs = "
                f"{fmt(x['ours_over_theirs'], 2)}x")
        if x.get("compiled_over_theirs") is not None:
            line += f", compiled {fmt(x['compiled_over_theirs'], 2)}x"
        say(line)
    elif r["note"]:
        say(f"   {r['note']}")
    x = r["games"]["doudizhu"]
    per_game = x["steps_per_s"] / x["games_per_s"]
    say(f"{'the same loop, environment doing nothing':<42} {fmt(r['loop_steps_per_s'], 0):>15} steps/s: at "
        f"{per_game:.0f} steps a Dou Dizhu game, at most {fmt(r['loop_steps_per_s'] / per_game)} games/s")
    say("   step = one index step (each card of a multi-card play is one); game = one round")


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The envs section's targets (``what``, ``measured``, ``met``), on the
    compiled build's figures (what ``make wheel`` installs), or on the
    source's when the compiled build could not be made (``what`` says
    which). Without RLCard the comparison with it has ``"met": None`` and
    the reason in ``"not_measured"``."""
    out: list[dict[str, Any]] = []
    c = r.get("compiled")
    build = "compiled build" if c else "source, no compiled build"
    what = (f"Dou Dizhu environment games/s ({build}) >= 20x RLCard's Dou Dizhu environment "
            "(env.run, random agents)")
    if r["rlcard"]:
        x = r["rlcard"]["compiled_over_theirs"] if c else r["rlcard"]["ours_over_theirs"]
        out.append({"what": what.replace("RLCard's", r["rlcard"]["label"] + ","),
                    "measured": f"{x:.2f}x", "met": x >= 20.0})
    else:
        missing = r["note"] is None or r["note"].startswith("RLCard not available (ModuleNotFoundError")
        out.append({"what": what, "measured": "", "met": None,
                    "not_measured": "RLCard not installed (pip install rlcard)" if missing else r["note"]})
    x = (c or r["games"])[LIGHTEST]
    out.append({"what": f">= 50,000 env steps/s on the lightest game ({LIGHTEST}, {x['players']} players: the "
                        f"fewest cards a round), one core ({build})",
                "measured": f"{x['steps_per_s']:,.0f} steps/s", "met": x["steps_per_s"] >= 50_000})
    return out


def _child(argv: list[str]) -> None:
    """``python -m bench.envs SECONDS SEED``: :func:`env_run` of every game,
    printed as JSON (game -> [steps, games, CPU seconds]) with
    ``"compiled"``: whether ``referee`` came from the compiled build."""
    import importlib

    from bench import compiled

    seconds, seed = float(argv[0]), int(argv[1])
    out: dict[str, Any] = {"compiled": compiled.is_compiled(importlib.import_module(compiled.PROBE))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in CONFIGS:
            out[g] = env_run(g, seconds, seed)
    print(json.dumps(out))


if __name__ == "__main__":
    _child(sys.argv[1:])
