"""Cutthroat Canadian Smear in the training environments (docs/envs.md):
its player count by default, its BID indices, its match scores and its
observation array (written with :mod:`referee.envs.encode`). Imported only
by :mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any

from referee.engine import Game
from referee.envs.encode import BIG, SUITS, Writer, common, phase

#: the player count of an environment made without one
PLAYERS = 3
#: the BID amounts with an index of their own: points undertaken
BID_AMOUNTS: tuple[int, ...] = (2, 3, 4)


def match_scores(game: Game) -> list[float]:
    """Each seat's match points so far (before the end of the match)."""
    return [float(x) for x in game.scores]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``SmearObservation``."""
    n = w.n
    common(w, kind, o.hand)
    phase(w, o.phase, ("auction", "play", "over"))
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
    w.seat_cards("played", ((p.seat, (p.card,)) for t in o.tricks for p in _plays(t, n)),
                 "cards each seat played in the completed tricks of the round")
    w.seat_cards("won", ((t.winner, t.cards) for t in o.tricks), "cards each seat won in tricks this round")


class _Play:
    __slots__ = ("seat", "card")

    def __init__(self, seat: int, card: str):
        self.seat, self.card = seat, card


def _plays(t: Any, n: int) -> list[_Play]:
    """The plays of a completed trick (its cards in play order from its leader)."""
    return [_Play((t.leader + i) % n, c) for i, c in enumerate(t.cards)]
