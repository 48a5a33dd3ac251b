"""What the games' view modules build their messages with.

A view (``referee/games/<game>/view.py``) builds a seat's observation and
each event as plain protobuf messages. Two helpers are shared:

* :func:`merge_records` puts a list of event records (a round's plays, its
  finished tricks) into a repeated message field. Those lists come back at
  every decision of a round, so each record's entry is encoded once and the
  entries are merged in one parse: the one cache of the protocol layer, and
  the only one that pays (building the messages anew costs ~1-2 µs per entry
  at every decision).
* :func:`fill_message` sets a message's fields from a record whose fields are
  the message's, one for one.

Only protobuf is imported here, so a view never imports :mod:`referee.protocol`
(which finds the views through :func:`referee.games.view_module`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable


def merge_records(message: Any, field: str, records: Iterable[Any], convert: Callable[[Any], Any]) -> None:
    """Append ``convert(record)`` for each of ``records`` to ``message.<field>``,
    a repeated message field, in order; for a singular message field and one
    record, merge it in. The same as ``getattr(message, field).extend(map(convert,
    records))`` (or ``.MergeFrom(convert(record))``).

    ``records`` must be immutable (frozen dataclasses, tuples) and ``convert``
    a pure function of its record: each record's entry is encoded once, the
    first time it is seen, and kept by the record's identity (the cache holds
    the record, so no other object can take its id; it is emptied once it holds
    :data:`MAX_ENTRIES` entries). Raises what ``convert`` raises."""
    if not records:
        return
    key = (message.DESCRIPTOR, field, convert)
    entries = _ENTRIES.get(key)
    if entries is None or len(entries.known) >= MAX_ENTRIES:
        entries = _ENTRIES[key] = _Entries(message.DESCRIPTOR.fields_by_name[field].number, convert)
    message.MergeFromString(b"".join([entries.entry(r) for r in records]))


#: entries kept per (message type, field, converter) before its cache is emptied
MAX_ENTRIES = 50_000


class _Entries:
    """The encoded entries (key, length, message) of one field, by record identity."""

    __slots__ = ("key", "convert", "known")

    def __init__(self, number: int, convert: Callable[[Any], Any]):
        self.key = _varint(number << 3 | 2)  # a length-delimited field
        self.convert = convert
        self.known: dict[int, tuple[Any, bytes]] = {}  # id(record) -> (the record, kept alive; its entry)

    def entry(self, record: Any) -> bytes:
        hit = self.known.get(id(record))
        if hit is None:
            body = self.convert(record).SerializeToString()
            hit = self.known[id(record)] = (record, self.key + _varint(len(body)) + body)
        return hit[1]


#: (message descriptor, field name, converter) -> its entries, see merge_records
_ENTRIES: dict[tuple[Any, str, Any], _Entries] = {}


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
    fields = message.DESCRIPTOR.fields_by_name
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if value is None:
            continue
        fd = fields[f.name]
        if fd.message_type is None:
            if fd.is_repeated:
                getattr(message, f.name).extend(value)
            else:
                setattr(message, f.name, value)
        elif fd.is_repeated:
            add = getattr(message, f.name).add
            for x in value:
                fill_message(add(), x)
        else:
            fill_message(getattr(message, f.name), value)
