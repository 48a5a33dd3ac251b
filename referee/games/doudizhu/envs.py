"""Dou Dizhu in the training environments (docs/envs.md): its player count
by default, its BID indices, its match scores and its observation array
(written with :mod:`referee.envs.encode`). Imported only by :mod:`referee.envs`,
through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any

from referee.engine import Game
from referee.envs.encode import BIG, Writer, common, phase

#: the player count of an environment made without one
PLAYERS = 3
#: the BID amounts with an index of their own: auction units
BID_AMOUNTS: tuple[int, ...] = (1, 2, 3)


def match_scores(game: Game) -> list[float]:
    """Each seat's money so far (before the end of the match)."""
    return [float(x) for x in game.scores]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``DouDizhuObservation``."""
    n = w.n
    common(w, kind, o.hand)
    phase(w, o.phase, ("auction", "play", "over"))
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
