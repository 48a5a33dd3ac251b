"""Registry of games.

Each game lives in ``referee/games/<id>/``: ``__init__.py`` exports ``GAME``
(its :class:`referee.engine.Game` subclass), ``rules.py`` and ``game.py`` are
the engine (pure: no protobuf), ``events.py`` its event records, ``view.py``
what a seat is sent (``observation(game, seat)`` and
``event_message(record)``, protobuf messages; see :func:`view_module`) and
``conformance.py`` exports ``QUERIES`` (query kind -> function(case dict) ->
answer dict), see :mod:`referee.conformance`. A game whose package is absent is "not
implemented yet": the CLI refuses it and the conformance runner skips its cases.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from referee.engine import Game

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


_VIEWS: dict[str, ModuleType] = {}


def view_module(game: str) -> ModuleType:
    """The game's view module (``referee.games.<game>.view``: ``observation(game,
    seat)`` -> the game's observation message, ``event_message(record)`` -> its
    event message; see :mod:`referee.engine`). :class:`UnknownGame` if the game is unknown or not
    implemented; ``ModuleNotFoundError`` if an implemented game has no view."""
    v = _VIEWS.get(game)
    if v is None:
        game_class(game)  # UnknownGame unless implemented
        v = _VIEWS[game] = importlib.import_module(f"referee.games.{game}.view")
    return v


def conformance_module(game: str) -> ModuleType | None:
    """The game's conformance module (with ``QUERIES``), or ``None`` if not implemented."""
    if _module(game) is None:
        return None
    return _module(game, "conformance")
