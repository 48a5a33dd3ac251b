"""Peers for Dou Dizhu (3 players, one round = one game), random agents:

* RLCard 1.2.0 (``pip install rlcard``; pure Python + numpy): both
  ``env.run`` with ``RandomAgent`` (the environment as RL users drive it,
  which also encodes every state as numpy features) and the bare
  ``DoudizhuGame`` stepped with a uniformly random legal action (its engine
  alone, the fair match for our engine-only playouts). RLCard deals without
  an auction (the landlord is picked at random).
* OpenSpiel 2.0.2 ``dou_dizhu`` (``pip install open_spiel``; compiled C++
  behind pybind11): chance nodes (the deal) sampled uniformly, players pick
  uniformly among ``legal_actions()``. It has an auction like ours.

Both are optional (``pip install -e '.[bench]'``): a missing one is reported
and skipped. Each ``make_*`` returns ``(label, run(seconds) -> (games, CPU
seconds))`` (it plays for ``seconds`` of wall time, at least one game) or a
string saying why it is unavailable.
"""

from __future__ import annotations

import random
import time
import warnings
from typing import Callable

Runner = Callable[[float], tuple[int, float]]


def make_rlcard_env(seed: int = 1) -> tuple[str, Runner] | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import numpy  # noqa: F401  (RLCard needs it; a clearer message if it is missing)
            import rlcard
            from rlcard.agents import RandomAgent
    except Exception as e:  # ImportError, or numpy/rlcard version quirks at import
        return f"RLCard not available ({type(e).__name__}: {e}); pip install rlcard  (or -e '.[bench]')"
    try:
        env = rlcard.make("doudizhu", config={"seed": seed})
        env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    except Exception as e:
        return f"RLCard doudizhu env failed to start ({type(e).__name__}: {e})"

    def run(seconds: float) -> tuple[int, float]:
        c0 = time.process_time()
        t0 = time.perf_counter()
        k = 0
        while k < 1 or time.perf_counter() - t0 < seconds:
            env.run(is_training=False)
            k += 1
        return k, max(1e-9, time.process_time() - c0)

    return f"RLCard {getattr(rlcard, '__version__', '?')} env.run (RandomAgent)", run


def make_rlcard_game(seed: int = 1) -> tuple[str, Runner] | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import numpy as np
            import rlcard
            from rlcard.games.doudizhu.game import DoudizhuGame
    except Exception as e:  # the same words as make_rlcard_env's: the report says them once
        return f"RLCard not available ({type(e).__name__}: {e}); pip install rlcard  (or -e '.[bench]')"
    try:
        game = DoudizhuGame(np.random.RandomState(seed))
    except Exception as e:
        return f"RLCard DoudizhuGame failed to start ({type(e).__name__}: {e})"
    rng = random.Random(seed)

    def run(seconds: float) -> tuple[int, float]:
        c0 = time.process_time()
        t0 = time.perf_counter()
        k = 0
        while k < 1 or time.perf_counter() - t0 < seconds:
            state, _ = game.init_game()
            steps = 0
            while not game.is_over():
                state, _ = game.step(rng.choice(state["actions"]))
                steps += 1
                if steps > 10_000:
                    raise RuntimeError("RLCard game did not end")
            k += 1
        return k, max(1e-9, time.process_time() - c0)

    return f"RLCard {getattr(rlcard, '__version__', '?')} DoudizhuGame (engine only)", run


def make_openspiel(seed: int = 1) -> tuple[str, Runner] | str:
    try:
        import pyspiel
    except Exception as e:
        return f"OpenSpiel not available ({type(e).__name__}: {e}); pip install open_spiel  (or -e '.[bench]')"
    try:
        game = pyspiel.load_game("dou_dizhu")
    except Exception as e:
        return f"OpenSpiel dou_dizhu failed to load ({type(e).__name__}: {e})"
    rng = random.Random(seed)
    try:
        from importlib.metadata import version

        ver = version("open_spiel")
    except Exception:
        ver = "?"

    def run(seconds: float) -> tuple[int, float]:
        c0 = time.process_time()
        t0 = time.perf_counter()
        k = 0
        while k < 1 or time.perf_counter() - t0 < seconds:
            s = game.new_initial_state()
            steps = 0
            while not s.is_terminal():
                if s.is_chance_node():
                    outs = s.chance_outcomes()
                    s.apply_action(outs[rng.randrange(len(outs))][0])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                steps += 1
                if steps > 10_000:
                    raise RuntimeError("OpenSpiel game did not end")
            k += 1
        return k, max(1e-9, time.process_time() - c0)

    return f"OpenSpiel {ver} dou_dizhu (C++ via pybind11)", run
