"""Conversions between engine objects and protocol v1 messages: the one place
where anything is encoded.

Everything the referee sends to a seat about game state is built here, from
the game's view module (:func:`referee.games.view_module`:
``observation(game, seat)``, ``event_message(record)``) and the engine's
``legal_actions()``, so the leak tests can recompute it. Generic across games:
no game's field appears here. What the referee hands gRPC per decision is put
together from encodings (:func:`decision_body`, :func:`event_bytes`: each
part encoded once, the keys derived from the generated descriptors, no
literal field numbers), and parses to exactly what the message builders here
build (tests/test_protocol_fastpaths.py).
"""

from __future__ import annotations

import dataclasses
import weakref
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Sequence

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


def _remember(cache: dict[Any, Any], key: Any, value: Any, limit: int) -> Any:
    """Store ``value`` under ``key`` in ``cache``, emptied first once it holds
    ``limit`` entries (every memo here is bounded so); returns ``value``."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


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
        a = _remember(_ACTION_MEMO, key, _action_from_pb(m), _ACTION_MEMO_MAX)  # raises before anything is kept
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
    """Engine decision kind (``"PLAY"``...) -> protocol ``DecisionKind``."""
    return _DECISION_KIND_TO_PB[kind]


# ----------------------------------------------------------------------------- observations
def game_observation(game: Game, seat: int) -> Any:
    """The game's own observation message for ``seat`` (e.g. ``DouDizhuObservation``),
    built by its view module."""
    return view_module(game.name).observation(game, seat)


def observation_pb(game: Game, seat: int) -> pb.Observation:
    """The ``Observation`` for ``seat`` (the game's observation in its oneof field)."""
    obs = pb.Observation()
    getattr(obs, game.name).CopyFrom(game_observation(game, seat))
    return obs


def _fill_observation(obs: pb.Observation, game: Game, seat: int) -> None:
    getattr(obs, game.name).CopyFrom(view_module(game.name).observation(game, seat))


def merge_records(message: Any, field: str, records: Iterable[Any], convert: Callable[[Any], Any]) -> None:
    """Append ``convert(record)`` for each of ``records`` to ``message.<field>``
    (a repeated message field), in order: what ``getattr(message,
    field).extend(convert(r) for r in records)`` does, faster. For a singular
    message field and one record, the same as ``getattr(message,
    field).MergeFrom(convert(record))``.

    For a view's lists of immutable records (a round's plays, finished
    tricks): each record's entry is encoded once, the first time it is seen
    (:class:`_EntryCache`), and the entries are merged in one parse. Building
    each sub-message anew costs ~1-2 us per entry with upb, and the same
    records are listed again at every decision of a round.

    While :func:`encoded_observation` runs the view, the entries are handed
    to it instead (see there): it appends those of the top-level message to
    the encoding rather than having them parsed in and serialised again."""
    if not records:  # an empty list or tuple: nothing to merge (an iterator is never false)
        return
    d = message.DESCRIPTOR
    c = _ENTRIES.get((d, field, convert))
    if c is None or len(c.records) > _ENTRIES_MAX:
        c = _ENTRIES[d, field, convert] = _EntryCache(_key(d.fields_by_name[field], _WIRE_LEN), convert)
    _merge_encoded(message, c.join(records))


def merge_part(message: Any, build: Callable[..., Any], *args: Any) -> None:
    """Merge ``build(*args)`` (a message of ``message``'s type) into ``message``,
    encoded once per distinct ``args``: for the fields of an observation that
    stay the same over many decisions (a match's rules, a round's setup).

    ``build`` must be a pure function of its arguments (it reads nothing
    else), the arguments hashable values (tuples, not lists), and the fields
    it sets set nowhere else in ``message`` (the part's encoding is appended,
    so for a scalar field set twice the part would win). Then the cached
    encoding is exactly what ``build(*args)`` would give, and merging it is
    what ``message.MergeFrom(build(*args))`` does
    (tests/test_protocol_fastpaths.py compares every observation with the
    one built without the cache). ``TypeError`` for an unhashable argument."""
    key = (build, args)
    data = _PARTS.get(key)
    if data is None:
        data = _remember(_PARTS, key, build(*args).SerializeToString(), _PARTS_MAX)
    _merge_encoded(message, data)


def merge_match_part(message: Any, build: Callable[[Game], Any], game: Game) -> None:
    """Merge ``build(game)`` (a message of ``message``'s type) into ``message``,
    encoded once per match: for the fields made of the match's settings
    (players, variant flags, parameters), fixed when the game is created.

    ``build`` must read nothing of ``game`` but those settings, and the fields
    it sets be set nowhere else in ``message``; then the cached encoding is
    exactly what ``build(game)`` would give (tests/test_protocol_fastpaths.py
    compares every observation with the one built anew). The memo holds the
    game weakly: a copy of it (``Game.with_hidden_zones``) has its own entry."""
    key = (build, id(game))
    hit = _MATCH_PARTS.get(key)
    if hit is None or hit[0]() is not game:
        hit = _remember(_MATCH_PARTS, key, (weakref.ref(game), build(game).SerializeToString()), _MATCH_PARTS_MAX)
    _merge_encoded(message, hit[1])


#: (build, id(game)) -> (a weak reference to the game, the encoding of build(game)), see merge_match_part
_MATCH_PARTS: dict[tuple[Any, int], tuple[Any, bytes]] = {}
_MATCH_PARTS_MAX = 10_000


def _merge_encoded(message: Any, data: bytes) -> None:
    """Merge encoded fields into ``message`` or, while :func:`encoded_observation`
    runs a view, hand them to it (it appends those of the top-level message)."""
    if data:
        held = _HELD_ENTRIES.get()
        if held is None:
            message.MergeFromString(data)
        else:
            held.append((message, data))


#: (build, args) -> the encoding of build(*args), see merge_part; cleared when full
_PARTS: dict[tuple[Any, tuple[Any, ...]], bytes] = {}
_PARTS_MAX = 20_000


def fill_message(message: Any, record: Any) -> None:
    """Set the fields of ``message`` from ``record``, a dataclass whose fields
    are the message's fields one for one (a tuple for a repeated field, a
    nested record for a message field, a tuple of them for a repeated one,
    ``None`` for a message field not set). The message is marked set even
    when every field is at its default (what a constructor call does).

    In place: a message assigned to a field or passed to a constructor is a
    deep copy with upb, and setting a plain field to its default is left out
    (protobuf leaves it out of the encoding anyway). ``TypeError`` for a field
    with presence (``optional``), which this does not handle;
    ``AttributeError``/``KeyError`` for a record field the message lacks."""
    message.SetInParent()
    plan = _FILL_PLANS.get((type(record), message.DESCRIPTOR))
    if plan is None:
        plan = _fill_plan(type(record), message.DESCRIPTOR)
    for name, how in plan:
        v = getattr(record, name)
        if v is None:
            continue
        if how is _FILL_SCALAR:
            if v:
                setattr(message, name, v)
        elif how is _FILL_SCALARS:
            if v:
                getattr(message, name).extend(v)
        elif how is _FILL_RECORD:
            fill_message(getattr(message, name), v)
        else:  # _FILL_RECORDS
            add = getattr(message, name).add
            for x in v:
                fill_message(add(), x)


_FILL_SCALAR, _FILL_SCALARS, _FILL_RECORD, _FILL_RECORDS = "scalar", "scalars", "record", "records"
#: (record type, message descriptor) -> its fields, each with how it goes in (see fill_message)
_FILL_PLANS: dict[tuple[type, Any], tuple[tuple[str, str], ...]] = {}


def _fill_plan(record_type: type, d: Any) -> tuple[tuple[str, str], ...]:
    plan = []
    for f in dataclasses.fields(record_type):
        fd = d.fields_by_name[f.name]
        if fd.message_type is not None:
            how = _FILL_RECORDS if fd.is_repeated else _FILL_RECORD
        elif fd.is_repeated:
            how = _FILL_SCALARS
        elif fd.has_presence:
            raise TypeError(f"{fd.full_name}: a field with presence (optional) is not handled")
        else:
            how = _FILL_SCALAR
        plan.append((f.name, how))
    _FILL_PLANS[record_type, d] = out = tuple(plan)
    return out


#: while encoded_observation runs a view: the (message, encoded entries) merge_records was given
_HELD_ENTRIES: ContextVar[list[tuple[Any, bytes]] | None] = ContextVar("_HELD_ENTRIES", default=None)


def encoded_observation(game: Game, seat: int) -> bytes:
    """The game's observation message for ``seat`` (:func:`game_observation`), encoded.

    A protobuf encoding may carry a repeated field's entries anywhere, and a
    parser appends them in the order it meets them: so the record entries a
    view merges into its top-level message (a round's plays, its finished
    tricks: most of an observation) are appended to the encoding of the rest
    as they are, instead of being parsed into the message and serialised
    again. Entries for a nested message are merged into it as usual. Parses
    to exactly :func:`game_observation` (tests/test_protocol_fastpaths.py)."""
    held: list[tuple[Any, bytes]] = []
    token = _HELD_ENTRIES.set(held)
    try:
        obs = view_module(game.name).observation(game, seat)
    finally:
        _HELD_ENTRIES.reset(token)
    tail = []
    for message, data in held:
        if message is obs:
            tail.append(data)
        else:
            message.MergeFromString(data)
    return obs.SerializeToString() + b"".join(tail)


class _EntryCache:
    """The encoded entries (key, length, message) of one repeated field of one
    message type, for the records already seen, by record identity. Records
    never change, so an entry cannot go stale; the cache holds each record,
    so no other object can have its id meanwhile.

    Most lists a view merges grow at the end (a round's plays): the last list
    joined is kept per first record, and a list that starts with it (the
    same records, compared in C) only needs its new records looked up."""

    __slots__ = ("key", "convert", "entries", "records", "lists")

    def __init__(self, key: bytes, convert: Callable[[Any], Any]):
        self.key = key  # the field's encoded key
        self.convert = convert  # record -> its message
        self.entries: dict[int, bytes] = {}  # id(record) -> its entry
        self.records: list[Any] = []  # the records of `entries`, kept alive
        #: id(first record) -> (the last list joined that starts with it, its entries joined)
        self.lists: dict[int, tuple[list[Any], bytes]] = {}

    def join(self, records: Iterable[Any]) -> bytes:
        """The entries of ``records``, in order, joined."""
        if type(records) is not list:
            records = list(records)
        if not records:
            return b""
        first = id(records[0])
        last = self.lists.get(first)
        n, data = 0, b""
        if last is not None:
            done, data = last
            n = len(done)
            if len(records) == n and records == done:  # the same records as last time (compared in C, by identity first)
                return data
            if len(records) < n or records[:n] != done:  # not the last list grown at the end: all anew
                n, data = 0, b""
        entries = self.entries
        parts = [data]
        for r in records[n:]:
            parts.append(entries.get(id(r)) or self.new(r))
        data = b"".join(parts)
        if len(self.lists) >= _LISTS_MAX:
            self.lists.clear()
        self.lists[first] = (records.copy(), data)  # a copy: the view's list may grow
        return data

    def new(self, record: Any) -> bytes:
        """Make and keep the entry of a record not seen in this field before
        (its message encoded once for every field and event: :func:`record_encoding`)."""
        b = record_encoding(self.convert, record)
        e = self.entries[id(record)] = self.key + _varint(len(b)) + b
        self.records.append(record)
        return e


def record_encoding(convert: Callable[[Any], Any], record: Any) -> bytes:
    """``convert(record).SerializeToString()``, made once per record and converter.

    A record often goes to a seat more than once: a Dou Dizhu play is an
    event, then an entry of the round's history and of the current trick in
    every later observation. :func:`merge_records` and the event payloads
    (:func:`payload_encoding`) share this memo, so its message is built and
    encoded once. ``convert`` must be a pure function of the record, and the
    record immutable (a frozen dataclass, a tuple); the memo holds the record,
    so no other object can take its id while it is kept. Raises what
    ``convert`` raises."""
    key = (convert, id(record))
    hit = _RECORD_ENCODINGS.get(key)
    if hit is not None and hit[0] is record:
        return hit[1]
    b = convert(record).SerializeToString()
    _remember(_RECORD_ENCODINGS, key, (record, b), _RECORD_ENCODINGS_MAX)
    return b


#: (converter, id(record)) -> (the record, its message encoded), see record_encoding; cleared when full
_RECORD_ENCODINGS: dict[tuple[Any, int], tuple[Any, bytes]] = {}
_RECORD_ENCODINGS_MAX = 100_000

#: per (message type, field, converter): its entries, see merge_records
_ENTRIES: dict[tuple[Any, str, Any], _EntryCache] = {}
_ENTRIES_MAX = 50_000  # entries per cache (a full cache is replaced by an empty one)
_LISTS_MAX = 1_000  # lists kept per cache (see _EntryCache; cleared when full)


# ----------------------------------------------------------------------------- decision requests
def _fill_decision_request(r: pb.DecisionRequest, game: Game, match_id: str, request_id: int,
                           time_left_ms: int, bank_left_ms: int) -> None:
    # Filled in place: every sub-message assigned through a constructor or
    # appended as a message is a deep copy with upb.
    seat = game.to_act
    if seat is None:
        raise ValueError("no decision pending: the match is over")
    legal, complete = game.legal_actions()
    r.match_id = match_id
    r.request_id = request_id
    r.seat = seat
    r.kind = _DECISION_KIND_TO_PB[game.decision_kind()]
    _fill_observation(r.observation, game, seat)
    _add_legal_actions(r, legal)
    r.legal_actions_complete = complete
    r.time_left_ms = time_left_ms
    r.bank_left_ms = bank_left_ms


def decision_request(game: Game, match_id: str, request_id: int, time_left_ms: int,
                     bank_left_ms: int) -> pb.DecisionRequest:
    """The ``DecisionRequest`` for the seat to act (``game.to_act``); the clock
    fields in milliseconds. ``ValueError`` once the match is over."""
    r = pb.DecisionRequest()
    _fill_decision_request(r, game, match_id, request_id, time_left_ms, bank_left_ms)
    return r


def decision_message(game: Game, match_id: str, request_id: int, time_left_ms: int,
                     bank_left_ms: int, events: Sequence[bytes] = ()) -> pb.RefereeMessage:
    """:func:`decision_request` already wrapped in a ``RefereeMessage`` (no extra
    copy), with ``events`` (encoded protocol ``Event`` messages, :func:`event_bytes`)
    bundled in ``DecisionRequest.events`` in order."""
    m = pb.RefereeMessage()
    r = m.decision_request
    _fill_decision_request(r, game, match_id, request_id, time_left_ms, bank_left_ms)
    if events:
        r.MergeFromString(_entries(_DR_EVENTS_KEY, events))
    return m


# The encoded request: what the referee hands gRPC for each decision when the
# seat's link takes bytes (``SeatLink.encoded_requests``). It parses to exactly
# what decision_message builds (tests/test_protocol_fastpaths.py), but is put
# together from encodings: the observation serialised once, straight from the
# view's message, and each bundled event encoded once for every seat that gets
# it. Building the request as a message instead copies the observation and
# every event into it (a deep copy each with upb) and serialises them all again.
# A protobuf message may list its fields in any order: the request id comes
# last, so that the link can number an encoded request (numbered_request).
def decision_body(game: Game, match_id: str, time_left_ms: int, bank_left_ms: int,
                  events: Sequence[bytes] = ()) -> bytes:
    """The encoded ``DecisionRequest`` for the seat to act, without its
    ``request_id`` (the link numbers it: :func:`numbered_request`); the clock
    fields in milliseconds; ``events``: encoded ``Event`` messages
    (:func:`event_bytes`) to bundle, in order. ``ValueError`` once the match
    is over; what protobuf raises for an action it cannot encode."""
    seat = game.to_act
    if seat is None:
        raise ValueError("no decision pending: the match is over")
    legal, complete = game.legal_actions()
    obs = encoded_observation(game, seat)
    game_obs = _OBSERVATION_GAME_KEY[game.name] + _varint(len(obs))  # the game's field of the Observation oneof
    parts = [_match_id_entry(_DR_MATCH_ID_KEY, match_id), _varint_field(_DR_SEAT_KEY, seat),
             _DR_KIND_FIELD[game.decision_kind()], _DR_COMPLETE_FIELD if complete else b"",
             _varint_field(_DR_TIME_LEFT_KEY, time_left_ms), _varint_field(_DR_BANK_LEFT_KEY, bank_left_ms),
             _OBSERVATION_KEY, _varint(len(game_obs) + len(obs)), game_obs, obs, _legal_actions_bytes(legal)]
    for e in events:
        parts += (_DR_EVENTS_KEY, _varint(len(e)), e)
    return b"".join(parts)  # one copy of the observation and the events


def numbered_request(body: bytes, request_id: int) -> bytes:
    """The encoded ``RefereeMessage`` of a :func:`decision_body` numbered ``request_id``."""
    rid = _REQUEST_ID_KEY + _varint(request_id)
    return b"".join((_DECISION_REQUEST_KEY, _varint(len(body) + len(rid)), body, rid))


# The legal actions go into a request as the wire encoding of their
# ``DecisionRequest.legal_actions`` entries, cached per action: appending one
# message per action (the upb ``add``) costs ~1 us per action, and most
# requests list actions seen before. Field keys come from the generated
# descriptors; the encoding is checked against protobuf's own in
# tests/test_protocol.py.
_FD = _descriptor.FieldDescriptor
_WIRE_VARINT, _WIRE_LEN = 0, 2


def _encode_varint(n: int) -> bytes:
    """Protobuf varint of ``n`` (a negative int as its 64-bit two's complement)."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


#: the varints of 0 .. 2**14 - 1 (one or two bytes): lengths, keys, request ids, clock fields
_SMALL_VARINTS = tuple(_encode_varint(n) for n in range(1 << 14))


def _varint(n: int) -> bytes:
    """:func:`_encode_varint`, from a table for the common small values."""
    return _SMALL_VARINTS[n] if 0 <= n < 16384 else _encode_varint(n)


def _key(field: Any, wire_type: int) -> bytes:
    """The encoded key (tag) of a field descriptor with ``wire_type``."""
    return _varint(field.number << 3 | wire_type)


def _entry(key: bytes, payload: bytes) -> bytes:
    """One encoded length-delimited field: ``key`` (:func:`_key`), the length, ``payload``."""
    return key + _varint(len(payload)) + payload


def _entries(key: bytes, payloads: Iterable[bytes]) -> bytes:
    """The encoded entries of a repeated message field (``key``), one per encoded message."""
    return b"".join([key + _varint(len(p)) + p for p in payloads])


def _varint_field(key: bytes, value: int) -> bytes:
    """An encoded varint field (an integer, bool or enum; ``key`` from :func:`_key`),
    or nothing for 0: a field at its default is left out, as protobuf does."""
    return key + _varint(value) if value else b""


def _match_id_entry(key: bytes, match_id: str) -> bytes:
    """The encoded ``match_id`` field (``key``) of a message, cached: a match
    sends the same id in every request and event."""
    b = _MATCH_ID_ENTRY.get((key, match_id))
    if b is None:
        b = _remember(_MATCH_ID_ENTRY, (key, match_id), _entry(key, match_id.encode()) if match_id else b"", 10_000)
    return b


#: (field key, match id) -> its encoded field
_MATCH_ID_ENTRY: dict[tuple[bytes, str], bytes] = {}


_DR_FIELDS = pb.DecisionRequest.DESCRIPTOR.fields_by_name
_ACTION_FIELDS = pb.Action.DESCRIPTOR.fields_by_name
_DECISION_REQUEST_KEY = _key(pb.RefereeMessage.DESCRIPTOR.fields_by_name["decision_request"], _WIRE_LEN)
_REFEREE_EVENT_KEY = _key(pb.RefereeMessage.DESCRIPTOR.fields_by_name["event"], _WIRE_LEN)
_REQUEST_ID_KEY = _key(_DR_FIELDS["request_id"], _WIRE_VARINT)
_OBSERVATION_KEY = _key(_DR_FIELDS["observation"], _WIRE_LEN)
#: game name -> the key of its field of the Observation oneof
_OBSERVATION_GAME_KEY = {f.name: _key(f, _WIRE_LEN) for f in pb.Observation.DESCRIPTOR.fields}
_DR_EVENTS_KEY = _key(_DR_FIELDS["events"], _WIRE_LEN)
_DR_MATCH_ID_KEY = _key(_DR_FIELDS["match_id"], _WIRE_LEN)
_DR_SEAT_KEY = _key(_DR_FIELDS["seat"], _WIRE_VARINT)
_DR_KIND_KEY = _key(_DR_FIELDS["kind"], _WIRE_VARINT)
_DR_COMPLETE_KEY = _key(_DR_FIELDS["legal_actions_complete"], _WIRE_VARINT)
_DR_TIME_LEFT_KEY = _key(_DR_FIELDS["time_left_ms"], _WIRE_VARINT)
_DR_BANK_LEFT_KEY = _key(_DR_FIELDS["bank_left_ms"], _WIRE_VARINT)
#: engine decision kind -> the encoded DecisionRequest.kind field
_DR_KIND_FIELD = {k: _varint_field(_DR_KIND_KEY, v) for k, v in _DECISION_KIND_TO_PB.items()}
_DR_COMPLETE_FIELD = _varint_field(_DR_COMPLETE_KEY, True)  # legal_actions_complete = true
_EVENT_FIELDS = pb.Event.DESCRIPTOR.fields_by_name
_EVENT_MATCH_ID_KEY = _key(_EVENT_FIELDS["match_id"], _WIRE_LEN)
_EVENT_SEQ_KEY = _key(_EVENT_FIELDS["seq"], _WIRE_VARINT)
_IS_PRIVATE_FIELD = _varint_field(_key(_EVENT_FIELDS["is_private"], _WIRE_VARINT), True)
_ME_EVENTS_KEY = _key(pb.MatchEnded.DESCRIPTOR.fields_by_name["events"], _WIRE_LEN)
_LEGAL_ACTIONS_KEY = _key(_DR_FIELDS["legal_actions"], _WIRE_LEN)
_KIND_FIELD = {k: _key(_ACTION_FIELDS["kind"], _WIRE_VARINT) + _varint(v) for k, v in _ACTION_KIND_TO_PB.items()}
_CARDS_KEY = _key(_ACTION_FIELDS["cards"], _WIRE_LEN)
_AMOUNT_KEY = _key(_ACTION_FIELDS["amount"], _WIRE_VARINT)
#: engine Action -> its encoded DecisionRequest.legal_actions entry (key, length, Action bytes)
_LEGAL_ENTRY: dict[Action, bytes] = {}
#: id(action) -> (the action, its entry), see _legal_actions_bytes; cleared when full
_LEGAL_ENTRY_BY_ID: dict[int, tuple[Action, bytes]] = {}
_LEGAL_ENTRY_MAX = 20_000  # entries (~100 bytes each); cleared when full
#: card code -> its encoded Action.cards entry
_CARD_ENTRY = {c: _CARDS_KEY + _varint(len(c)) + c.encode() for c in ALL_CODES}
#: longer legal lists are mostly combinations not seen before (a Dou Dizhu lead):
#: encoded, but not cached (they would push the common ones out)
_LEGAL_CACHE_MAX = 64


def _encode_legal_entry(a: Action) -> bytes:
    """``a`` as one encoded ``DecisionRequest.legal_actions`` entry.
    ``KeyError``/``TypeError``/``ValueError`` for what the encoding does not
    take (the caller then lets protobuf build the message and raise)."""
    body = _KIND_FIELD[a.kind] + b"".join([_CARD_ENTRY[c] for c in a.cards])
    if a.amount:
        if type(a.amount) is not int or not -2**31 <= a.amount < 2**31:
            raise ValueError("amount is not an int32")
        body += _AMOUNT_KEY + _varint(a.amount)
    return _LEGAL_ACTIONS_KEY + _varint(len(body)) + body


def _legal_entry(a: Action) -> bytes:
    """:func:`_encode_legal_entry`, kept by value (``_LEGAL_ENTRY``) and by
    identity (``_LEGAL_ENTRY_BY_ID``)."""
    e = _LEGAL_ENTRY.get(a)
    if e is None:
        e = _remember(_LEGAL_ENTRY, a, _encode_legal_entry(a), _LEGAL_ENTRY_MAX)
    _remember(_LEGAL_ENTRY_BY_ID, id(a), (a, e), _LEGAL_ENTRY_MAX)
    return e


def _legal_actions_bytes(legal: tuple[Action, ...]) -> bytes:
    """The encoded ``DecisionRequest.legal_actions`` entries of ``legal``, in order."""
    try:
        if len(legal) <= _LEGAL_CACHE_MAX:
            # Engines list the same Action objects again (interned: PASS, a bid, a
            # one-card play): looked up by identity first, which costs no Python
            # call (an Action's hash is one); the memo holds the action, so no
            # other object can take its id while it is kept.
            known = _LEGAL_ENTRY_BY_ID.get
            parts = []
            for a in legal:
                hit = known(id(a))
                parts.append(hit[1] if hit is not None and hit[0] is a else _legal_entry(a))
            return b"".join(parts)
        return b"".join([_encode_legal_entry(a) for a in legal])
    except (TypeError, KeyError, AttributeError, ValueError):
        # not a plain action (unhashable cards, unknown kind or card, odd amount):
        # protobuf encodes it, or raises what it raises for it
        r = pb.DecisionRequest()
        add = r.legal_actions.add
        for a in legal:
            add(kind=_ACTION_KIND_TO_PB[a.kind], cards=a.cards, amount=a.amount)
        return r.SerializeToString()


def _add_legal_actions(r: pb.DecisionRequest, legal: tuple[Action, ...]) -> None:
    """Append ``legal`` to ``r.legal_actions`` (see above)."""
    r.MergeFromString(_legal_actions_bytes(legal))


# ----------------------------------------------------------------------------- events
def event_payload(game_name: str, ev: Event) -> Any:
    """The game's event message (e.g. ``DouDizhuEvent``) of an engine event,
    built by the game's view module from ``ev.record``."""
    return view_module(game_name).event_message(ev.record)


def payload_encoding(game_name: str, record: Any) -> tuple[bytes, Any]:
    """The encoding of the game's event message of an event record (what
    :func:`event_payload` gives, serialised), and that message if it was
    built (else ``None``): what the runner sends and logs.

    A record type the view lists in its ``EVENT_FIELDS`` (record type ->
    ``(field, convert)``: the event message is that one field of its oneof,
    holding ``convert(record)``) is put together from :func:`record_encoding`,
    so a record that is also an entry of later observations (a play, a bid)
    is encoded once for both, and no message is built; any other record is
    built by the view's ``event_message`` and serialised. Raises what the
    view raises for a record of another game (``KeyError`` or ``TypeError``)."""
    view = view_module(game_name)
    part = view.EVENT_FIELDS.get(type(record))
    if part is None:
        m = view.event_message(record)
        return m.SerializeToString(), m
    field, convert = part
    key = _PAYLOAD_FIELD_KEY.get((game_name, field))
    if key is None:
        fd = _EVENT_FIELDS[game_name].message_type.fields_by_name[field]
        key = _PAYLOAD_FIELD_KEY[game_name, field] = _key(fd, _WIRE_LEN)
    b = record_encoding(convert, record)
    return key + _varint(len(b)) + b, None


#: (game, field of its event message's oneof) -> the field's encoded key, see payload_encoding
_PAYLOAD_FIELD_KEY: dict[tuple[str, str], bytes] = {}


def part_event(event_type: Any, part: tuple[str, Callable[[Any], Any]], record: Any) -> Any:
    """The event message ``event_type`` (e.g. ``DouDizhuEvent``) of a record
    listed in a view's ``EVENT_FIELDS``: ``part`` is its ``(field, convert)``,
    the message holds ``convert(record)`` in that field. For a view's
    ``event_message``, so that it builds what :func:`payload_encoding` encodes."""
    field, convert = part
    m = event_type()
    getattr(m, field).CopyFrom(convert(record))
    return m


def payload_from_encoding(game_name: str, encoded: bytes) -> Any:
    """The game's event message parsed back from its encoding (:func:`payload_encoding`)."""
    return _EVENT_TYPES[game_name].FromString(encoded)


def event_pb(game_name: str, match_id: str, seq: int, ev: Event, payload: Any = None) -> pb.Event:
    """Protocol ``Event`` for an engine event (``is_private`` set when addressed to
    one seat); ``payload``: its :func:`event_payload`, if already built."""
    m = pb.Event(match_id=match_id, seq=seq, is_private=ev.to is not None)
    getattr(m, game_name).CopyFrom(event_payload(game_name, ev) if payload is None else payload)
    return m


def event_bytes(game_name: str, match_id: str, seq: int, ev: Event, payload: Any = None) -> bytes:
    """:func:`event_pb`, encoded: what a seat that bundles its events gets
    inside its next request (:func:`decision_body`) or ``MatchEnded``
    (:func:`add_match_ended_events`), encoded once for all of them."""
    p = event_payload(game_name, ev) if payload is None else payload
    return encoded_event(game_name, match_id, seq, ev.to is not None, p.SerializeToString())


def encoded_event(game_name: str, match_id: str, seq: int, is_private: bool, encoded_payload: bytes) -> bytes:
    """The encoded protocol ``Event`` whose game message (e.g. ``TractorEvent``)
    is ``encoded_payload``: :func:`event_bytes` for a payload already encoded
    (the runner encodes each payload once, for the seats and the log)."""
    return b"".join((_match_id_entry(_EVENT_MATCH_ID_KEY, match_id), _varint_field(_EVENT_SEQ_KEY, seq),
                     _IS_PRIVATE_FIELD if is_private else b"", _EVENT_GAME_KEY[game_name],
                     _varint(len(encoded_payload)), encoded_payload))


def event_wire(event: bytes) -> bytes:
    """The encoded ``RefereeMessage`` that carries ``event`` (an encoded
    ``Event``: :func:`encoded_event`), as a link that takes encoded messages
    writes it (``SeatLink.send_encoded``)."""
    return _REFEREE_EVENT_KEY + _varint(len(event)) + event


#: game name -> the key of its field of the Event oneof
_EVENT_GAME_KEY = {f.name: _key(f, _WIRE_LEN) for f in pb.Event.DESCRIPTOR.oneofs_by_name["game"].fields}


def add_match_ended_events(ended: pb.MatchEnded, events: Sequence[bytes]) -> None:
    """Append ``events`` (encoded ``Event`` messages, :func:`event_bytes`) to ``ended.events``, in order."""
    if events:
        ended.MergeFromString(_entries(_ME_EVENTS_KEY, events))


def event_message(game_name: str, match_id: str, seq: int, ev: Event, payload: Any = None) -> pb.RefereeMessage:
    """:func:`event_pb` already wrapped in a ``RefereeMessage`` (no extra copy)."""
    m = pb.RefereeMessage()
    e = m.event
    e.match_id = match_id
    e.seq = seq
    e.is_private = ev.to is not None
    getattr(e, game_name).CopyFrom(event_payload(game_name, ev) if payload is None else payload)
    return m


def event_json(game_name: str, ev: Event, payload: Any = None) -> dict[str, Any]:
    """The event as the match log writes it: its :func:`event_payload`
    (``payload``, if already built) as JSON (:func:`message_to_json`; what
    :func:`logged_event_json` writes). The dict may be shared with other
    events encoded alike: never change it."""
    return payload_json(event_payload(game_name, ev) if payload is None else payload)


def logged_event_json(game_name: str, record: Any, encoded: bytes, payload: Any = None) -> dict[str, Any]:
    """What the match log writes for an event: :func:`record_event_json` of
    its record, or for a record the view does not list in ``RECORD_EVENTS``,
    :func:`encoded_payload_json` of its payload's encoding (``payload``: the
    message, if built). Both equal :func:`message_to_json` of the payload
    (tests/test_protocol_fastpaths.py). The dict may be shared: never change it."""
    js = record_event_json(game_name, record)
    return js if js is not None else encoded_payload_json(game_name, encoded, payload)


def record_event_json(game_name: str, record: Any) -> dict[str, Any] | None:
    """:func:`message_to_json` of a record's event message, made from the
    record, or ``None`` when the game's view does not list the record's type
    in ``RECORD_EVENTS`` (record type -> the field of the game's event
    message, e.g. ``TractorEvent``, whose message the view fills from the
    record with :func:`fill_message`, field for field, and nothing else).

    A match log holds every event as JSON, and most events are seen once
    (a card dealt: its index, seat and card), so a memo by encoding misses;
    reading a record's fields costs a fraction of reading a message's."""
    part = _RECORD_EVENT_PARTS.get(type(record))
    if part is None or part[0] != game_name:
        field = view_module(game_name).RECORD_EVENTS.get(type(record))
        d = None if field is None else _EVENT_TYPES[game_name].DESCRIPTOR.fields_by_name[field].message_type
        part = _RECORD_EVENT_PARTS[type(record)] = (game_name, field, d)
    if part[1] is None:
        return None
    return {part[1]: record_json(record, part[2])}


#: record type -> (the game, its field of the game's event message, that field's message
#: descriptor), field and descriptor None for a record the view builds itself; see record_event_json
_RECORD_EVENT_PARTS: dict[type, tuple[str, str | None, Any]] = {}


def record_json(record: Any, d: Any) -> dict[str, Any]:
    """:func:`message_to_json` of the message of descriptor ``d`` that
    :func:`fill_message` fills from ``record`` (a dataclass whose fields are
    fields of the message), made from the record: a field the record lacks
    at its default (a message field: left out), ``None`` as what
    fill_message leaves (the default; a message field: left out), repeated
    fields as lists, enums by name, 64-bit integers as strings. ``TypeError``
    for a message kind :func:`message_to_json` hands to json_format (a map,
    a oneof of several fields, bytes...) or a field with presence, which
    fill_message does not take either."""
    plan = _JSON_PLANS.get((type(record), d))
    if plan is None:
        plan = _json_plan(type(record), d)
    plain, other, absent = plan
    js: dict[str, Any] = {}
    for name, default in absent:  # a repeated field gets a list of its own
        js[name] = [] if default is None else default
    for name, default in plain:
        v = getattr(record, name)
        js[name] = default if v is None else v
    for name, how, arg in other:
        v = getattr(record, name)
        if how is _JSON_LIST:
            js[name] = [] if v is None else list(v)
        elif how is _JSON_RECORD:
            if v is not None:
                js[name] = record_json(v, arg)
        elif how is _JSON_RECORDS:
            js[name] = [] if v is None else [record_json(x, arg) for x in v]
        elif how is _JSON_VALUE:  # an enum or a 64-bit integer: (its conversion, its default)
            fn, default = arg
            js[name] = fn(default if v is None else v)
        else:  # _JSON_VALUES
            js[name] = [] if v is None else [arg(x) for x in v]
    return js


_JSON_LIST, _JSON_RECORD, _JSON_RECORDS, _JSON_VALUE, _JSON_VALUES = "list", "record", "records", "value", "values"
#: (record type, message descriptor) -> (plain fields (name, default), the other fields (name, how, arg),
#: the message's fields the record lacks (name, the JSON of the default; None: an empty list)), see record_json
_JSON_PLANS: dict[tuple[type, Any], tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, str, Any], ...],
                                          tuple[tuple[str, Any], ...]]] = {}


