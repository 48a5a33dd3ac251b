"""Fixed-size observation arrays, made from the seat's protocol observation.

A seat's array is computed from the very observation message the referee
sends that seat (``DecisionRequest.observation``, built by the game's
``view.observation``), so it holds nothing the seat may not see, and a bot
computes the same array from the request it receives
(:mod:`referee.policybot`).

Every array is float32 and flat, a concatenation of named *segments*
(:class:`Segment`: name, offset, size, bounds, meaning); docs/envs.md lists
them per game, and :func:`layout` returns them. Conventions:

* a card vector has 54 entries, one per code of
  :data:`referee.envs.actions.CARD_CODES` (2C..AC, 2D..AD, 2H..AH,
  2S..AS, BJ, RJ), each the number of copies (0..2);
* seats are *relative*: entry ``k`` of a per-seat segment is about seat
  ``(me + k) mod n``, so entry 0 is always the observing seat; a seat
  one-hot is all zeros for "none";
* a per-seat card segment is ``n`` card vectors in relative seat order.

The first three segments are the same in every game: ``decision`` (one-hot
of BID, PLAY, DECLARE, DISCARD, EXCHANGE; all zeros when the seat is not to
act), ``selection`` (the cards selected so far in the pending decision, see
:mod:`referee.envs.actions`) and ``hand``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from cardgames.v1 import referee_pb2 as pb
from referee.engine import DECISION_KINDS

from .actions import CARD_INDEX, N_CARDS

BIG = 1e6  # the bound of a score-like number
RANKS = "23456789TJQKA"
SUITS = "CDHS"


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
    """Writes one observation array segment by segment; the first run (with
    ``specs``) records the layout. Every method writes a fixed number of
    entries, whatever the message holds."""

    __slots__ = ("buf", "pos", "me", "n", "specs", "hits")

    def __init__(self, buf: np.ndarray, me: int, n: int, specs: list[Segment] | None = None):
        self.buf, self.pos, self.me, self.n, self.specs = buf, 0, me, n, specs
        self.hits: list[int] = []  # card-vector entries to add 1 to, in one go at the end (:meth:`done`)

    def done(self) -> np.ndarray:
        """Add the card counts gathered by :meth:`cards` and :meth:`seat_cards`; returns the array."""
        if self.hits:
            self.buf += np.bincount(self.hits, minlength=self.buf.size).astype(np.float32)
        return self.buf

    def seg(self, name: str, size: int, low: float, high: float, doc: str) -> int:
        off = self.pos
        self.pos += size
        if self.specs is not None:
            self.specs.append(Segment(name, off, size, low, high, doc))
        return off

    def cards(self, name: str, codes: Iterable[str], doc: str) -> None:
        off = self.seg(name, N_CARDS, 0, 2, doc)
        self.hits.extend([off + CARD_INDEX[c] for c in codes])

    def seat(self, name: str, s: int, doc: str) -> None:
        """A seat as a relative one-hot (``s < 0``: none)."""
        off = self.seg(name, self.n, 0, 1, doc)
        if 0 <= s < self.n:
            self.buf[off + (s - self.me) % self.n] = 1

    def per_seat(self, name: str, values: Sequence[float], doc: str, low: float = -BIG, high: float = BIG) -> None:
        """One number per seat (``values`` in absolute seat order), relative order."""
        off = self.seg(name, self.n, low, high, doc)
        n, me, b = self.n, self.me, self.buf
        for s, v in enumerate(values[:n]):
            b[off + (s - me) % n] = v

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
            self.buf[off + i] = 1

    def choice(self, name: str, values: Sequence[Any], v: Any, doc: str) -> None:
        """A one-hot over ``values`` (``v`` not among them: all zeros)."""
        off = self.seg(name, len(values), 0, 1, doc)
        try:
            self.buf[off + values.index(v)] = 1
        except ValueError:
            pass

    def scalar(self, name: str, v: float, doc: str, low: float = -BIG, high: float = BIG) -> None:
        off = self.seg(name, 1, low, high, doc)
        self.buf[off] = v

    def flags(self, name: str, values: Sequence[bool], doc: str) -> None:
        off = self.seg(name, len(values), 0, 1, doc)
        for i, v in enumerate(values):
            if v:
                self.buf[off + i] = 1


def _common(w: Writer, kind: str | None, hand: Iterable[str]) -> None:
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


def _phase(w: Writer, phase: int, names: Sequence[str]) -> None:
    """A protocol phase enum (1-based, 0 unspecified) as a one-hot over ``names``."""
    w.onehot("phase", len(names), phase - 1, "the phase: " + ", ".join(names))


# ----------------------------------------------------------------------------- Dou Dizhu
def doudizhu(w: Writer, o: Any, kind: str | None) -> None:
    n = w.n
    _common(w, kind, o.hand)
    _phase(w, o.phase, ("auction", "play", "over"))
    w.scalar("round", o.round, "the round (1-based; redeals count)", 0, BIG)
    w.scalar("rounds", o.rounds, "rounds in the match", 0, BIG)
    w.per_seat("scores", o.scores, "each seat's money so far")
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 33)
    w.cards("marker", [o.marker] if o.marker else (), "the marker card (four players), as a card vector")
    w.seat("first_bidder", o.first_bidder, "who bid first")
    calls: dict[int, int] = {}
    for c in o.calls:
        calls[c.seat] = c.amount + 1  # 1 = pass, 2..4 = bids 1..3
    off = w.seg("calls", n * 5, 0, 1, "each seat's auction call, 5 per seat: none, pass, bid 1, bid 2, bid 3")
    for s, v in calls.items():
        w.buf[off + ((s - w.me) % n) * 5 + v] = 1
    w.scalar("high_bid", o.high_bid, "the highest bid so far (units)", 0, 3)
    w.seat("landlord", o.landlord, "the landlord (none before the auction ends)")
    w.scalar("bid", o.bid, "the landlord's bid (units)", 0, 3)
    w.cards("kitty", o.kitty, "the kitty once turned up")
    w.cards("top", o.top, "the combination to beat (none when leading)")
    w.seat("top_seat", o.top_seat, "who played the top")
    w.scalar("passes", o.passes, "passes since the top was played", 0, 3)
    w.scalar("doublings", o.doublings, "bombs and rockets played this round", 0, BIG)
    w.scalar("multiplier", o.multiplier, "the round's multiplier so far", 0, BIG)
    w.flags("spring", [o.spring], "variant flag spring")
    w.seat_cards("trick", ((p.seat, p.cards) for p in o.trick), "the current trick: each seat's play (a pass: none)")
    off = w.seg("trick_passed", n, 0, 1, "the current trick: each seat whose last action in it was a pass")
    last: dict[int, bool] = {}
    for p in o.trick:
        last[p.seat] = not p.cards
    for s, passed in last.items():
        if passed:
            w.buf[off + (s - w.me) % n] = 1
    w.seat_cards("played", ((p.seat, p.cards) for p in o.history), "cards each seat played this round")


# ----------------------------------------------------------------------------- Smear
def smear(w: Writer, o: Any, kind: str | None) -> None:
    n = w.n
    _common(w, kind, o.hand)
    _phase(w, o.phase, ("auction", "play", "over"))
    v = o.variant
    w.flags("variant", [v.with_joker, v.dealer_forced_bid, v.low_to_taker, v.strict_follow],
            "variant flags with_joker, dealer_forced_bid, low_to_taker, strict_follow")
    w.scalar("round", o.round, "the round (1-based)", 0, BIG)
    w.scalar("max_rounds", o.max_rounds, "the round limit", 0, BIG)
    w.scalar("target", o.target, "points that win the match", 0, BIG)
    w.seat("dealer", o.dealer, "the dealer")
    w.per_seat("scores", o.scores, "each seat's match points")
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 6)
    off = w.seg("calls", n * 4, 0, 1, "each seat's call, 4 per seat: pass, bid 2, bid 3, bid 4 (none: zeros)")
    for c in o.calls:
        w.buf[off + ((c.seat - w.me) % n) * 4 + max(c.bid - 1, 0)] = 1
    w.seat("bidder", o.bidder, "the bidder, once the auction is over")
    w.scalar("bid", o.bid, "the bid (0 before the end of the auction)", 0, 4)
    w.choice("trump", SUITS, o.trump, "the trump suit: C, D, H, S (none before the first card)")
    w.seat("leader", o.leader, "who leads the current trick")
    w.seat_cards("trick", ((p.seat, (p.card,)) for p in o.trick), "the current trick: each seat's card")
    w.seat_cards("played", ((p.seat, (p.card,)) for t in o.tricks for p in _smear_plays(t, n)),
                 "cards each seat played in the completed tricks of the round")
    w.seat_cards("won", ((t.winner, t.cards) for t in o.tricks), "cards each seat won in tricks this round")


class _SmearPlay:
    __slots__ = ("seat", "card")

    def __init__(self, seat: int, card: str):
        self.seat, self.card = seat, card


def _smear_plays(t: Any, n: int) -> list[_SmearPlay]:
    """The plays of a completed Smear trick (its cards in play order from its leader)."""
    return [_SmearPlay((t.leader + i) % n, c) for i, c in enumerate(t.cards)]


# ----------------------------------------------------------------------------- President
ROLES = ("president", "vice_president", "upper_neutral", "neutral", "lower_neutral", "vice_scum", "scum",
         "super_scum")
PRESIDENT_RANKS = tuple(RANKS) + ("JK",)


def president(w: Writer, o: Any, kind: str | None) -> None:
    n = w.n
    _common(w, kind, o.hand)
    _phase(w, o.phase, ("exchange", "play", "over"))
    r = o.rules
    w.flags("rules", [r.bigger_sets_beat_lower, r.bigger_sets_beat_any, r.equal_rank_beats, r.equal_rank_skip,
                      r.revolution, r.jokers, r.two_high_low, r.transparent_threes, r.double_exchange],
            "variant flags bigger_sets_beat_lower, bigger_sets_beat_any, equal_rank_beats, equal_rank_skip, "
            "revolution, jokers, two_high_low, transparent_threes, double_exchange")
    w.scalar("target_score", r.target_score, "role points that end the match", -BIG, BIG)
    w.scalar("round", o.round, "the round (1-based)", 0, BIG)
    w.seat("dealer", o.dealer, "the dealer")
    w.seat("first_leader", o.first_leader, "who led the round's first trick")
    off = w.seg("roles", n * len(ROLES), 0, 1, "each seat's role from the previous round, one-hot per seat over "
                + ", ".join(ROLES) + " (none in round 1)")
    for s, role in enumerate(o.roles[:n]):
        if role in ROLES:
            w.buf[off + ((s - w.me) % n) * len(ROLES) + ROLES.index(role)] = 1
    w.per_seat("totals", o.totals, "each seat's role points")
    w.per_seat("last_order", [0] * n if not o.last_order else _places(o.last_order, n),
               "each seat's finishing place in the previous round (1 = first out; 0 = none)", 0, 7)
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 27)
    w.cards("given", (c for t in o.exchange if t.from_seat == w.me for c in t.cards),
            "cards this seat gave in this round's exchange")
    w.cards("received", (c for t in o.exchange if t.to_seat == w.me for c in t.cards),
            "cards this seat received in this round's exchange")
    w.seat("return_to", o.return_to, "the seat this seat must return cards to now")
    w.scalar("return_count", o.return_count, "how many cards to return", 0, 2)
    w.flags("return_optional", [o.return_optional], "the return may be a pass")
    w.seat("trick_leader", o.trick_leader, "who led the current trick")
    w.scalar("top_count", o.top.count, "cards in the top set", 0, 8)
    w.choice("top_rank", PRESIDENT_RANKS, o.top.rank if o.top.count else None,
             "the top set's effective rank: 2..A, JK (none when leading)")
    w.seat("top_seat", o.top_seat, "who played the top")
    w.flags("revolution", [o.revolution], "a revolution is in force")
    off = w.seg("passed", n, 0, 1, "seats that passed since the top was played")
    for s in o.passed:
        w.buf[off + (s - w.me) % n] = 1
    w.seat_cards("trick", ((p.seat, p.cards) for p in o.trick), "the current trick: cards each seat played in it")
    w.cards("played", o.played, "every card played this round")
    w.per_seat("finished", _places(o.finished, n), "each seat's place among those gone out this round (0: still in)",
               0, 7)


def _places(order: Sequence[int], n: int) -> list[int]:
    out = [0] * n
    for i, s in enumerate(order):
        if 0 <= s < n:
            out[s] = i + 1
    return out


# ----------------------------------------------------------------------------- Back Alley
BA_SUITS = ("C", "D", "H", "S", "")  # trump "" = no trump


def back_alley(w: Writer, o: Any, kind: str | None) -> None:
    n = w.n
    _common(w, kind, o.hand)
    _phase(w, o.phase, ("bidding", "play", "over"))
    w.scalar("round_index", o.round_index, "the round index k (1..25)", 0, 25)
    w.scalar("hand_size", o.round_hand_size, "the round's hand size h", 0, 13)
    w.seat("dealer", o.dealer, "the dealer")
    w.scalar("passed_out_in_row", o.passed_out_in_row, "pass-outs in a row", 0, BIG)
    me_team = w.me % 2
    totals = list(o.totals) or [0, 0]
    w.scalar("my_total", totals[me_team], "this seat's team's points")
    w.scalar("their_total", totals[1 - me_team], "the other team's points")
    w.cards("upcard", [o.upcard] if o.upcard else (), "the turned-up card")
    w.choice("trump", BA_SUITS, o.trump if o.phase else None, "trump: C, D, H, S, or no trump")
    w.seat("exchange_seat", o.exchange_seat, "who exchanged a joker for the upcard")
    w.cards("laid_out_joker", [o.laid_out_joker] if o.laid_out_joker else (), "the joker laid out")
    w.per_seat("hand_counts", o.hand_counts, "cards in each hand", 0, 13)
    off = w.seg("bids", n * 5, 0, BIG, "each seat's bid, 5 per seat: none, pass, number, board (one-hot), tricks "
                "(a number bid) or board level")
    for b in o.bids:
        base = off + ((b.seat - w.me) % n) * 5
        w.buf[base + min(b.kind, 3)] = 1
        w.buf[base + 4] = b.board_level if b.kind == 3 else b.tricks
    off = w.seg("contracts", 6, 0, BIG, "the contracts, 3 for this seat's team then 3 for the other: board, "
                "board level, tricks (zeros before the end of bidding)")
    for c in o.contracts:
        base = off + (0 if c.team == me_team else 3)
        w.buf[base], w.buf[base + 1], w.buf[base + 2] = c.board, c.board_level, c.tricks
    w.seat("opening_leader", o.opening_leader, "who leads the first trick")
    t = o.current_trick
    w.seat("trick_leader", t.leader if o.phase == 2 else -1, "who led the current trick")
    w.seat_cards("trick", ((p.seat, (p.card,)) for p in t.plays), "the current trick: each seat's card")
    w.seat_cards("played", ((p.seat, (p.card,)) for tr in o.completed_tricks for p in tr.plays),
                 "cards each seat played in the completed tricks of the round")
    tt = list(o.team_tricks) or [0, 0]
    w.scalar("my_tricks", tt[me_team], "tricks this seat's team won this round", 0, 13)
    w.scalar("their_tricks", tt[1 - me_team], "tricks the other team won this round", 0, 13)
    w.flags("trumps_broken", [o.trumps_broken], "trumps have been broken")


# ----------------------------------------------------------------------------- Tractor
TRACTOR_SUITS = ("C", "D", "H", "S", "NT")
LEAD_TYPES = ("single", "pair", "tractor", "throw")


def _level(r: str) -> int:
    return RANKS.index(r) + 2 if r in RANKS else 15 if r else 0


def tractor(w: Writer, o: Any, kind: str | None) -> None:
    _common(w, kind, o.hand)
    _phase(w, o.phase, ("declare", "bury", "play", "over"))
    w.flags("variant", [o.notrump_rank_cards_trump, o.must_follow_tractor, o.kitty_multiplier_power,
                        o.must_play_ace, o.no_throw_penalty],
            "variant flags notrump_rank_cards_trump, must_follow_tractor, kitty_multiplier_power, must_play_ace, "
            "no_throw_penalty")
    w.scalar("round", o.round_number, "the round (1-based)", 0, BIG)
    me_team = w.me % 2
    levels = [_level(x) for x in o.levels] or [0, 0]
    w.scalar("my_level", levels[me_team], "this seat's team's level (2..14)", 0, 15)
    w.scalar("their_level", levels[1 - me_team], "the other team's level (2..14)", 0, 15)
    w.choice("trump_rank", tuple(RANKS), o.trump_rank, "the round's trump rank, one-hot 2..A")
    w.choice("trump_suit", TRACTOR_SUITS, o.trump_suit, "the trump suit once fixed: C, D, H, S, NT")
    dt = o.declarer_team
    w.choice("declarer_team", ("mine", "theirs"), None if dt < 0 else "mine" if dt == me_team else "theirs",
             "which team declares (none until known)")
    w.seat("starter", o.starter, "the starter")
    w.seat("first_drawer", o.first_drawer, "who received the first card")
    w.scalar("cards_dealt", o.cards_dealt, "cards dealt so far", 0, 108)
    w.flags("window", [o.final_window, o.declaration_closed], "the final declaration window is open; the trump is fixed")
    last = o.declarations[-1] if o.declarations else None
    w.seat("declared_by", last.seat if last is not None else -1, "who made the standing declaration")
    w.cards("declared", last.cards if last is not None else (), "the cards of the standing declaration")
    w.cards("kitty_flipped", o.kitty_flipped, "the kitty cards turned up")
    w.cards("kitty_taken", o.kitty_taken, "the kitty this seat took (the starter only)")
    w.cards("kitty_buried", o.kitty_buried, "the kitty this seat buried (the starter only)")
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 33)
    t = o.current_trick
    w.seat("trick_leader", t.leader if o.phase == 3 else -1, "who led the current trick")
    w.seat_cards("trick", ((p.seat, p.cards) for p in t.plays), "the current trick: each seat's cards")
    w.choice("lead_type", LEAD_TYPES, t.lead_type, "the effective lead's type: single, pair, tractor, throw")
    w.cards("throw_attempted", t.throw_failure.attempted, "the cards of a failed throw in the current trick")
    w.seat("trick_winner", t.winner if t.plays else -1, "who is winning the current trick")
    w.scalar("trick_points", t.points, "points in the current trick", 0, 200)
    w.scalar("defender_points", o.defender_points, "the defenders' points so far", -BIG, BIG)
    w.seat_cards("played", ((p.seat, p.cards) for tr in o.tricks for p in tr.plays),
                 "cards each seat played in the completed tricks of the round")


ENCODERS: dict[str, Callable[[Writer, Any, str | None], None]] = {
    "doudizhu": doudizhu, "smear": smear, "president": president, "back_alley": back_alley, "tractor": tractor,
}

#: game -> its observation message type (the Observation oneof member)
MESSAGE_TYPES = {f.name: type(getattr(pb.Observation(), f.name)) for f in pb.Observation.DESCRIPTOR.fields}


class Encoder:
    """The observation arrays of one game and player count.

    ``segments`` (:class:`Segment`), ``size``; ``low``/``high``: the bounds
    per entry (float32 arrays). :meth:`encode` makes the array of one seat.
    ``KeyError`` for an unknown game."""

    def __init__(self, game: str, players: int):
        self.game, self.players = game, players
        self._fn = ENCODERS[game]
        specs: list[Segment] = []
        scratch = np.zeros(1 << 16, dtype=np.float32)
        w = Writer(scratch, 0, players, specs)
        self._fn(w, MESSAGE_TYPES[game](), None)
        self.segments: tuple[Segment, ...] = tuple(s for s in specs if s.size)
        self.size = w.pos
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        for s in self.segments:
            self.low[s.offset:s.offset + s.size] = s.low
            self.high[s.offset:s.offset + s.size] = s.high
        self.selection = next(s for s in self.segments if s.name == "selection").offset

    def encode(self, obs: Any, seat: int, kind: str | None) -> np.ndarray:
        """The float32 array of ``seat`` from its game observation message
        ``obs`` (e.g. a ``SmearObservation``); ``kind``: its pending decision
        kind, or ``None``. The selection segment is left at zero."""
        w = Writer(np.zeros(self.size, dtype=np.float32), seat, self.players)
        self._fn(w, obs, kind)
        return w.done()

    def segment(self, name: str) -> Segment:
        """The segment called ``name`` (``StopIteration`` if none)."""
        return next(s for s in self.segments if s.name == name)
