"""TRANSITIONAL (issue #20): protobuf wire-format pieces for the hot
observation/event paths of the engines not converted to the contract of
:mod:`referee.engine` yet (:class:`referee.engine.LegacyGame`). Converted
engines know nothing of the wire; the conversion of the last legacy game
deletes this module.

Engines build a message as the concatenation of encoded fields and parse it
once (``Message.FromString``), instead of constructing nested messages field
by field: a parsed message equals the constructed one (field order on the
wire does not matter to a parser; repeated fields concatenate; a scalar field
must appear at most once). Only proto3 semantics are handled: a scalar equal
to its default is not encoded, a sub-message field is always encoded when
given (so it is present after parsing, even empty).

Everything here is pure and small; the per-value tables an engine needs are
built from these helpers at import time.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable


#: one-byte varints, by value (0..127)
SMALL = [bytes((i,)) for i in range(128)]


def varint(n: int) -> bytes:
    """Varint of ``n``; a negative int32/int64 as its 64-bit two's complement
    (10 bytes), as protobuf encodes it."""
    if 0 <= n < 128:
        return SMALL[n]
    if 0 < n < 16384:  # two bytes (message lengths, milliseconds): no loop
        return bytes((n & 0x7F | 0x80, n >> 7))
    n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    """Encoded field key (tag): ``field << 3 | wire_type``."""
    return varint(field << 3 | wire_type)


#: encoded keys of varint (wire type 0) and length-delimited (wire type 2) fields 0..63
_VARINT_KEYS = [varint(f << 3) for f in range(64)]
_LEN_KEYS = [varint(f << 3 | 2) for f in range(64)]


def int_field(field: int, n: int) -> bytes:
    """An int32/uint32/int64/bool/enum field (varint); ``b""`` for 0."""
    if not n:
        return b""
    return (_VARINT_KEYS[field] if field < 64 else varint(field << 3)) + varint(int(n))


def str_field(field: int, s: str) -> bytes:
    """A singular string field; ``b""`` for the empty string."""
    if not s:
        return b""
    raw = s.encode()
    return varint(field << 3 | 2) + varint(len(raw)) + raw


def len_field(field: int, payload: bytes) -> bytes:
    """A length-delimited field (sub-message, or one entry of a repeated
    string/message field), always encoded, even when ``payload`` is empty."""
    n = len(payload)
    return ((_LEN_KEYS[field] if field < 64 else varint(field << 3 | 2)) + (SMALL[n] if n < 128 else varint(n))
            + payload)


def repeated_str_entries(field: int, codes: Iterable[str]) -> dict[str, bytes]:
    """Per code, the encoding of a one-entry repeated string field ``field``
    (a repeated string field encodes as the concatenation of its entries)."""
    return {c: len_field(field, c.encode()) for c in codes}


def packed_small_uints(field: int, values: Iterable[int]) -> bytes:
    """A packed repeated uint32/int32 field of values (any size; one-byte
    values are the common case). Always encoded, even with no value:
    callers pass a non-empty list (an empty packed field would also parse
    as empty)."""
    body = b"".join([varint(v) for v in values])
    return len_field(field, body)


class WireEvent:
    """TRANSITIONAL: a legacy engine's event whose payload (the game's event
    protobuf message) may be given encoded (``encoded`` + its type's
    ``FromString`` as ``parse``) and is then parsed the first time
    :attr:`record` is read. Quacks like :class:`referee.engine.Event`."""

    __slots__ = ("_payload", "to", "_encoded", "_parse")

    def __init__(self, payload: Any = None, to: int | None = None, *, encoded: bytes | None = None,
                 parse: Callable[[bytes], Any] | None = None):
        if payload is None and (encoded is None or parse is None):
            raise TypeError("WireEvent needs a payload, or its encoding and a parser")
        self._payload = payload
        self.to = to
        self._encoded = encoded
        self._parse = parse

    @property
    def record(self) -> Any:
        p = self._payload
        if p is None:
            p = self._payload = self._parse(self._encoded)  # type: ignore[misc]
        return p

    payload = record

    def __eq__(self, other: object) -> bool:
        if not hasattr(other, "record") or not hasattr(other, "to"):
            return NotImplemented
        return self.to == other.to and self.record == other.record

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WireEvent(record={self.record!r}, to={self.to!r})"