def _json_plan(record_type: type, d: Any) -> tuple[Any, Any, Any]:
    if not _plain_type(d, set()) or any(len(o.fields) > 1 for o in d.oneofs):
        raise TypeError(f"{d.full_name}: not a message record_json handles")
    names = {f.name for f in dataclasses.fields(record_type)}
    plain: list[tuple[str, Any]] = []
    other: list[tuple[str, str, Any]] = []
    absent: list[tuple[str, Any]] = []
    for fd in d.fields:
        msg = fd.cpp_type == _FD.CPPTYPE_MESSAGE
        if fd.has_presence and not msg:
            raise TypeError(f"{fd.full_name}: a field with presence (optional) is not handled")
        if fd.cpp_type == _FD.CPPTYPE_ENUM:
            names_of = {v.number: v.name for v in fd.enum_type.values}
            fn: Any = lambda v, names_of=names_of: names_of.get(v, v)  # noqa: E731
        elif fd.cpp_type in _INT64_SCALARS:
            fn = str
        else:
            fn = None
        if fd.name not in names:  # what fill_message leaves: the default, an empty list (None here), no message
            if fd.is_repeated:
                absent.append((fd.name, None))
            elif not msg:
                absent.append((fd.name, fd.default_value if fn is None else fn(fd.default_value)))
        elif msg:
            other.append((fd.name, _JSON_RECORDS if fd.is_repeated else _JSON_RECORD, fd.message_type))
        elif fn is not None and fd.is_repeated:
            other.append((fd.name, _JSON_VALUES, fn))
        elif fn is not None:
            other.append((fd.name, _JSON_VALUE, (fn, fd.default_value)))
        elif fd.is_repeated:
            other.append((fd.name, _JSON_LIST, None))
        else:
            plain.append((fd.name, fd.default_value))
    missing = names - set(d.fields_by_name)
    if missing:
        raise AttributeError(f"{d.full_name} has no field {sorted(missing)[0]!r} (record {record_type.__name__})")
    _JSON_PLANS[record_type, d] = plan = (tuple(plain), tuple(other), tuple(absent))
    return plan


