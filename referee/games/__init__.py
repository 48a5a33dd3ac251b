"""Registry of games: the one place that lists them, and how every other
layer reaches a game's code.

Each game lives in its package ``referee/games/<id>/``:

* ``__init__.py`` exports ``GAME``, its :class:`referee.engine.Game`
  subclass (:func:`game_class`); ``rules.py`` and ``game.py`` are the
  engine (pure: no protobuf, no I/O), ``events.py`` its event records;
* ``view.py``: what a seat is sent, ``observation(game, seat)`` and
  ``event_message(record)`` (protobuf messages; :func:`view_module`);
* ``conformance.py`` exports ``QUERIES`` (query kind -> function(case dict)
  -> answer dict), see :mod:`referee.conformance` (:func:`conformance_module`);
* ``meta.py`` exports ``META``, a :class:`referee.games.metakit.GameMeta`:
  the game's name, its roles in the leaderboard's tables and the summary
  line of each round (:func:`game_meta`);
* ``replay.py`` exports ``TABLE``, the replay viewer's renderer of the
  game's events: a :class:`referee.web.table.Table` subclass
  (:func:`replay_module`);
* ``envs.py``: the game in the training environments, its action table and
  observation encoder (:func:`envs_module`; numpy, imported only by
  :mod:`referee.envs`).

A game whose package is absent is "not implemented yet": the CLI refuses it
and the conformance runner skips its cases.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from referee.engine import Game
from referee.games.metakit import GameMeta

#: every game id the protocol knows, with its module path
GAME_IDS: tuple[str, ...] = ("doudizhu", "tractor", "smear", "president", "back_alley")


class UnknownGame(LookupError):
    """A game id that is not known or not implemented."""


def _module(game: str, sub: str = "") -> ModuleType | None:
    if game not in GAME_IDS:
        raise UnknownGame(f"unknown game {game!r}; games: {', '.join(GAME_IDS)}")
    name = f"referee.games.{game}" + (f".{sub}" if sub else "")
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and (name == e.name or name.startswith(e.name + ".")):
            return None
        raise
    if not sub and not hasattr(mod, "GAME"):
        return None  # a package still being written (no GAME exported yet)
    return mod


def implemented() -> list[str]:
    """Ids of the games whose engine is present."""
    return [g for g in GAME_IDS if _module(g) is not None]


def game_class(game: str) -> type[Game]:
    """The engine class of ``game``; :class:`UnknownGame` if unknown or not implemented."""
    mod = _module(game)
    if mod is None:
        raise UnknownGame(f"game {game!r} is not implemented yet; implemented: {', '.join(implemented())}")
    return mod.GAME


_PARTS: dict[tuple[str, str], ModuleType] = {}


def _part(game: str, sub: str) -> ModuleType:
    """The module ``referee.games.<game>.<sub>`` of an implemented game, imported once."""
    m = _PARTS.get((game, sub))
    if m is None:
        game_class(game)  # UnknownGame unless implemented
        m = _PARTS[(game, sub)] = importlib.import_module(f"referee.games.{game}.{sub}")
    return m


def view_module(game: str) -> ModuleType:
    """The game's view module (``referee.games.<game>.view``: ``observation(game,
    seat)`` -> the game's observation message, ``event_message(record)`` -> its
    event message; see :mod:`referee.engine`). :class:`UnknownGame` if the game is unknown or not
    implemented; ``ModuleNotFoundError`` if an implemented game has no view."""
    return _part(game, "view")


def conformance_module(game: str) -> ModuleType | None:
    """The game's conformance module (with ``QUERIES``), or ``None`` if not implemented."""
    if _module(game) is None:
        return None
    return _module(game, "conformance")


def game_meta(game: str) -> GameMeta:
    """The game's :class:`~referee.games.metakit.GameMeta` (``META`` of
    ``referee.games.<game>.meta``). :class:`UnknownGame` if the game is
    unknown or not implemented; ``ModuleNotFoundError`` if it has no meta module."""
    return _part(game, "meta").META


def replay_module(game: str) -> ModuleType:
    """The game's replay renderer module (``referee.games.<game>.replay``,
    exporting ``TABLE``, a :class:`referee.web.table.Table` subclass).
    :class:`UnknownGame` if the game is unknown or not implemented;
    ``ModuleNotFoundError`` if it has no renderer."""
    return _part(game, "replay")


def envs_module(game: str) -> ModuleType:
    """The game's module of the training environments
    (``referee.games.<game>.envs``: ``PLAYERS``, ``BID_AMOUNTS``,
    ``match_scores(game)``, ``encode(writer, observation, kind)`` (the
    array from the observation message), ``encode_state(writer, game,
    kind)`` (the same array from the engine), ``update(arrays, offsets,
    game, records) -> bool`` (the arrays kept from an action's events);
    optional: ``state_decision(game)`` (the actions without cards and the
    card oracle, from the engine) and, for a game whose legal lists may be
    incomplete, ``oracle(observation, kind, legal, complete)``; see
    :mod:`referee.envs`). It imports numpy: only
    :mod:`referee.envs` asks for it. :class:`UnknownGame` if the game is
    unknown or not implemented; ``ModuleNotFoundError`` if it has no such module."""
    return _part(game, "envs")
