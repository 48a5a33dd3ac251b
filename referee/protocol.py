"""Conversions between engine objects and protocol v1 messages.

Everything the referee sends to a seat about game state is built here from
the engine's own per-seat methods (``observation(seat)``, ``legal_actions()``,
events addressed to that seat), so the leak tests can recompute it.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor as _descriptor, json_format
from google.protobuf.struct_pb2 import Struct

from cardgames.v1 import referee_pb2 as pb
from referee.cards import ALL_CODES
from referee.engine import Action, Event, Game
from referee.games._wire import int_field, key as _key, str_field, varint

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


#: an action's wire encoding -> its engine Action, for replies seen before (bots
#: answer from a small set of actions); cleared when full
_ACTION_MEMO: dict[bytes, Action] = {}
_ACTION_MEMO_MAX = 50_000


def action_from_pb(m: pb.Action) -> Action:
    """Protocol ``Action`` -> engine :class:`Action`.

    Raises :class:`MalformedAction` for an unspecified/unknown kind or a card
    code that is not one of CONVENTIONS.md's codes. Actions already converted
    once come from a memo keyed by their encoding (a third of the cost).
    """
    key = m.SerializeToString()
    a = _ACTION_MEMO.get(key)
    if a is None:
        a = _action_from_pb(m)  # raises before anything is memoised
        if len(_ACTION_MEMO) >= _ACTION_MEMO_MAX:
            _ACTION_MEMO.clear()
        _ACTION_MEMO[key] = a
    return a


def _action_from_pb(m: pb.Action) -> Action:
    kind = _ACTION_KIND_FROM_PB.get(m.kind)
    if kind is None:
        raise MalformedAction(f"action kind {m.kind} is not a valid ActionKind")
    cards = tuple(m.cards)
    for c in cards:
        if c not in ALL_CODES:
            raise MalformedAction(f"malformed card code {c!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
    return Action(kind, cards, int(m.amount))


def decision_kind_pb(kind: str) -> int:
    return _DECISION_KIND_TO_PB[kind]


def observation_pb(game: Game, seat: int) -> pb.Observation:
    """The ``Observation`` for ``seat`` (wraps the game's typed observation)."""
    obs = pb.Observation()
    getattr(obs, game.name).CopyFrom(game.observation(seat))
    return obs


def _fill_decision_request(r: pb.DecisionRequest, game: Game, match_id: str, request_id: int,
                           time_left_ms: int, bank_left_ms: int) -> None:
    # Filled in place: every sub-message assigned through a constructor or
    # appended as a message is a deep copy with upb, and this runs per decision.
    seat = game.to_act
    assert seat is not None, "no decision pending: the match is over"
    legal, complete = game.legal_actions()
    r.match_id = match_id
    r.request_id = request_id
    r.seat = seat
    r.kind = _DECISION_KIND_TO_PB[game.decision_kind()]
    ob = game.observation_bytes(seat)
    if ob is None:
        getattr(r.observation, game.name).CopyFrom(game.observation(seat))
        _add_legal_actions(r, legal)
    else:
        # the engine's encoded observation, parsed once, here, with the legal actions
        _add_legal_actions(r, legal, _observation_field(game.name, ob))
    r.legal_actions_complete = complete
    r.time_left_ms = time_left_ms
    r.bank_left_ms = bank_left_ms


#: engine Action -> its DecisionRequest.legal_actions field, encoded (tag, length, Action bytes)
_LEGAL_FIELD_BYTES: dict[Action, bytes] = {}
_LEGAL_FIELD_BYTES_MAX = 20_000  # entries (~100 bytes each); cleared when full
_LEGAL_ACTIONS_TAG = bytes([(pb.DecisionRequest.LEGAL_ACTIONS_FIELD_NUMBER << 3) | 2])
# Action fields: kind (1, varint), cards (2, repeated string), amount (3, int32 varint)
_KIND_FIELD = {k: bytes([(pb.Action.KIND_FIELD_NUMBER << 3) | 0, v]) for k, v in _ACTION_KIND_TO_PB.items()}
_CARDS_TAG = bytes([(pb.Action.CARDS_FIELD_NUMBER << 3) | 2])
_AMOUNT_TAG = bytes([(pb.Action.AMOUNT_FIELD_NUMBER << 3) | 0])
_CARD_FIELD: dict[str, bytes] = {}
_LEGAL_MERGE_MAX = 64  # longer legal lists are built one message per action


def _card_field(c: str) -> bytes:
    b = _CARD_FIELD.get(c)
    if b is None:
        raw = c.encode()
        b = _CARDS_TAG + varint(len(raw)) + raw
        if len(_CARD_FIELD) < 1024:
            _CARD_FIELD[c] = b
    return b


def _legal_field_bytes(a: Action, keep: bool = True) -> bytes:
    """``a`` as one encoded ``DecisionRequest.legal_actions`` entry; cached
    unless ``keep`` is false (long lists: mostly combinations not seen before,
    which would push the common ones out)."""
    b = _LEGAL_FIELD_BYTES.get(a)
    if b is None:
        card = _CARD_FIELD.get
        body = _KIND_FIELD[a.kind] + b"".join([card(c) or _card_field(c) for c in a.cards])
        if a.amount:
            if type(a.amount) is not int or not -2**31 <= a.amount < 2**31:
                raise TypeError("amount is not an int32")
            body += _AMOUNT_TAG + varint(a.amount)
        b = _LEGAL_ACTIONS_TAG + varint(len(body)) + body
        if not keep:
            return b
        if len(_LEGAL_FIELD_BYTES) >= _LEGAL_FIELD_BYTES_MAX:
            _LEGAL_FIELD_BYTES.clear()
        _LEGAL_FIELD_BYTES[a] = b
    return b


#: encoded key of DecisionRequest.observation, and of each game's field of Observation
_OBSERVATION_KEY = bytes([(pb.DecisionRequest.OBSERVATION_FIELD_NUMBER << 3) | 2])
_OBS_GAME_KEY: dict[str, bytes] = {}


def _obs_game_key(name: str) -> bytes:
    """Encoded key of the ``Observation`` field named after the game (KeyError if none)."""
    k = varint(pb.Observation.DESCRIPTOR.fields_by_name[name].number << 3 | 2)
    _OBS_GAME_KEY[name] = k
    return k


def _observation_field(game_name: str, ob: bytes) -> bytes:
    """``DecisionRequest.observation`` encoded, holding the game's encoded observation ``ob``."""
    inner = (_OBS_GAME_KEY.get(game_name) or _obs_game_key(game_name)) + varint(len(ob)) + ob
    return _OBSERVATION_KEY + varint(len(inner)) + inner


def _add_legal_actions(r: pb.DecisionRequest, legal: list[Action], prefix: bytes = b"") -> None:
    """Append ``legal`` to ``r.legal_actions``: their wire encoding (cached per
    action, else assembled from per-card pieces) parsed in one call, instead of
    one message per action (the upb ``add`` is ~1 us per action). ``prefix``:
    other encoded ``DecisionRequest`` fields to merge in the same parse."""
    if len(legal) <= _LEGAL_MERGE_MAX:
        try:
            enc = [_legal_field_bytes(a) for a in legal]
        except (TypeError, KeyError, AttributeError, ValueError):
            pass  # not a plain action (unhashable cards, unknown kind, odd amount): the loop below
        else:
            r.MergeFromString(prefix + b"".join(enc))
            return
    if prefix:
        r.MergeFromString(prefix)
    # long lists (a Dou Dizhu lead: mostly combinations not seen before, so the cache would
    # mostly miss) and odd actions: one message per action, raising what it always did
    add = r.legal_actions.add
    for a in legal:
        add(kind=_ACTION_KIND_TO_PB[a.kind], cards=a.cards, amount=a.amount)


def decision_request(game: Game, match_id: str, request_id: int, time_left_ms: int,
                     bank_left_ms: int) -> pb.DecisionRequest:
    """The ``DecisionRequest`` for the seat to act (``game.to_act``)."""
    r = pb.DecisionRequest()
    _fill_decision_request(r, game, match_id, request_id, time_left_ms, bank_left_ms)
    return r


def decision_message(game: Game, match_id: str, request_id: int, time_left_ms: int,
                     bank_left_ms: int) -> pb.RefereeMessage:
    """:func:`decision_request` already wrapped in a ``RefereeMessage`` (no extra copy)."""
    m = pb.RefereeMessage()
    _fill_decision_request(m.decision_request, game, match_id, request_id, time_left_ms, bank_left_ms)
    return m


# ----------------------------------------------------------------------------- encoded fast path
# What the referee puts on a bundling bot's stream per decision, built as wire
# bytes: the engine's encoded observation, the cached encodings of the legal
# actions and of the events, joined once. No message object is built, parsed or
# serialised on the way (the bot stream's serializer passes bytes through,
# see referee/service.py). A parser reads these bytes as the same message the
# plain calls build (field order on the wire does not matter; tests compare).
_DR = pb.DecisionRequest
_DECISION_REQUEST_KEY = _key(pb.RefereeMessage.DECISION_REQUEST_FIELD_NUMBER, 2)
_REQUEST_ID_KEY = _key(_DR.REQUEST_ID_FIELD_NUMBER, 0)
_DR_EVENTS_KEY = _key(_DR.EVENTS_FIELD_NUMBER, 2)
_ME_EVENTS_KEY = _key(pb.MatchEnded.EVENTS_FIELD_NUMBER, 2)
_SEAT_FIELD = [int_field(_DR.SEAT_FIELD_NUMBER, s) for s in range(8)]
_KIND_FIELD_DR = {k: int_field(_DR.KIND_FIELD_NUMBER, v) for k, v in _DECISION_KIND_TO_PB.items()}
_COMPLETE_FIELD = {True: int_field(_DR.LEGAL_ACTIONS_COMPLETE_FIELD_NUMBER, 1), False: b""}
_EV_SEQ_KEY = _key(pb.Event.SEQ_FIELD_NUMBER, 0)
_EV_PRIVATE = int_field(pb.Event.PRIVATE_FIELD_NUMBER, 1)
_EV_GAME_KEY: dict[str, bytes] = {}
_MATCH_ID_FIELD: dict[str, bytes] = {}  # match id -> its encoded match_id field (see _match_id_field)
assert pb.Event.MATCH_ID_FIELD_NUMBER == _DR.MATCH_ID_FIELD_NUMBER


def decision_body(game: Game, match_id: str, time_left_ms: int, bank_left_ms: int,
                  events: list[bytes] = ()) -> bytes:
    """The ``DecisionRequest`` for the seat to act, encoded, without its
    ``request_id`` (the link numbers it: :func:`decision_wire`); ``events``:
    encoded ``Event`` messages (:func:`event_bytes`) to bundle, in order.
    Parses as :func:`decision_request` (plus the events) builds it. Raises what
    the plain path raises for an action it cannot encode."""
    seat = game.to_act
    assert seat is not None, "no decision pending: the match is over"
    legal, complete = game.legal_actions()
    ob = game.observation_bytes(seat)
    if ob is None:
        ob = game.observation(seat).SerializeToString()
    get = _LEGAL_FIELD_BYTES.get
    try:
        keep = len(legal) <= _LEGAL_MERGE_MAX
        acts = b"".join([get(a) or _legal_field_bytes(a, keep) for a in legal])
    except (TypeError, KeyError, AttributeError, ValueError):
        # not a plain action (unhashable cards, unknown kind, odd amount): protobuf
        # encodes it or raises what the plain path raises
        r = pb.DecisionRequest()
        _add_legal_actions(r, legal)
        acts = r.SerializeToString()
    return b"".join((_match_id_field(match_id),
                     _SEAT_FIELD[seat] if seat < 8 else int_field(_DR.SEAT_FIELD_NUMBER, seat),
                     _KIND_FIELD_DR[game.decision_kind()], _observation_field(game.name, ob), acts,
                     _COMPLETE_FIELD[bool(complete)], int_field(_DR.TIME_LEFT_MS_FIELD_NUMBER, time_left_ms),
                     int_field(_DR.BANK_LEFT_MS_FIELD_NUMBER, bank_left_ms),
                     decision_request_events(events) if events else b""))


def _match_id_field(match_id: str) -> bytes:
    """Encoded ``match_id`` field, memoised per match (field 1 of both ``DecisionRequest`` and ``Event``)."""
    b = _MATCH_ID_FIELD.get(match_id)
    if b is None:
        if len(_MATCH_ID_FIELD) >= 10_000:
            _MATCH_ID_FIELD.clear()
        b = _MATCH_ID_FIELD[match_id] = str_field(_DR.MATCH_ID_FIELD_NUMBER, match_id)
    return b


def decision_wire(body: bytes, request_id: int) -> bytes:
    """The ``RefereeMessage`` bytes of a :func:`decision_body` numbered ``request_id``."""
    inner = body + _REQUEST_ID_KEY + varint(request_id)
    return _DECISION_REQUEST_KEY + varint(len(inner)) + inner


def event_bytes(game_name: str, match_id: str, seq: int, ev: Event) -> bytes:
    """:func:`event_pb`, encoded."""
    payload = ev.encoded
    k = _EV_GAME_KEY.get(game_name)
    if k is None:
        k = _EV_GAME_KEY[game_name] = _key(pb.Event.DESCRIPTOR.fields_by_name[game_name].number, 2)
    return b"".join((_match_id_field(match_id), _EV_SEQ_KEY, varint(seq),
                     _EV_PRIVATE if ev.to is not None else b"", k, varint(len(payload)), payload))


def _entries(key: bytes, items: list[bytes]) -> bytes:
    """Encoded entries of a repeated message field whose key is ``key``."""
    return b"".join([key + varint(len(e)) + e for e in items])


def match_ended_events(events: list[bytes]) -> bytes:
    """Encoded ``MatchEnded.events`` entries of :func:`event_bytes` results (merge into a MatchEnded)."""
    return _entries(_ME_EVENTS_KEY, events)


def decision_request_events(events: list[bytes]) -> bytes:
    """Encoded ``DecisionRequest.events`` entries of :func:`event_bytes` results (merge into a DecisionRequest)."""
    return _entries(_DR_EVENTS_KEY, events)


def event_pb(game_name: str, match_id: str, seq: int, ev: Event) -> pb.Event:
    """Protocol ``Event`` for an engine event (``private`` set when addressed to one seat)."""
    m = pb.Event(match_id=match_id, seq=seq, private=ev.to is not None)
    getattr(m, game_name).CopyFrom(ev.payload)
    return m


def event_message(game_name: str, match_id: str, seq: int, ev: Event) -> pb.RefereeMessage:
    """:func:`event_pb` already wrapped in a ``RefereeMessage`` (no extra copy)."""
    m = pb.RefereeMessage()
    e = m.event
    e.match_id = match_id
    e.seq = seq
    e.private = ev.to is not None
    getattr(e, game_name).CopyFrom(ev.payload)
    return m


def to_struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


def message_to_json(m: Any) -> dict[str, Any]:
    """A protobuf message as a JSON-able dict (field names as in the .proto).

    Exactly ``json_format.MessageToDict(m, preserving_proto_field_name=True)``
    (match logs are compared with it on replay), computed by a converter
    cached per message type for the plain field kinds the game protos use:
    strings, bools, 32-bit and 64-bit integers (the latter as strings),
    enums (by name; unknown numbers as numbers) and nested messages. A message
    type with anything else (maps, floats, bytes, extensions, well-known types,
    enum values with JSON options) is handed to ``json_format`` whole.
    """
    conv = _JSON_CONVERTERS.get(m.DESCRIPTOR)
    if conv is None:
        conv = _json_converter(m.DESCRIPTOR)
    return conv(m)


_FD = _descriptor.FieldDescriptor
_PLAIN_SCALARS = frozenset({_FD.CPPTYPE_INT32, _FD.CPPTYPE_UINT32, _FD.CPPTYPE_STRING, _FD.CPPTYPE_BOOL})
_INT64_SCALARS = frozenset({_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64})
_JSON_CONVERTERS: dict[Any, Any] = {}


def _json_fallback(m: Any) -> dict[str, Any]:
    return json_format.MessageToDict(m, preserving_proto_field_name=True)


def _plain_type(d: Any, seen: set[Any]) -> bool:
    """True if every field of ``d`` (recursively) is of a kind the fast converter handles."""
    if d in seen:
        return True
    seen.add(d)
    if d.GetOptions().map_entry or d.file.name.startswith("google/protobuf/"):
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

    def value_fn(f: Any) -> Any:
        ct = f.cpp_type
        if ct == _FD.CPPTYPE_MESSAGE:
            return message_to_json
        if ct == _FD.CPPTYPE_ENUM:
            names = {v.number: v.name for v in f.enum_type.values}
            return lambda v: names.get(v, v)
        if ct in _INT64_SCALARS:
            return str
        return None  # the value itself

    table = {}
    for f in d.fields:
        table[f] = (f.name, value_fn(f), f.is_repeated)

    def conv(m: Any) -> dict[str, Any]:
        js: dict[str, Any] = {}
        for f, v in m.ListFields():
            t = table.get(f)
            if t is None:  # an extension, or a descriptor this table does not know
                return _json_fallback(m)
            name, fn, rep = t
            if rep:
                js[name] = list(v) if fn is None else [fn(x) for x in v]
            else:
                js[name] = v if fn is None else fn(v)
        return js

    _JSON_CONVERTERS[d] = conv
    return conv