def payload_json(payload: Any, encoded: bytes | None = None) -> dict[str, Any]:
    """:func:`message_to_json` of an event payload, kept per encoding
    (``encoded``: ``payload.SerializeToString()``, if already made): events
    repeat (a pass, a lone low card: up to four fifths of a Dou Dizhu match's
    events), and an encoding determines its message, so its JSON. The dict
    may be shared with other events: never change it."""
    d = payload.DESCRIPTOR
    known = _JSON_BY_ENCODING.get(d)
    if known is None:
        known = _JSON_BY_ENCODING[d] = {}
    if encoded is None:
        encoded = payload.SerializeToString()
    js = known.get(encoded)
    if js is None:
        js = _remember(known, encoded, message_to_json(payload), _JSON_BY_ENCODING_MAX)
    return js


def encoded_payload_json(game_name: str, encoded: bytes, payload: Any = None) -> dict[str, Any]:
    """:func:`payload_json` of the event message whose encoding is ``encoded``
    (:func:`payload_encoding`; ``payload``: the message, if built): a message
    not given is parsed only for an encoding not seen before. The dict may be
    shared with other events: never change it."""
    if payload is not None:
        return payload_json(payload, encoded)
    known = _JSON_BY_ENCODING.get(_EVENT_TYPES[game_name].DESCRIPTOR)
    js = known.get(encoded) if known is not None else None
    return js if js is not None else payload_json(payload_from_encoding(game_name, encoded), encoded)


