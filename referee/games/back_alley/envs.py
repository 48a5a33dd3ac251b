"""Back Alley in the training environments (docs/envs.md): its player count
by default, its BID indices, its match scores and its observation array
(written with :mod:`referee.envs.encode`). Imported only by
:mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any

from referee.engine import Game
from referee.envs.encode import BIG, Writer, common, phase

#: the player count of an environment made without one
PLAYERS = 4
#: the BID amounts with an index of their own: tricks; the hand size h itself is "board"
BID_AMOUNTS: tuple[int, ...] = tuple(range(1, 14))

SUITS = ("C", "D", "H", "S", "")  # trump "" = no trump


def match_scores(game: Game) -> list[float]:
    """Each seat's team's points so far (before the end of the match)."""
    return [float(game.totals[s % 2]) for s in range(game.players)]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``BackAlleyObservation``."""
    n = w.n
    common(w, kind, o.hand)
    phase(w, o.phase, ("bidding", "play", "over"))
    w.scalar("round_index", o.round_index, "the round index k (1..25)", 0, 25)
    w.scalar("hand_size", o.round_hand_size, "the round's hand size h", 0, 13)
    w.seat("dealer", o.dealer, "the dealer")
    w.scalar("passed_out_in_row", o.passed_out_in_row, "pass-outs in a row", 0, BIG)
    me_team = w.me % 2
    totals = list(o.totals) or [0, 0]
    w.scalar("my_total", totals[me_team], "this seat's team's points")
    w.scalar("their_total", totals[1 - me_team], "the other team's points")
    w.cards("upcard", [o.upcard] if o.upcard else (), "the turned-up card")
    w.choice("trump", SUITS, o.trump if o.phase else None, "trump: C, D, H, S, or no trump")
    w.seat("exchange_seat", o.exchange_seat, "who exchanged a joker for the upcard")
    w.cards("laid_out_joker", [o.laid_out_joker] if o.laid_out_joker else (), "the joker laid out")
    w.per_seat("hand_counts", o.hand_counts, "cards in each hand", 0, 13)
    off = w.seg("bids", n * 5, 0, BIG, "each seat's bid, 5 per seat: none, pass, number, board (one-hot), tricks "
                "(a number bid) or board level")
    for b in o.bids:
        base = off + ((b.seat - w.me) % n) * 5
        w.mark(base + min(b.kind, 3))
        w.put(base + 4, b.board_level if b.kind == 3 else b.tricks)
    off = w.seg("contracts", 6, 0, BIG, "the contracts, 3 for this seat's team then 3 for the other: board, "
                "board level, tricks (zeros before the end of bidding)")
    for c in o.contracts:
        base = off + (0 if c.team == me_team else 3)
        w.put(base, c.board)
        w.put(base + 1, c.board_level)
        w.put(base + 2, c.tricks)
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
