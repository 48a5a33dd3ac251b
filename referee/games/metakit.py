"""What the games' ``meta.py`` modules describe themselves with.

Each game package's ``meta.py`` exports ``META``, a :class:`GameMeta`: what
the layers around the engine need to know of the game and nothing else
says:

* its name on the pages (:attr:`GameMeta.label`) and in the protocol
  reference (:attr:`GameMeta.short_label`);
* its roles, round by round, in the leaderboard's role tables
  (:attr:`GameMeta.role_events`, read from a stored match's ``summary``),
  with how their figures are named and explained (:attr:`GameMeta.won`,
  :attr:`GameMeta.value`, :attr:`GameMeta.role_note`);
* one readable line per round of a match log, which ``referee match`` prints
  (:attr:`GameMeta.round_lines`, read from the log's public events).

A meta module reads JSON only (a match result's ``summary``, a log's event
objects as the log writes them, ``json_format.MessageToDict`` with
defaults): no engine state, no protobuf, so the tournaments, the pages and
the CLI use it without importing either. It is found through
:func:`referee.games.game_meta`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple


class RoleEvent(NamedTuple):
    """One seat's role in one round: ``role`` (a name such as
    ``"landlord"``), ``won`` (whether the role won the round, ``None`` when
    the game does not say) and ``value`` (the round's figure of the role,
    see :attr:`GameMeta.value`; ``None`` when there is none)."""

    seat: int
    role: str
    won: bool | None
    value: float | None


@dataclass(frozen=True)
class RoleFigure:
    """A figure of the role tables: ``name`` is its key in the tables
    (``tournaments.details``; the won figure's rate is ``<name>_rate``),
    ``label`` its column heading on the leaderboard page and ``help`` that
    heading's tooltip."""

    name: str
    label: str
    help: str


#: the won figure of a game that gives it no name of its own
WON = RoleFigure("won", "won", "share of those rounds the role won")

#: ``role_events(summary, players)``: the summary is ``MatchResult.summary`` as stored (``{}`` when absent)
RoleEvents = Callable[[dict[str, Any], int], list[RoleEvent]]
#: ``round_lines(events, names)``: the log's public event objects in order, bot names in seat order
RoundLines = Callable[[Iterable[dict[str, Any]], list[str]], Iterator[str]]
#: ``(rounds, match params so far) -> the match parameters that make a match last that many rounds``
RoundsParams = Callable[[int, Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class GameMeta:
    """What a game tells the layers around its engine (see the module docstring).

    * ``label``: the game's name on the pages, e.g. ``"Cutthroat Canadian Smear"``;
    * ``short_label``: its section title in docs/protocol.md's generated
      reference, e.g. ``"Smear"``;
    * ``role_note``: what the leaderboard's role summary tells for this
      game, one clause (the page adds "; over every bot's rounds");
    * ``role_events(summary, players)``: every :class:`RoleEvent` of one
      match, round by round, from its stored summary; ``[]`` when the game
      has no roles. Must accept any summary its engine ever wrote;
    * ``round_lines(events, names)``: one line of text per round of the
      match, from the log's public events (each a ``dict`` with one key, the
      event kind, as the log writes the game's event message);
    * ``won``: how the tables name the count of rounds a role won;
    * ``value``: the figure a :class:`RoleEvent`'s ``value`` is averaged
      into (e.g. mean money per round), ``None`` when the game has none;
    * ``rounds_params(rounds, params)``: the match parameters that make a
      match last ``rounds`` rounds (the match form's "rounds"), given the
      parameters chosen so far; ``None``: the game's ``rounds`` or
      ``max_rounds`` parameter, whichever its engine has.
    """

    label: str
    short_label: str
    role_note: str
    role_events: RoleEvents
    round_lines: RoundLines
    won: RoleFigure = WON
    value: RoleFigure | None = None
    rounds_params: RoundsParams | None = None


def seat_text(names: list[str], seat: int) -> str:
    """``"seat 1 (bob)"``: a seat with its bot's name (``names`` in seat
    order), or ``"seat 7"`` for a seat without one."""
    return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) else f"seat {seat}"


def ints(values: Iterable[Any]) -> str:
    """Numbers of a log's JSON (ints, floats or digit strings) as ``"1 -2 3"``."""
    return " ".join(str(int(x)) for x in values)
