"""Engine-only measurements (no sockets, one thread, so one core).

* seeded random playouts: one-round matches (``rounds/s``) and full matches
  with the game's default parameters (``matches/s``);
* ``legal_actions()`` time per decision (first call of each decision, so no
  per-state cache helps);
* engine time per decision of what a refereed match does for one decision:
  ``legal_actions()`` + the seat's ``DecisionRequest`` built as the referee
  hands it to gRPC (``protocol.decision_message``, observation built by the
  game's view) and serialised as gRPC does + ``action_from_pb``
  + ``apply`` (which validates)
  + ``pop_events()`` with each event's message built (``protocol.event_payload``,
  as the runner does). The bot's choice is not timed.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from referee.engine import Game
from referee.games import game_class, implemented
from cardgames.v1 import referee_pb2 as pb
from referee.protocol import action_from_pb, action_to_pb, decision_message, event_payload, game_observation

#: per game: (players, match parameters of a one-round match)
ONE_ROUND: dict[str, tuple[int, dict[str, Any]]] = {
    "doudizhu": (3, {"rounds": 1}),
    "tractor": (4, {"max_rounds": 1}),
    "smear": (3, {"max_rounds": 1}),
    "president": (4, {"max_rounds": 1}),
    "back_alley": (4, {"last_round": 1}),
}
MAX_DECISIONS = 200_000  # bound of one playout (an engine bug must not spin forever)


def games() -> list[str]:
    """Implemented games that the bench knows how to size."""
    return [g for g in implemented() if g in ONE_ROUND]


def new_game(game: str, seed: int, params: dict[str, Any] | None = None, players: int | None = None) -> Game:
    n, p1 = ONE_ROUND[game]
    return game_class(game)(players or n, None, p1 if params is None else params, random.Random(seed))


def rounds_played(g: Game) -> int:
    """Rounds (deals) a finished match played, read from the engine's own counter."""
    for attr in ("round", "round_number"):
        v = getattr(g, attr, None)
        if isinstance(v, int):
            return v
    k, first = getattr(g, "round_index", None), getattr(g, "params", {}).get("first_round")
    if isinstance(k, int) and isinstance(first, int):
        return min(k, g.params["last_round"]) - first + 1
    return 1


def playout(g: Game, rng: random.Random) -> int:
    """Play ``g`` to the end with uniformly random legal actions; returns decisions."""
    d = 0
    while (s := g.to_act) is not None:
        legal, _ = g.legal_actions()
        g.apply(s, rng.choice(legal))
        g.pop_events()
        d += 1
        if d > MAX_DECISIONS:
            raise RuntimeError(f"{g.name}: playout did not end within {MAX_DECISIONS} decisions")
    return d


def throughput(game: str, seconds: float, seed0: int = 0, full: bool = False,
               min_matches: int = 1) -> dict[str, float]:
    """Playouts for ``seconds`` of wall time (at least ``min_matches``):
    matches, rounds and decisions per CPU second of this single-threaded
    process, i.e. per second of one core (other load on the machine does not
    count against it); ``seconds`` is the wall time it took."""
    params = {} if full else None
    c0 = time.process_time()
    t0 = time.perf_counter()
    m = r = d = 0
    while m < min_matches or time.perf_counter() - t0 < seconds:
        g = new_game(game, seed0 + m, params)
        d += playout(g, random.Random(seed0 + m + 7919))
        r += rounds_played(g)
        m += 1
    el = time.perf_counter() - t0
    cpu = max(1e-9, time.process_time() - c0)
    return {"matches": m, "rounds": r, "decisions": d, "seconds": el, "cpu_seconds": cpu,
            "matches_per_s": m / cpu, "rounds_per_s": r / cpu, "decisions_per_s": d / cpu}


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def per_decision(game: str, seconds: float, seed0: int = 10_000) -> dict[str, Any]:
    """Per-decision timings (microseconds) over one-round playouts for ``seconds``.

    ``legal_us``: first ``legal_actions()`` call of the decision.
    ``refereed_us``: legal + DecisionRequest built and serialised + action_from_pb + apply + pop_events
    (each event's message built).
    Also the parts and the median encoded request size (bytes on the wire). Even
    decisions are timed as the referee runs them (nothing called before);
    ``observation_us`` comes from the odd ones, so no figure is helped by a
    cache the bench itself warmed.
    """
    legal: list[float] = []
    obs_t: list[float] = []
    req_t: list[float] = []
    apply_t: list[float] = []
    total: list[float] = []
    sizes: list[int] = []
    sample_reqs: list[tuple[int, bytes]] = []
    ns = time.perf_counter_ns
    t0 = time.perf_counter()
    m = 0
    while m < 1 or time.perf_counter() - t0 < seconds:
        g = new_game(game, seed0 + m)
        rng = random.Random(seed0 + m)
        d = 0
        while (s := g.to_act) is not None:
            if d % 2:
                # odd decisions: the engine's observation() alone (its share of the
                # request); the call warms the engines' per-state caches, so these
                # decisions are left out of the other figures
                o = ns()
                game_observation(g, s)
                obs_t.append((ns() - o) / 1e3)
                g.apply(s, rng.choice(g.legal_actions()[0]))
                g.pop_events()
                d += 1
                continue
            a = ns()
            legal_list = g.legal_actions()[0]
            b = ns()
            # as the referee hands it to gRPC, and as gRPC serialises it
            wire = decision_message(g, "bench", d + 1, 1000, 0).SerializeToString()
            c = ns()
            choice = action_to_pb(rng.choice(legal_list))  # the bot's part: not timed
            e = ns()
            g.apply(s, action_from_pb(choice))
            for ev in g.pop_events():
                event_payload(game, ev)
            f = ns()
            legal.append((b - a) / 1e3)
            req_t.append((c - b) / 1e3)
            apply_t.append((f - e) / 1e3)
            total.append((b - a + c - b + f - e) / 1e3)
            if len(sizes) < 5000:
                if d % 7 == 0 and len(sample_reqs) < 200:
                    req = pb.RefereeMessage.FromString(wire).decision_request
                    sample_reqs.append((req.ByteSize(), req.SerializeToString()))
                sizes.append(len(wire))
            d += 1
            if d > MAX_DECISIONS:
                raise RuntimeError(f"{game}: playout did not end within {MAX_DECISIONS} decisions")
        m += 1
    sample_reqs.sort()
    return {
        "decisions": len(total),
        "legal_us_median": statistics.median(legal), "legal_us_p99": _pct(legal, 0.99),
        "request_us_median": statistics.median(req_t), "apply_us_median": statistics.median(apply_t),
        "observation_us_median": statistics.median(obs_t),
        "refereed_us_median": statistics.median(total), "refereed_us_p99": _pct(total, 0.99),
        "request_bytes_median": int(statistics.median(sizes)),
        # a DecisionRequest of median size, for the echo baseline
        "sample_request": sample_reqs[len(sample_reqs) // 2][1] if sample_reqs else b"",
    }


def doudizhu_games(seconds: float, seed0: int) -> tuple[int, float]:
    """3-player Dou Dizhu one-round matches for ``seconds``: (games with a play
    phase, CPU seconds used). Redeals (everyone passed the auction) are played and
    timed but not counted as games, to compare with peers' full games."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    k = games_ = 0
    while k < 1 or time.perf_counter() - t0 < seconds:
        g = new_game("doudizhu", seed0 + k)
        playout(g, random.Random(seed0 + k + 7919))
        k += 1
        if g.result().outcomes:  # a redeal yields no landlord-vs-peasants outcome
            games_ += 1
    return games_, max(1e-9, time.process_time() - c0)


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0
