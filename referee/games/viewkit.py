"""What the games' view modules build their messages with.

A view (``referee/games/<game>/view.py``) builds a seat's observation and
each event as plain protobuf messages. Two helpers are shared:

* :func:`merge_records` puts a list of event records (a round's plays, its
  finished tricks) into a repeated message field. Those lists come back at
  every decision of a round, so each record's message is encoded once and
  the list is merged in one parse: the one cache of the protocol layer, and
  the only one that pays (building the messages anew costs ~1-2 µs per entry
  at every decision).
* :func:`fill_message` sets a message's fields from a record whose fields are
  the message's, one for one.

Only protobuf is imported here, so a view never imports :mod:`referee.protocol`
(which finds the views through :func:`referee.games.view_module`).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Iterable


def merge_records(message: Any, field: str, records: Iterable[Any], convert: Callable[[Any], Any]) -> None:
    """Append ``convert(record)`` for each of ``records`` to ``message.<field>``,
    a repeated message field, in order; for a singular message field and one
    record, merge it in. The same as ``getattr(message, field).extend(map(convert,
    records))`` (or ``.MergeFrom(convert(record))``).

    ``records`` must be immutable (frozen dataclasses, tuples) and ``convert``
    a pure function of its record: each record's message is encoded once per
    converter, the first time it is seen (whatever the field), and kept by
    the record's identity (the cache holds the record, so no other object can
    take its id; a converter's cache is emptied once it holds
    :data:`MAX_ENTRIES` records). Raises what ``convert`` raises."""
    known = _ENCODED.get(convert)
    if known is None or len(known) >= MAX_ENTRIES:
        known = _ENCODED[convert] = {}
    encoded = [(known.get(id(r)) or _encode(known, convert, r))[1] for r in records]
    if encoded:
        # each entry of the field: its key, then the record's message with its length
        key = _field_key(message.DESCRIPTOR, field)
        message.MergeFromString(key + key.join(encoded))


#: records kept per converter before its cache is emptied
MAX_ENTRIES = 50_000
#: converter -> {id(record) -> (the record, kept alive; its message encoded, its length first)}
_ENCODED: dict[Any, dict[int, tuple[Any, bytes]]] = {}


def _encode(known: dict[int, tuple[Any, bytes]], convert: Callable[[Any], Any], record: Any) -> tuple[Any, bytes]:
    body = convert(record).SerializeToString()
    known[id(record)] = hit = (record, _varint(len(body)) + body)
    return hit


@functools.cache
def _field_key(descriptor: Any, field: str) -> bytes:
    """The encoded key of a message field (length-delimited)."""
    return _varint(descriptor.fields_by_name[field].number << 3 | 2)


def _varint(n: int) -> bytes:
    """The protobuf varint of ``n`` >= 0."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def fill_message(message: Any, record: Any) -> None:
    """Set the fields of ``message`` from ``record``, a dataclass whose fields
    are the message's fields one for one: a tuple for a repeated field, a nested
    record for a message field, a tuple of them for a repeated one, ``None`` for
    a field left unset. The message is marked set even when every field is at
    its default. ``KeyError`` for a record field the message lacks."""
    message.SetInParent()
    for name, how in _fill_plan(type(record), message.DESCRIPTOR):
        value = getattr(record, name)
        if value is None:
            continue
        if how == "scalar":
            setattr(message, name, value)
        elif how == "scalars":
            getattr(message, name).extend(value)
        elif how == "record":
            fill_message(getattr(message, name), value)
        else:  # "records"
            add = getattr(message, name).add
            for x in value:
                fill_message(add(), x)


@functools.cache
def _fill_plan(record_type: type, descriptor: Any) -> tuple[tuple[str, str], ...]:
    """The record type's fields, each with how it goes into the message (see fill_message)."""
    plan = []
    for f in dataclasses.fields(record_type):
        fd = descriptor.fields_by_name[f.name]
        if fd.message_type is None:
            plan.append((f.name, "scalars" if fd.is_repeated else "scalar"))
        else:
            plan.append((f.name, "records" if fd.is_repeated else "record"))
    return tuple(plan)
