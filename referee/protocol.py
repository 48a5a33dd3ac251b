"""Conversions between engine objects and protocol v1 messages.

Everything the referee sends to a seat about game state is built here from
the engine's own per-seat methods (``observation(seat)``, ``legal_actions()``,
events addressed to that seat), so the leak tests can recompute it.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from cardgames.v1 import referee_pb2 as pb
from referee.engine import Action, Event, Game

PROTOCOL_VERSION = 1

_ACTION_KIND_TO_PB = {
    "PASS": pb.ACTION_KIND_PASS,
    "BID": pb.ACTION_KIND_BID,
    "PLAY": pb.ACTION_KIND_PLAY,
    "DECLARE": pb.ACTION_KIND_DECLARE,
    "DISCARD": pb.ACTION_KIND_DISCARD,
    "EXCHANGE": pb.ACTION_KIND_EXCHANGE,
}
_ACTION_KIND_FROM_PB = {v: k for k, v in _ACTION_KIND_TO_PB.items()}
_DECISION_KIND_TO_PB = {
    "BID": pb.DECISION_KIND_BID,
    "PLAY": pb.DECISION_KIND_PLAY,
    "DECLARE": pb.DECISION_KIND_DECLARE,
    "DISCARD": pb.DECISION_KIND_DISCARD,
    "EXCHANGE": pb.DECISION_KIND_EXCHANGE,
}


class MalformedAction(ValueError):
    """An ActionReply whose action cannot even be read (unknown kind, bad card code)."""


def action_to_pb(a: Action) -> pb.Action:
    """Engine :class:`Action` -> protocol ``Action``."""
    return pb.Action(kind=_ACTION_KIND_TO_PB[a.kind], cards=a.cards, amount=a.amount)


def action_from_pb(m: pb.Action) -> Action:
    """Protocol ``Action`` -> engine :class:`Action`.

    Raises :class:`MalformedAction` for an unspecified/unknown kind or a card
    code that is not one of CONVENTIONS.md's codes.
    """
    from referee.cards import ALL_CODES

    kind = _ACTION_KIND_FROM_PB.get(m.kind)
    if kind is None:
        raise MalformedAction(f"action kind {m.kind} is not a valid ActionKind")
    for c in m.cards:
        if c not in ALL_CODES:
            raise MalformedAction(f"malformed card code {c!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
    return Action(kind, tuple(m.cards), int(m.amount))


def decision_kind_pb(kind: str) -> int:
    return _DECISION_KIND_TO_PB[kind]


def observation_pb(game: Game, seat: int) -> pb.Observation:
    """The ``Observation`` for ``seat`` (wraps the game's typed observation)."""
    obs = pb.Observation()
    getattr(obs, game.name).CopyFrom(game.observation(seat))
    return obs


def decision_request(game: Game, match_id: str, request_id: int, time_left_ms: int,
                     bank_left_ms: int) -> pb.DecisionRequest:
    """The ``DecisionRequest`` for the seat to act (``game.to_act``)."""
    seat = game.to_act
    assert seat is not None, "no decision pending: the match is over"
    legal, complete = game.legal_actions()
    return pb.DecisionRequest(
        match_id=match_id,
        request_id=request_id,
        seat=seat,
        kind=_DECISION_KIND_TO_PB[game.decision_kind()],
        observation=observation_pb(game, seat),
        legal_actions=[action_to_pb(a) for a in legal],
        legal_actions_complete=complete,
        time_left_ms=time_left_ms,
        bank_left_ms=bank_left_ms,
    )


def event_pb(game_name: str, match_id: str, seq: int, ev: Event) -> pb.Event:
    """Protocol ``Event`` for an engine event (``private`` set when addressed to one seat)."""
    m = pb.Event(match_id=match_id, seq=seq, private=ev.to is not None)
    getattr(m, game_name).CopyFrom(ev.payload)
    return m


def to_struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


def message_to_json(m: Any) -> dict[str, Any]:
    """A protobuf message as a JSON-able dict (field names as in the .proto)."""
    return json_format.MessageToDict(m, preserving_proto_field_name=True)
