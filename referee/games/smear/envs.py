"""Cutthroat Canadian Smear in the training environments (docs/envs.md):
its player count by default, its BID indices, its match scores and its
observation array (written with :mod:`referee.envs.encode`). Imported only
by :mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import Game
from referee.envs.actions import CARD_INDEX, N_CARDS
from referee.envs.encode import BIG, SUITS, Writer, common, one_card_played

from . import events as E
from . import rules as R

#: the player count of an environment made without one
PLAYERS = 3
#: the BID amounts with an index of their own: points undertaken
BID_AMOUNTS: tuple[int, ...] = (2, 3, 4)


def match_scores(game: Game) -> list[float]:
    """Each seat's match points so far (before the end of the match)."""
    return [float(x) for x in game.scores]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``SmearObservation``."""
    _write(w, kind, o.hand, o.phase - 1, o.variant.with_joker, o.variant.dealer_forced_bid, o.variant.low_to_taker,
           o.variant.strict_follow, o.round, o.max_rounds, o.target, o.dealer, o.scores, o.hand_sizes,
           [(c.seat, c.bid) for c in o.calls], o.bidder, o.bid, o.trump, o.leader,
           [(p.seat, p.card) for p in o.trick], *_played_won(o.tricks, w.n))


def _played_won(tricks: Sequence[Any], n: int) -> tuple[list[list[str]], list[list[str]]]:
    """Per seat, the cards it played in ``tricks`` (completed tricks:
    ``leader``, ``cards`` in play order, ``winner``) and the cards it won."""
    played: list[list[str]] = [[] for _ in range(n)]
    won: list[list[str]] = [[] for _ in range(n)]
    for t in tricks:
        for i, c in enumerate(t.cards):
            played[(t.leader + i) % n].append(c)
        won[t.winner].extend(t.cards)
    return played, won


def encode_state(w: Writer, g: Any, kind: str | None) -> None:
    """The same array as :func:`encode` of ``view.observation(g, w.me)``,
    read from the engine's state (shared/rules/smear.md section 9: the
    seat's own hand and the public state), without building the message."""
    n, v, dealer = g.players, g.variant, g.dealer
    leader = -1 if g.leader is None else g.leader
    _write(w, kind, g.hands[w.me], _PHASES.index(g.phase), v["with_joker"], v["dealer_forced_bid"],
           v["low_to_taker"], v["strict_follow"], g.round, g.params["max_rounds"], R.TARGET, dealer, g.scores,
           [len(h) for h in g.hands], [((dealer + 1 + i) % n, c) for i, c in enumerate(g.calls)],
           -1 if g.bidder is None else g.bidder, g.bid, g.trump or "", leader,
           [((leader + i) % n, c) for i, c in enumerate(g.trick)],
           [[t.cards[(s - t.leader) % n] for t in g.tricks] for s in range(n)], g.won)


_PHASES = ("auction", "play", "over")


def _write(w: Writer, kind: str | None, hand: Sequence[str], phase_index: int, with_joker: bool, forced: bool,
           low_to_taker: bool, strict: bool, round_: int, max_rounds: int, target: int, dealer: int,
           scores: Sequence[int], hand_sizes: Sequence[int], calls: list[tuple[int, int]], bidder: int, bid: int,
           trump: str, leader: int, trick: list[tuple[int, str]], played: Sequence[Sequence[str]],
           won: Sequence[Sequence[str]]) -> None:
    n = w.n
    common(w, kind, hand)
    w.onehot("phase", 3, phase_index, "the phase: " + ", ".join(_PHASES))
    w.flags("variant", [with_joker, forced, low_to_taker, strict],
            "variant flags with_joker, dealer_forced_bid, low_to_taker, strict_follow")
    w.scalar("round", round_, "the round (1-based)", 0, BIG)
    w.scalar("max_rounds", max_rounds, "the round limit", 0, BIG)
    w.scalar("target", target, "points that win the match", 0, BIG)
    w.seat("dealer", dealer, "the dealer")
    w.per_seat("scores", scores, "each seat's match points")
    w.per_seat("hand_sizes", hand_sizes, "cards in each hand", 0, 6)
    off = w.seg("calls", n * 4, 0, 1, "each seat's call, 4 per seat: pass, bid 2, bid 3, bid 4 (none: zeros)")
    for s, b in calls:
        w.mark(off + ((s - w.me) % n) * 4 + max(b - 1, 0))
    w.seat("bidder", bidder, "the bidder, once the auction is over")
    w.scalar("bid", bid, "the bid (0 before the end of the auction)", 0, 4)
    w.choice("trump", SUITS, trump, "the trump suit: C, D, H, S (none before the first card)")
    w.seat("leader", leader, "who leads the current trick")
    w.seat_cards("trick", [(s, (c,)) for s, c in trick], "the current trick: each seat's card")
    w.seat_cards("played", enumerate(played), "cards each seat played in the completed tricks of the round")
    w.seat_cards("won", enumerate(won), "cards each seat won in tricks this round")


