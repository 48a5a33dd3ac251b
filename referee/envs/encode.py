"""Fixed-size observation arrays holding what a seat's protocol observation holds.

A seat's array holds what the observation message the referee sends that
seat holds (``DecisionRequest.observation``, built by the game's
``view.observation``), so nothing the seat may not see. A bot computes it
from the request it receives (:mod:`referee.policybot`), with the game's
``encode(writer, observation, kind)``; the environments compute the same
array from the engine's state with the game's ``encode_state(writer, game,
kind)`` where it has one (no message built) and keep it up to date from
each action's events with its ``update`` (:mod:`referee.envs.table`);
``tests/test_envs.py`` checks the three agree at every step.

Every array is float32 and flat, a concatenation of named *segments*
(:class:`Segment`: name, offset, size, bounds, meaning), written by those
functions (``referee/games/<game>/envs.py``) with a :class:`Writer`;
docs/envs.md lists them per game, and :attr:`Encoder.segments` holds them.
Conventions:

* a card vector has 54 entries, one per code of
  :data:`referee.envs.actions.CARD_CODES` (2C..AC, 2D..AD, 2H..AH,
  2S..AS, BJ, RJ), each the number of copies (0..2);
* seats are *relative*: entry ``k`` of a per-seat segment is about seat
  ``(me + k) mod n``, so entry 0 is always the observing seat; a seat
  one-hot is all zeros for "none";
* a per-seat card segment is ``n`` card vectors in relative seat order.

The first three segments are the same in every game (:func:`common`):
``decision`` (one-hot of BID, PLAY, DECLARE, DISCARD, EXCHANGE; all zeros
when the seat is not to act), ``selection`` (the cards selected so far in
the pending decision, see :mod:`referee.envs.actions`) and ``hand``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from cardgames.v1 import referee_pb2 as pb
from referee.engine import DECISION_KINDS
from referee.games import envs_module

from .actions import CARD_INDEX, N_CARDS

BIG = 1e6  # the bound of a score-like number
RANKS = "23456789TJQKA"  # the rank letters of the card codes, low to high
SUITS = ("C", "D", "H", "S")  # the suit letters, in card-vector order (a tuple: "" is none of them)


@dataclass(frozen=True)
class Segment:
    """One named part of an observation array: ``array[offset:offset+size]``,
    each value within ``[low, high]``; ``doc`` says what it holds."""

    name: str
    offset: int
    size: int
    low: float
    high: float
    doc: str


class Writer:
    """Writes one observation array of ``size`` entries segment by segment,
    for seat ``me`` of ``n``; the first run (with ``specs``) records the
    layout. Every method takes a fixed number of entries, whatever the
    observation holds. Entries are gathered in plain lists (``hits``: entries
    to add 1 to, ``idx``/``val``: entries to set) and written in two numpy
    operations by :meth:`done`."""

    __slots__ = ("size", "pos", "me", "n", "specs", "hits", "idx", "val")

    def __init__(self, size: int, me: int, n: int, specs: list[Segment] | None = None):
        self.size, self.pos, self.me, self.n, self.specs = size, 0, me, n, specs
        self.hits: list[int] = []
        self.idx: list[int] = []
        self.val: list[float] = []

    def done(self) -> np.ndarray:
        """The float32 array: the counts of :attr:`hits`, then the entries set by :meth:`put`."""
        buf = np.bincount(self.hits, minlength=self.size).astype(np.float32)
        if self.idx:
            buf[self.idx] = self.val
        return buf

    def seg(self, name: str, size: int, low: float, high: float, doc: str) -> int:
        """Take the next ``size`` entries as segment ``name``; returns its offset."""
        off = self.pos
        self.pos += size
        if self.specs is not None:
            self.specs.append(Segment(name, off, size, low, high, doc))
        return off

    def mark(self, i: int) -> None:
        """Entry ``i`` (of a one-hot or a flag) is 1."""
        self.hits.append(i)

    def put(self, i: int, v: float) -> None:
        """Entry ``i`` is ``v``."""
        self.idx.append(i)
        self.val.append(v)

    def cards(self, name: str, codes: Iterable[str], doc: str) -> None:
        off = self.seg(name, N_CARDS, 0, 2, doc)
        self.hits.extend([off + CARD_INDEX[c] for c in codes])

    def seat(self, name: str, s: int, doc: str) -> None:
        """A seat as a relative one-hot (``s < 0``: none)."""
        off = self.seg(name, self.n, 0, 1, doc)
        if 0 <= s < self.n:
            self.hits.append(off + (s - self.me) % self.n)

    def per_seat(self, name: str, values: Sequence[float], doc: str, low: float = -BIG, high: float = BIG) -> None:
        """One number per seat (``values`` in absolute seat order), relative order."""
        off = self.seg(name, self.n, low, high, doc)
        n, me = self.n, self.me
        self.idx.extend([off + (s - me) % n for s in range(min(n, len(values)))])
        self.val.extend(values[:n])

    def seat_cards(self, name: str, plays: Iterable[tuple[int, Iterable[str]]], doc: str) -> None:
        """Cards per seat: ``plays`` as (seat, codes); ``n`` card vectors, relative order."""
        off = self.seg(name, self.n * N_CARDS, 0, 2, doc)
        n, me, hits = self.n, self.me, self.hits
        for s, codes in plays:
            base = off + ((s - me) % n) * N_CARDS
            hits.extend([base + CARD_INDEX[c] for c in codes])

    def onehot(self, name: str, k: int, i: int | None, doc: str) -> None:
        off = self.seg(name, k, 0, 1, doc)
        if i is not None and 0 <= i < k:
            self.hits.append(off + i)

    def choice(self, name: str, values: Sequence[Any], v: Any, doc: str) -> None:
        """A one-hot over ``values`` (``v`` not among them: all zeros)."""
        off = self.seg(name, len(values), 0, 1, doc)
        if v in values:
            self.hits.append(off + values.index(v))

    def scalar(self, name: str, v: float, doc: str, low: float = -BIG, high: float = BIG) -> None:
        off = self.seg(name, 1, low, high, doc)
        self.idx.append(off)
        self.val.append(v)

    def flags(self, name: str, values: Sequence[bool], doc: str) -> None:
        off = self.seg(name, len(values), 0, 1, doc)
        self.hits.extend([off + i for i, v in enumerate(values) if v])


def common(w: Writer, kind: str | None, hand: Iterable[str]) -> None:
    """The first three segments of every game: ``decision``, ``selection`` and ``hand``."""
    w.choice("decision", DECISION_KINDS, kind, "the pending decision of this seat: BID, PLAY, DECLARE, DISCARD, "
             "EXCHANGE (all zeros: not this seat's turn)")
    w.seg("selection", N_CARDS, 0, 2, "cards selected so far in the pending decision (card vector)")
    w.cards("hand", hand, "the seat's own hand (card vector)")


SELECTION_OFFSET = len(DECISION_KINDS)  # where the selection segment starts in every game


def with_selection(base: np.ndarray, offset: int, selection: dict[str, int]) -> np.ndarray:
    """A copy of the array ``base`` with the selection segment (at ``offset``)
    holding ``selection`` (code -> copies)."""
    vec = base.copy()
    for c, k in selection.items():
        vec[offset + CARD_INDEX[c]] = k
    return vec


def one_card_played(arrays: list[np.ndarray | None], off: dict[str, int], seat: int, code: str, left: int,
                    sizes: str = "hand_sizes") -> None:
    """For a game's ``update`` (one deck, one card per play): ``seat``
    played ``code`` and holds ``left`` cards. In every array made so far
    (``arrays[s]``, ``None``: not made) the card joins the seat's vector of
    the ``trick`` segment and the seat's entry of segment ``sizes`` is
    ``left``; the card leaves the seat's own ``hand``."""
    n = len(arrays)
    c = CARD_INDEX[code]
    trick, count = off["trick"], off[sizes]
    for me, a in enumerate(arrays):
        if a is not None:
            k = (seat - me) % n
            a[trick + k * N_CARDS + c] = 1
            a[count + k] = left
    own = arrays[seat]
    if own is not None:
        own[off["hand"] + c] = 0


