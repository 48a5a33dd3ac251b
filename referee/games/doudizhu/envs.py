"""Dou Dizhu in the training environments (docs/envs.md): its player count
by default, its BID indices, its match scores and its observation array
(written with :mod:`referee.envs.encode`). Imported only by :mod:`referee.envs`,
through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from referee.engine import PASS, Action, Game
from referee.envs.actions import CARD_INDEX, N_CARDS, Oracle
from referee.envs.encode import BIG, Writer, common

from . import events as E
from . import rules as R

#: the player count of an environment made without one
PLAYERS = 3
#: the BID amounts with an index of their own: auction units
BID_AMOUNTS: tuple[int, ...] = (1, 2, 3)


def match_scores(game: Game) -> list[float]:
    """Each seat's money so far (before the end of the match)."""
    return [float(x) for x in game.scores]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``DouDizhuObservation``."""
    _write(w, kind, o.hand, o.phase - 1, o.round, o.rounds, o.scores, o.hand_sizes, o.marker, o.first_bidder,
           [(c.seat, c.amount) for c in o.calls], o.high_bid, o.landlord, o.bid, o.kitty, o.top, o.top_seat,
           o.passes, o.doublings, o.multiplier, o.spring, [(p.seat, p.cards) for p in o.trick],
           [(p.seat, p.cards) for p in o.history])


def encode_state(w: Writer, g: Any, kind: str | None) -> None:
    """The same array as :func:`encode` of ``view.observation(g, w.me)``,
    read from the engine's state (shared/rules/doudizhu.md section 10: the
    seat's own hand and the public state), without building the message."""
    p = g.playp if g.phase != "auction" else None
    a = g.auction
    _write(w, kind, g.hands[w.me], _PHASES.index(g.phase), g.round, g.params["rounds"], g.scores,
           [len(h) for h in g.hands], g.marker, g.first_bidder, a.calls, a.high, -1 if p is None else p.landlord,
           0 if p is None else a.bid, () if p is None else g.kitty, () if p is None else p.top_cards,
           -1 if p is None else p.top_seat, 0 if p is None else p.passes, 0 if p is None else p.doublings,
           1 if p is None else 1 << p.doublings, g.spring,
           [] if p is None else [(r.seat, r.cards) for r in g.trick()], [(r.seat, r.cards) for r in g.history])


_PHASES = ("auction", "play", "over")


def _write(w: Writer, kind: str | None, hand: Sequence[str], phase_index: int, round_: int, rounds: int,
           scores: Sequence[int], hand_sizes: Sequence[int], marker: str, first_bidder: int,
           calls: Sequence[tuple[int, int]], high_bid: int, landlord: int, bid: int, kitty: Sequence[str],
           top: Sequence[str], top_seat: int, passes: int, doublings: int, multiplier: int, spring: bool,
           trick: list[tuple[int, Sequence[str]]], history: list[tuple[int, Sequence[str]]]) -> None:
    n = w.n
    common(w, kind, hand)
    w.onehot("phase", 3, phase_index, "the phase: " + ", ".join(_PHASES))
    w.scalar("round", round_, "the round (1-based; redeals count)", 0, BIG)
    w.scalar("rounds", rounds, "rounds in the match", 0, BIG)
    w.per_seat("scores", scores, "each seat's money so far")
    w.per_seat("hand_sizes", hand_sizes, "cards in each hand", 0, 33)
    w.cards("marker", [marker] if marker else (),
            "the marker card, drawn from the dealt cards; its holder bids first ([DEAL-3]), as a card vector")
    w.seat("first_bidder", first_bidder, "who bid first")
    off = w.seg("calls", n * 5, 0, 1, "each seat's auction call, 5 per seat: none, pass, bid 1, bid 2, bid 3")
    for s, amount in dict(calls).items():  # a seat's last call
        w.mark(off + ((s - w.me) % n) * 5 + amount + 1)  # 1 = pass, 2..4 = bids 1..3
    w.scalar("high_bid", high_bid, "the highest bid so far (units)", 0, 3)
    w.seat("landlord", landlord, "the landlord (none before the auction ends)")
    w.scalar("bid", bid, "the landlord's bid (units)", 0, 3)
    w.cards("kitty", kitty, "the kitty once turned up")
    w.cards("top", top, "the combination to beat (none when leading)")
    w.seat("top_seat", top_seat, "who played the top")
    w.scalar("passes", passes, "passes since the top was played", 0, 3)
    w.scalar("doublings", doublings, "bombs and rockets played this round", 0, BIG)
    w.scalar("multiplier", multiplier, "the round's multiplier so far", 0, BIG)
    w.flags("spring", [spring], "variant flag spring")
    w.seat_cards("trick", trick, "the current trick: each seat's play (a pass: none)")
    off = w.seg("trick_passed", n, 0, 1, "the current trick: each seat whose last action in it was a pass")
    for s, cards in dict(trick).items():  # a seat's last action in the trick
        if not cards:
            w.mark(off + (s - w.me) % n)
    w.seat_cards("played", history, "cards each seat played this round")


def state_decision(g: Any) -> tuple[tuple[Action, ...], Oracle | None] | None:
    """The decision of the seat to act, read from the engine for a play
    (the auction: ``None``, the engine's list): the actions without cards
    (PASS when there is a top) and a :class:`RankOracle` over the rank-level
    moves of spec section 7 (:func:`rules.legal_moves`), instead of the
    engine's list of every code multiset; no oracle when no play beats the
    top (PASS is the only action)."""
    if g.phase != "play":
        return None
    p = g.playp
    s = p.to_act
    moves = R.legal_moves(p.cnts[s], g.players, p.top)
    return ((_PASS,) if p.top is not None else ()), (RankOracle(p.groups[s], moves) if moves else None)