def update(arrays: list[Any], off: dict[str, int], g: Any, records: Sequence[Any]) -> bool:
    """Bring each seat's array (``arrays[s]``, ``None``: not made yet) up to
    date with one action's event records (the state ``g`` is the one after
    the action): a call, the auction's end, a play (and the trump it fixes),
    a trick's end, the scores at a round's end and the match's end change a
    few entries. Returns False for any other record (a new deal, a passed-out
    auction): the arrays are then encoded again from the state.
    ``tests/test_envs.py`` checks the arrays equal :func:`encode_state` of
    every seat at every step."""
    n = g.players
    trick, played, won, leader = off["trick"], off["played"], off["won"], off["leader"]
    for r in records:
        t = type(r)
        if t is E.Play:
            one_card_played(arrays, off, r.seat, r.card, len(g.hands[r.seat]))
        elif t is E.Trump:
            if r.suit in SUITS:
                for a in arrays:
                    if a is not None:
                        a[off["trump"] + SUITS.index(r.suit)] = 1
        elif t is E.TrickEnd:
            cards = [CARD_INDEX[c] for c in r.cards]
            for me, a in enumerate(arrays):
                if a is not None:
                    a[trick:trick + n * N_CARDS] = 0
                    w = won + ((r.winner - me) % n) * N_CARDS
                    for i, c in enumerate(cards):
                        a[played + ((r.leader + i - me) % n) * N_CARDS + c] = 1
                        a[w + c] = 1
                    a[leader:leader + n] = 0
                    a[leader + (r.winner - me) % n] = 1
        elif t is E.Call:
            for me, a in enumerate(arrays):
                if a is not None:
                    a[off["calls"] + ((r.seat - me) % n) * 4 + max(r.bid - 1, 0)] = 1
        elif t is E.AuctionEnd and not r.passed_out:  # the play phase, led by the bidder
            for me, a in enumerate(arrays):
                if a is not None:
                    _set_phase(a, off, 1)
                    a[off["bidder"] + (r.bidder - me) % n] = 1
                    a[off["bid"]] = r.bid
                    a[leader + (r.bidder - me) % n] = 1
        elif t is E.RoundEnd:  # the scores; a new deal follows (not followed here) unless the match ends
            for me, a in enumerate(arrays):
                if a is not None:
                    for s, x in enumerate(r.scores):
                        a[off["scores"] + (s - me) % n] = x
        elif t is E.MatchEnd:  # the leader stays the last trick's (TrickEnd set its winner)
            for me, a in enumerate(arrays):
                if a is not None:
                    _set_phase(a, off, 2)
                    a[leader:leader + n] = 0
                    if g.leader is not None:
                        a[leader + (g.leader - me) % n] = 1
        else:
            return False
    return True


def _set_phase(a: Any, off: dict[str, int], index: int) -> None:
    a[off["phase"]:off["phase"] + len(_PHASES)] = 0
    a[off["phase"] + index] = 1