#: game name -> its event message type (e.g. DouDizhuEvent: the Event oneof field's type)
_EVENT_TYPES = {f.name: type(getattr(pb.Event(), f.name)) for f in pb.Event.DESCRIPTOR.oneofs_by_name["game"].fields}

#: message type -> {encoding -> its message_to_json}, see payload_json; cleared when full
_JSON_BY_ENCODING: dict[Any, dict[bytes, dict[str, Any]]] = {}
_JSON_BY_ENCODING_MAX = 20_000


def to_struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


def message_to_json(m: Any) -> dict[str, Any]:
    """A protobuf message as a JSON-able dict (field names as in the .proto),
    with every field that has no presence written even when it equals its
    default (seat 0, amount 0, an empty card list: a reader never has to
    know the proto's defaults); message fields, oneof members and
    ``optional`` fields appear only when set.

    Exactly ``json_format.MessageToDict(m, preserving_proto_field_name=True,
    always_print_fields_with_no_presence=True)`` (match logs are compared
    with it on replay, see :func:`normalised_json`), computed by a converter
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


_PLAIN_SCALARS = frozenset({_FD.CPPTYPE_INT32, _FD.CPPTYPE_UINT32, _FD.CPPTYPE_STRING, _FD.CPPTYPE_BOOL})
_INT64_SCALARS = frozenset({_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64})
_JSON_CONVERTERS: dict[Any, Any] = {}


def _json_fallback(m: Any) -> dict[str, Any]:
    return json_format.MessageToDict(m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def normalised_json(d: dict[str, Any], message_type: Any) -> dict[str, Any]:
    """``d`` (a message of ``message_type`` as JSON, e.g. from a match log
    written before defaults were written out) as :func:`message_to_json`
    writes it now. Raises ``json_format.ParseError`` if ``d`` is not such a
    message."""
    return message_to_json(json_format.ParseDict(d, message_type()))


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
    # kind, so that a field costs as few Python steps as it can (those steps
    # are most of a converter's cost): the values written as they are first.
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
        if converted:
            for name, fn in converted:
                js[name] = fn(getattr(m, name))
        if repeated_plain:
            for name in repeated_plain:
                js[name] = list(getattr(m, name))
        if repeated_converted:
            for name, fn in repeated_converted:
                js[name] = [fn(x) for x in getattr(m, name)]
        if when_set:
            for name, fn in when_set:
                if m.HasField(name):
                    v = getattr(m, name)
                    js[name] = v if fn is None else fn(v)
        if oneofs:
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
