"""Training environments over the referee's five engines (docs/envs.md).

An optional extra: ``pip install 'cardgame-referee[envs]'`` brings
PettingZoo and Gymnasium. The index space and observation arrays
(:mod:`.actions`, :mod:`.encode`) need only numpy, so a bot made from a
policy (:mod:`referee.policybot`) runs without them.

* :func:`aec_env` -- a PettingZoo ``AECEnv``, one agent per seat;
* :func:`parallel_env` -- the same as a PettingZoo ``ParallelEnv`` (turn
  based: only the seat to act has a non-zero action mask);
* :func:`single_agent_env` -- a Gymnasium ``Env`` for one seat, the other
  seats played by given policies (e.g. the sample heuristics).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .actions import CARD_CODES, ActionLayout, Decision, IllegalIndex
from .encode import Encoder, Segment
from .table import DEFAULT_PLAYERS, Table, split_options

GAMES = tuple(DEFAULT_PLAYERS)

_MISSING = ("referee.envs needs PettingZoo and Gymnasium: pip install 'cardgame-referee[envs]' "
            "(missing: {name})")


def _need(name: str) -> None:
    try:
        __import__(name)
    except ImportError as e:
        raise ImportError(_MISSING.format(name=name)) from e


def aec_env(game: str, players: int | None = None, seed: int | None = None, *, render_mode: str | None = None,
            illegal: str = "raise", **options: Any):
    """A PettingZoo ``AECEnv`` playing matches of ``game`` (``"doudizhu"``,
    ``"smear"``, ``"president"``, ``"tractor"``, ``"back_alley"``) with
    ``players`` seats (default: 3, 3, 4, 4, 4). ``seed`` seeds the deals of
    the matches of successive ``reset()`` calls (``reset(seed=s)`` restarts
    them from ``s``). ``options``: the game's variant flags and match
    parameters by name (e.g. ``rounds=1`` for Dou Dizhu, ``max_rounds=5``
    for Smear). ``illegal``: ``"raise"`` (a masked index raises
    :class:`IllegalIndex`) or ``"fallback"`` (the engine's fallback action is
    played instead). ``ValueError`` for an unknown game, player count or
    option; ``ImportError`` without the ``envs`` extra."""
    _need("pettingzoo")
    from .aec import CardGameEnv

    if game not in DEFAULT_PLAYERS:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    variant, params = split_options(game, options)
    return CardGameEnv(game, players, seed, variant, params, render_mode, illegal)


def parallel_env(game: str, players: int | None = None, seed: int | None = None, **kw: Any):
    """:func:`aec_env` as a PettingZoo ``ParallelEnv`` (PettingZoo's
    turn-based conversion: every agent gives an action each step; only the
    seat to act has a non-zero action mask, and only its action is taken)."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(aec_env(game, players, seed, **kw))


def single_agent_env(game: str, players: int | None = None, seat: int = 0,
                     opponents: Sequence[Any] | str = "heuristic", seed: int | None = None, **kw: Any):
    """A Gymnasium ``Env`` for seat ``seat`` of ``game``; the other seats are
    played by ``opponents`` (see :class:`referee.envs.single.SingleAgentEnv`)."""
    _need("gymnasium")
    from .single import SingleAgentEnv

    return SingleAgentEnv(game, players, seat, opponents, seed, **kw)


def observation_policy(fn: Callable[[dict], int]):
    """Mark ``fn`` (observation dict -> action index) as a policy over these
    observations, for :func:`single_agent_env`'s ``opponents``."""
    from .single import ObservationPolicy

    return ObservationPolicy(fn)


__all__ = ["aec_env", "parallel_env", "single_agent_env", "observation_policy", "GAMES", "ActionLayout",
           "Decision", "Encoder", "Segment", "IllegalIndex", "CARD_CODES", "Table"]