_PASS = Action(PASS)


class RankOracle:
    """The card oracle of a Dou Dizhu play at rank level: a combination and
    whether it beats the top depend on ranks only (spec sections 5 and 6),
    so a code is addable exactly when its rank is addable to the selection's
    ranks in some legal rank-level move and the hand holds another copy of
    it; the masks equal those of the list of every code multiset
    (``tests/test_envs.py``). ``groups``: the hand's codes by rank
    (:func:`rules.by_rank`); ``moves``: :func:`rules.legal_moves`.

    Each move and the selection are held as sets of *rank instances* packed
    in an int (:func:`_rank_bits`: bit ``8 * rank + copy``, as
    :func:`referee.envs.actions.instances` does for codes), so that a move
    holds the selection exactly when ``move & sel == sel``. Cost per step:
    linear in the moves still holding the selection. ``ValueError`` if a
    selection shrinks (a decision only adds cards)."""

    __slots__ = ("_held", "_cands", "_sel", "_size")

    def __init__(self, groups: Sequence[tuple[str, ...]], moves: list[tuple[tuple[int, int], ...]]):
        self._held = [(r, group) for r, group in enumerate(groups) if group]  # the ranks in the hand
        self._cands = [_rank_bits(m) for m in moves]  # the moves holding the selection
        self._sel = 0  # the selection's rank instances
        self._size = 0

    def __copy__(self) -> RankOracle:
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        o = RankOracle((), [])
        o._held, o._cands, o._sel, o._size = self._held, self._cands, self._sel, self._size
        return o

    def _narrow(self, selection: dict[str, int], size: int) -> None:
        if size == self._size:
            return
        if size < self._size:
            raise ValueError("a RankOracle's selection only grows")
        counts: dict[int, int] = {}
        for c, k in selection.items():
            r = R.RANK_OF[c]
            counts[r] = counts.get(r, 0) + k
        sel = _rank_bits(counts.items())
        self._cands = [m for m in self._cands if m & sel == sel]
        self._sel, self._size = sel, size

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        self._narrow(selection, size)
        more = 0  # the rank instances some move holds beyond the selection
        for m in self._cands:
            more |= m
        more &= ~self._sel
        out = set()
        for r, group in self._held:
            if more >> (8 * r) & 0xFF:
                for c in group:
                    if selection.get(c, 0) < group.count(c):
                        out.add(c)
        return out

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        self._narrow(selection, size)
        return size > 0 and self._sel in self._cands

    def closed(self, selection: dict[str, int], size: int) -> bool:
        self._narrow(selection, size)
        return size > 0 and all(m == self._sel for m in self._cands)


def _rank_bits(counts: Iterable[tuple[int, int]]) -> int:
    """The rank instances of (rank, count) pairs as bits of an int: bits
    ``8 * rank`` .. ``8 * rank + count - 1`` (a rank holds at most 8 cards,
    two decks)."""
    bits = 0
    for r, k in counts:
        bits |= ((1 << k) - 1) << (8 * r)
    return bits


def update(arrays: list[Any], off: dict[str, int], g: Any, records: Sequence[Any]) -> bool:
    """Bring each seat's array (``arrays[s]``, ``None``: not made yet) up to
    date with one action's event records (``g`` is the state after the
    action): a call, a play or pass and a trick's end change the entries
    they name (the counters, high bid, passes and doublings, are read from
    ``g``). Returns False for any other record (a deal, the auction's or a
    round's end): the arrays are then encoded again from the state.
    ``tests/test_envs.py`` checks the arrays equal :func:`encode_state` of
    every seat at every step."""
    n = g.players
    trick, played, passed, hand = off["trick"], off["played"], off["trick_passed"], off["hand"]
    top, top_seat = off["top"], off["top_seat"]
    for r in records:
        t = type(r)
        if t is E.Play:
            if g.phase != "play":  # the play ended the round
                return False
            p = g.playp
            codes = [CARD_INDEX[c] for c in r.cards]
            left = len(g.hands[r.seat])
            for me, a in enumerate(arrays):
                if a is not None:
                    k = (r.seat - me) % n
                    a[off["passes"]] = p.passes
                    a[passed + k] = 0 if codes else 1  # the seat's last action in the trick
                    if not codes:
                        continue
                    a[top:top + N_CARDS] = 0
                    for c in codes:
                        a[trick + k * N_CARDS + c] += 1
                        a[played + k * N_CARDS + c] += 1
                        a[top + c] += 1
                        if k == 0:
                            a[hand + c] -= 1
                    a[off["hand_sizes"] + k] = left
                    a[top_seat:top_seat + n] = 0
                    a[top_seat + k] = 1
                    a[off["doublings"]] = p.doublings
                    a[off["multiplier"]] = 1 << p.doublings
        elif t is E.TrickEnd:
            for a in arrays:
                if a is not None:
                    a[trick:trick + n * N_CARDS] = 0
                    a[passed:passed + n] = 0
                    a[top:top + N_CARDS] = 0
                    a[top_seat:top_seat + n] = 0
                    a[off["passes"]] = 0
        elif t is E.Call:
            for me, a in enumerate(arrays):
                if a is not None:
                    block = off["calls"] + ((r.seat - me) % n) * 5  # the seat's last call
                    a[block:block + 5] = 0
                    a[block + r.amount + 1] = 1
                    a[off["high_bid"]] = g.auction.high
        else:
            return False
    return True