def phase(w: Writer, value: int, names: Sequence[str]) -> None:
    """The ``phase`` segment: a protocol phase enum ``value`` (1-based, 0
    unspecified) as a one-hot over ``names``."""
    w.onehot("phase", len(names), value - 1, "the phase: " + ", ".join(names))


#: game -> its observation message type (the Observation oneof member)
MESSAGE_TYPES = {f.name: type(getattr(pb.Observation(), f.name)) for f in pb.Observation.DESCRIPTOR.fields}


class Encoder:
    """The observation arrays of one game and player count, written by the
    game's ``encode`` (``referee/games/<game>/envs.py``).

    ``segments`` (:class:`Segment`), ``size``; ``low``/``high``: the bounds
    per entry (float32 arrays); ``offsets``: segment name -> offset.
    :meth:`encode` and :meth:`encode_state` make the array of one seat.
    :class:`referee.games.UnknownGame` for a game that is not implemented."""

    def __init__(self, game: str, players: int):
        self.game, self.players = game, players
        module = envs_module(game)
        self._fn: Callable[[Writer, Any, str | None], None] = module.encode
        self._state_fn: Callable[[Writer, Any, str | None], None] = module.encode_state
        specs: list[Segment] = []
        w = Writer(0, 0, players, specs)
        self._fn(w, MESSAGE_TYPES[game](), None)
        self.segments: tuple[Segment, ...] = tuple(s for s in specs if s.size)
        self.size = w.pos
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        for s in self.segments:
            self.low[s.offset:s.offset + s.size] = s.low
            self.high[s.offset:s.offset + s.size] = s.high
        #: segment name -> its offset
        self.offsets: dict[str, int] = {s.name: s.offset for s in self.segments}
        self.selection = self.offsets["selection"]  # the offsets of the two segments the environments
        self.decision = self.offsets["decision"]  # write themselves (a seat's selection, its decision)

    def encode(self, obs: Any, seat: int, kind: str | None) -> np.ndarray:
        """The float32 array of ``seat`` from its game observation message
        ``obs`` (e.g. a ``SmearObservation``); ``kind``: its pending decision
        kind, or ``None``. The selection segment is left at zero."""
        w = Writer(self.size, seat, self.players)
        self._fn(w, obs, kind)
        return w.done()

    def encode_state(self, game: Any, seat: int, kind: str | None) -> np.ndarray:
        """The array :meth:`encode` gives for ``seat``'s observation message,
        read from the engine ``game`` itself by the game's ``encode_state``
        (no message is built). ``tests/test_envs.py`` checks both give the
        same bytes at every step."""
        w = Writer(self.size, seat, self.players)
        self._state_fn(w, game, kind)
        return w.done()

    def segment(self, name: str) -> Segment:
        """The segment called ``name`` (``StopIteration`` if none)."""
        return next(s for s in self.segments if s.name == name)
