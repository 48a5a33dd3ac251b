"""Conversions between engine objects and protocol v1 messages.

Everything the referee sends a seat about a game is built here as plain
protobuf messages, from the game's view module (:func:`referee.games.view_module`:
``observation(game, seat)``, ``event_message(record)``) and the engine's
``legal_actions()``, so the leak tests can recompute it; gRPC serialises the
messages. Generic across games: no game's field appears here. The match
log's JSON of a message is :func:`message_to_json`.
"""

from __future__ import annotations

from typing import Any, Iterable

from google.protobuf import descriptor as _descriptor, json_format
from google.protobuf.struct_pb2 import Struct

from cardgames.v1 import referee_pb2 as pb
from referee.cards import ALL_CODES
from referee.engine import Action, Event, Game
from referee.games import view_module

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
    """Protocol ``Action`` -> engine :class:`Action`. Raises :class:`MalformedAction`
    for an unspecified/unknown kind or a card code that is not one of CONVENTIONS.md's codes."""
    kind = _ACTION_KIND_FROM_PB.get(m.kind)
    if kind is None:
        raise MalformedAction(f"action kind {m.kind} is not a valid ActionKind")
    cards = tuple(m.cards)
    for c in cards:
        if c not in ALL_CODES:
            raise MalformedAction(f"malformed card code {c!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
    return Action(kind, cards, int(m.amount))


def game_observation(game: Game, seat: int) -> Any:
    """The game's own observation message for ``seat`` (e.g. ``DouDizhuObservation``),
    built by its view module."""
    return view_module(game.name).observation(game, seat)


def decision_request(game: Game, match_id: str, request_id: int, time_left_ms: int, bank_left_ms: int,
                     events: Iterable[pb.Event] = ()) -> pb.DecisionRequest:
    """The ``DecisionRequest`` for the seat to act (``game.to_act``): its
    observation, the legal actions, the clock fields in milliseconds and
    ``events`` (the seat's bundled events, in order). ``ValueError`` once the
    match is over."""
    m = decision_message(game, match_id, request_id, time_left_ms, bank_left_ms, events)
    return m.decision_request


def decision_message(game: Game, match_id: str, request_id: int, time_left_ms: int, bank_left_ms: int,
                     events: Iterable[pb.Event] = ()) -> pb.RefereeMessage:
    """:func:`decision_request` in the ``RefereeMessage`` a seat is sent
    (built in place: a message assigned to a field is a copy)."""
    seat = game.to_act
    if seat is None:
        raise ValueError("no decision pending: the match is over")
    legal, complete = game.legal_actions()
    m = pb.RefereeMessage()
    r = m.decision_request
    r.match_id = match_id
    r.request_id = request_id
    r.seat = seat
    r.kind = _DECISION_KIND_TO_PB[game.decision_kind()]
    getattr(r.observation, game.name).CopyFrom(game_observation(game, seat))
    add = r.legal_actions.add
    for a in legal:
        add(kind=_ACTION_KIND_TO_PB[a.kind], cards=a.cards, amount=a.amount)
    r.legal_actions_complete = complete
    r.time_left_ms = time_left_ms
    r.bank_left_ms = bank_left_ms
    r.events.extend(events)
    return m


def event_payload(game_name: str, ev: Event) -> Any:
    """The game's event message (e.g. ``DouDizhuEvent``) of an engine event,
    built by the game's view module from ``ev.record``."""
    return view_module(game_name).event_message(ev.record)


def event_pb(game_name: str, match_id: str, seq: int, ev: Event, payload: Any = None) -> pb.Event:
    """Protocol ``Event`` for an engine event (``is_private`` set when addressed to
    one seat); ``payload``: its :func:`event_payload`, if already built."""
    return event_message(game_name, match_id, seq, ev, payload).event


def event_message(game_name: str, match_id: str, seq: int, ev: Event, payload: Any = None) -> pb.RefereeMessage:
    """:func:`event_pb` in the ``RefereeMessage`` a seat is sent."""
    m = pb.RefereeMessage()
    e = m.event
    e.match_id = match_id
    e.seq = seq
    e.is_private = ev.to is not None
    getattr(e, game_name).CopyFrom(event_payload(game_name, ev) if payload is None else payload)
    return m


def event_json(game_name: str, ev: Event, payload: Any = None) -> dict[str, Any]:
    """The event as the match log writes it: :func:`message_to_json` of its
    :func:`event_payload` (``payload``, if already built)."""
    return message_to_json(event_payload(game_name, ev) if payload is None else payload)


def to_struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


# ----------------------------------------------------------------------------- JSON of the match log
def message_to_json(m: Any) -> dict[str, Any]:
    """A protobuf message as a JSON-able dict (field names as in the .proto),
    with every field that has no presence written even when it equals its
    default (seat 0, amount 0, an empty card list: a reader never has to
    know the proto's defaults); message fields, oneof members and
    ``optional`` fields appear only when set.

    Exactly ``json_format.MessageToDict(m, preserving_proto_field_name=True,
    always_print_fields_with_no_presence=True)`` (match logs are compared
    with it on replay, see :func:`normalised_json`), computed by a converter
    made once per message type for the plain field kinds the game protos use:
    strings, bools, 32-bit and 64-bit integers (the latter as strings),
    enums (by name; unknown numbers as numbers) and nested messages. A message
    type with anything else (maps, floats, bytes, extensions, well-known types,
    enum values with JSON options) is handed to ``json_format`` whole.
    """
    conv = _JSON_CONVERTERS.get(m.DESCRIPTOR)
    if conv is None:
        conv = _json_converter(m.DESCRIPTOR)
    return conv(m)


def normalised_json(d: dict[str, Any], message_type: Any) -> dict[str, Any]:
    """``d`` (a message of ``message_type`` as JSON, e.g. from a match log
    written before defaults were written out) as :func:`message_to_json`
    writes it now. Raises ``json_format.ParseError`` if ``d`` is not such a
    message."""
    return message_to_json(json_format.ParseDict(d, message_type()))


_FD = _descriptor.FieldDescriptor
_PLAIN_SCALARS = frozenset({_FD.CPPTYPE_INT32, _FD.CPPTYPE_UINT32, _FD.CPPTYPE_STRING, _FD.CPPTYPE_BOOL})
_INT64_SCALARS = frozenset({_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64})
#: message descriptor -> its converter, see message_to_json
_JSON_CONVERTERS: dict[Any, Any] = {}


def _json_fallback(m: Any) -> dict[str, Any]:
    return json_format.MessageToDict(m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def _plain_type(d: Any, seen: set[Any]) -> bool:
    """True if every field of ``d`` (recursively) is of a kind the fast converter handles."""
    if d in seen:
        return True
    seen.add(d)
    if d.GetOptions().map_entry or d.file.name.startswith("google/protobuf/") or d.extension_ranges:
        return False
    for f in d.fields:
        if f.type == _FD.TYPE_BYTES:
            return False
        ct = f.cpp_type
        if ct == _FD.CPPTYPE_MESSAGE:
            if not _plain_type(f.message_type, seen):
                return False
        elif ct == _FD.CPPTYPE_ENUM:
            if f.enum_type.full_name == "google.protobuf.NullValue" or f.enum_type.is_closed:
                return False
            if any(v.GetOptions().ListFields() for v in f.enum_type.values):
                return False
        elif ct not in _PLAIN_SCALARS and ct not in _INT64_SCALARS:
            return False
    return True


def _json_converter(d: Any) -> Any:
    if not _plain_type(d, set()):
        _JSON_CONVERTERS[d] = _json_fallback
        return _json_fallback

    # Each field read by name (what ListFields costs per message, ~1 us with
    # upb, is as much as reading every field of a game's message), in lists by
    # kind, so that a field costs as few Python steps as it can.
    plain: list[str] = []  # no presence, the value as it is: written even at the default
    converted: list[tuple[str, Any]] = []  # no presence, a converted value (an enum, a message, an int64)
    repeated_plain: list[str] = []  # written even when empty
    repeated_converted: list[tuple[str, Any]] = []
    when_set: list[tuple[str, Any]] = []  # presence (a message, `optional`, a one-member oneof); fn or None
    oneofs: list[tuple[str, dict[str, Any]]] = []  # a oneof: its member that is set, if any; name -> fn or None

    def conv(m: Any) -> dict[str, Any]:
        js: dict[str, Any] = {}
        for name in plain:
            js[name] = getattr(m, name)
        for name, fn in converted:
            js[name] = fn(getattr(m, name))
        for name in repeated_plain:
            js[name] = list(getattr(m, name))
        for name, fn in repeated_converted:
            js[name] = [fn(x) for x in getattr(m, name)]
        for name, fn in when_set:
            if m.HasField(name):
                v = getattr(m, name)
                js[name] = v if fn is None else fn(v)
        for oneof, fns in oneofs:
            name = m.WhichOneof(oneof)
            if name is not None:
                v, fn = getattr(m, name), fns[name]
                js[name] = v if fn is None else fn(v)
        return js

    _JSON_CONVERTERS[d] = conv  # first: a message type nested in itself finds it

    def value_fn(f: Any) -> Any:
        ct = f.cpp_type
        if ct == _FD.CPPTYPE_MESSAGE:  # the nested type's converter itself
            return _JSON_CONVERTERS.get(f.message_type) or _json_converter(f.message_type)
        if ct == _FD.CPPTYPE_ENUM:
            names = {v.number: v.name for v in f.enum_type.values}
            return lambda v: names.get(v, v)
        if ct in _INT64_SCALARS:
            return str
        return None  # the value itself

    for f in d.fields:
        fn = value_fn(f)
        if f.is_repeated:
            if fn is None:
                repeated_plain.append(f.name)
            else:
                repeated_converted.append((f.name, fn))
        elif f.containing_oneof is not None and len(f.containing_oneof.fields) > 1:
            if f is f.containing_oneof.fields[0]:
                oneofs.append((f.containing_oneof.name, {m.name: value_fn(m) for m in f.containing_oneof.fields}))
        elif f.has_presence:
            when_set.append((f.name, fn))
        elif fn is None:
            plain.append(f.name)
        else:
            converted.append((f.name, fn))
    return conv
