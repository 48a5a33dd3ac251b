"""Training environments over the referee's engines (docs/envs.md).

An optional extra: ``pip install -e '.[envs]'`` in a checkout (``pip install
"<the .whl file>[envs]"`` with the wheel) brings PettingZoo and Gymnasium.
The index space and observation arrays (:mod:`.actions`, :mod:`.encode`)
need only numpy, so a bot made from a policy (:mod:`referee.policybot`)
runs without them.

What is particular to a game is in its package, ``referee/games/<game>/envs.py``
(found through :func:`referee.games.envs_module`): ``PLAYERS`` (the player
count by default), ``BID_AMOUNTS`` (the bids with an index of their own),
``match_scores(game)`` (each seat's match score so far, the rewards' unit),
``encode(writer, observation, kind)`` (the observation array from the
observation message, with :class:`.encode.Writer`), ``encode_state(writer,
game, kind)`` (the same array from the engine), ``update(arrays, offsets,
game, records)`` (every seat's array kept from an action's events) and,
optionally, ``state_decision(game)`` (masks from the engine's rules) and,
for a game whose engine does not list every legal action,
``oracle(observation, kind, legal, complete)`` (:mod:`.actions`).

* :func:`aec_env` -- a PettingZoo ``AECEnv``, one agent per seat;
* :func:`parallel_env` -- the same as a PettingZoo ``ParallelEnv`` (turn
  based: only the seat to act has a non-zero action mask);
* :func:`single_agent_env` -- a Gymnasium ``Env`` for one seat, the other
  seats played by given policies (e.g. the sample heuristics).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from referee.games import GAME_IDS

from .actions import CARD_CODES, ActionLayout, Decision, IllegalIndex
from .encode import Encoder, Segment
from .table import Table, split_options

#: the games with environments: every game (each provides ``referee/games/<game>/envs.py``)
GAMES = GAME_IDS

_MISSING = ("referee.envs needs PettingZoo and Gymnasium, the envs extra: pip install -e '.[envs]' in a checkout, "
            "pip install \"<the .whl file>[envs]\" with the wheel (missing: {name})")


def _need(name: str) -> None:
    try:
        __import__(name)
    except ImportError as e:
        raise ImportError(_MISSING.format(name=name)) from e


def aec_env(game: str, players: int | None = None, seed: int | None = None, *, render_mode: str | None = None,
            illegal: str = "raise", **options: Any):
    """A PettingZoo ``AECEnv`` playing matches of ``game`` (a game id of
    :data:`GAMES`) with ``players`` seats (default: the game's ``PLAYERS``,
    ``referee/games/<game>/envs.py``). ``seed`` seeds the deals of the
    matches of successive ``reset()`` calls (``reset(seed=s)`` restarts them
    from ``s``). ``options``: the game's variant flags and match
    parameters by name (e.g. ``rounds=1`` for Dou Dizhu, ``max_rounds=5``
    for Smear). ``illegal``: ``"raise"`` (a masked index raises
    :class:`IllegalIndex`) or ``"fallback"`` (the engine's fallback action is
    played instead). ``ValueError`` for an unknown game, player count or
    option; ``ImportError`` without the ``envs`` extra."""
    _need("pettingzoo")
    from .aec import CardGameEnv  # imported here: PettingZoo is an optional extra ([envs])

    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    variant, params = split_options(game, options)
    return CardGameEnv(game, players, seed, variant, params, render_mode, illegal)


def parallel_env(game: str, players: int | None = None, seed: int | None = None, **kw: Any):
    """:func:`aec_env` as a PettingZoo ``ParallelEnv`` (PettingZoo's
    turn-based conversion: every agent gives an action each step; only the
    seat to act has a non-zero action mask, and only its action is taken)."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # an optional extra ([envs])

    return turn_based_aec_to_parallel(aec_env(game, players, seed, **kw))


def single_agent_env(game: str, players: int | None = None, seat: int = 0,
                     opponents: Sequence[Any] | str = "heuristic", seed: int | None = None, **kw: Any):
    """A Gymnasium ``Env`` for seat ``seat`` of ``game``; the other seats are
    played by ``opponents`` (see :class:`referee.envs.single.SingleAgentEnv`)."""
    _need("gymnasium")
    from .single import SingleAgentEnv  # imported here: Gymnasium is an optional extra ([envs])

    return SingleAgentEnv(game, players, seat, opponents, seed, **kw)


def observation_policy(fn: Callable[[dict], int]):
    """Mark ``fn`` (observation dict -> action index) as a policy over these
    observations, for :func:`single_agent_env`'s ``opponents``."""
    from .single import ObservationPolicy  # imported here: .single needs Gymnasium, an optional extra

    return ObservationPolicy(fn)


__all__ = ["aec_env", "parallel_env", "single_agent_env", "observation_policy", "GAMES", "ActionLayout",
           "Decision", "Encoder", "Segment", "IllegalIndex", "CARD_CODES", "Table"]
