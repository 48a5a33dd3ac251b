"""In-process play without gRPC: for tests, heuristic tuning and benchmarks.

A *policy* is a function ``DecisionRequest -> Action`` (protocol messages),
exactly what a bot computes, so a sample bot's decision function can be
evaluated here without sockets.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from cardgames.v1 import referee_pb2 as pb
from referee.engine import Game, IllegalAction, MatchResult, seeded_rng
from referee.games import game_class
from referee.protocol import action_from_pb, decision_request

Policy = Callable[[pb.DecisionRequest], pb.Action]


def random_policy(seed: int) -> Policy:
    """Uniform choice among the legal actions sent (what sample_bots/random_bot.py does)."""
    rng = random.Random(seed)

    def choose(req: pb.DecisionRequest) -> pb.Action:
        return rng.choice(list(req.legal_actions))

    return choose


def play_local(game: str, players: int, policies: Sequence[Policy], seed: int,
               variant: dict[str, Any] | None = None, params: dict[str, Any] | None = None,
               max_decisions: int = 1_000_000) -> tuple[Game, MatchResult, int]:
    """Play one match in process; seat ``i`` uses ``policies[i]``.

    An illegal answer is replaced by the engine's fallback action (like the
    runner's ``default_action`` policy). Returns ``(game, result, illegal_count)``.
    Raises ``RuntimeError`` if the match does not end within ``max_decisions``.
    """
    g = game_class(game)(players, variant, params, seeded_rng(seed))
    illegal = 0
    for n in range(max_decisions):
        seat = g.to_act
        if seat is None:
            return g, g.result(), illegal
        req = decision_request(g, "local", n + 1, 1000, 0)
        try:
            g.apply(seat, action_from_pb(policies[seat](req)))
        except (IllegalAction, ValueError):
            illegal += 1
            g.apply(seat, g.fallback_action())
        g.pop_events()
    raise RuntimeError(f"{game}: match did not end within {max_decisions} decisions")
