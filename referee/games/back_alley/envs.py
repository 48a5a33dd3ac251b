"""Back Alley in the training environments (docs/envs.md): its player count
by default, its BID indices, its match scores and its observation array
(written with :mod:`referee.envs.encode`). Imported only by
:mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import Game
from referee.envs.actions import CARD_INDEX, N_CARDS
from referee.envs.encode import BIG, Writer, common, one_card_played

from . import events as E

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
    t = o.current_trick
    _write(w, kind, o.hand, o.phase - 1, o.round_index, o.round_hand_size, o.dealer, o.passed_out_in_row,
           list(o.totals) or [0, 0], o.upcard, o.trump if o.phase else None, o.exchange_seat, o.laid_out_joker,
           o.hand_counts, [(b.seat, b.kind, b.tricks, b.board_level) for b in o.bids],
           [(c.team, c.board, c.board_level, c.tricks) for c in o.contracts], o.opening_leader,
           t.leader if o.phase == 2 else -1, [(p.seat, p.card) for p in t.plays],
           [(p.seat, p.card) for tr in o.completed_tricks for p in tr.plays], list(o.team_tricks) or [0, 0],
           o.trumps_broken)


def encode_state(w: Writer, g: Any, kind: str | None) -> None:
    """The same array as :func:`encode` of ``view.observation(g, w.me)``,
    read from the engine's state (shared/rules/back_alley.md section 9: the
    seat's own hand and the public state), without building the message."""
    play = g.phase == "play"
    leader = g.trick_leader if play else -1
    _write(w, kind, g.hands[w.me], _PHASES.index(g.phase), g.round_index, g.hand_size, g.dealer,
           g.passed_out_in_row, g.totals, g.upcard, g.trump or "", g.exchange_seat, g.laid_out_joker,
           [len(h) for h in g.hands], [(b.seat, _BID_KINDS[b.kind], b.tricks, b.board_level) for b in g.bid_log],
           [(c.team, c.board, c.board_level, c.tricks) for c in g.contract_records()], g.opening_leader, leader,
           [((leader + i) & 3, c) for i, c in enumerate(g.trick)] if play else [],
           [((t.leader + i) & 3, c) for t in g.tricks for i, c in enumerate(t.cards)], g.team_tricks,
           g.trumps_broken)


_PHASES = ("bidding", "play", "over")
#: a bid's kind as its entry in its seat's block of the ``bids`` segment (the protocol's BackAlleyBidKind)
_BID_KINDS = {"pass": 1, "number": 2, "board": 3}


def _write(w: Writer, kind: str | None, hand: Sequence[str], phase_index: int, round_index: int, hand_size: int,
           dealer: int, passed_out_in_row: int, totals: Sequence[int], upcard: str, trump: str | None,
           exchange_seat: int, laid_out_joker: str, hand_counts: Sequence[int],
           bids: Sequence[tuple[int, int, int, int]], contracts: Sequence[tuple[int, bool, int, int]],
           opening_leader: int, trick_leader: int, trick: Sequence[tuple[int, str]],
           played: Sequence[tuple[int, str]], team_tricks: Sequence[int], trumps_broken: bool) -> None:
    """The segments, from plain values: ``bids`` as (seat, kind 1..3 of
    :data:`_BID_KINDS`, tricks, board level), ``contracts`` as (team, board,
    board level, tricks), ``trick`` and ``played`` as (seat, card)."""
    n = w.n
    common(w, kind, hand)
    w.onehot("phase", len(_PHASES), phase_index, "the phase: " + ", ".join(_PHASES))
    w.scalar("round_index", round_index, "the round index k (1..25)", 0, 25)
    w.scalar("hand_size", hand_size, "the round's hand size h", 0, 13)
    w.seat("dealer", dealer, "the dealer")
    w.scalar("passed_out_in_row", passed_out_in_row, "pass-outs in a row", 0, BIG)
    me_team = w.me % 2
    w.scalar("my_total", totals[me_team], "this seat's team's points")
    w.scalar("their_total", totals[1 - me_team], "the other team's points")
    w.cards("upcard", [upcard] if upcard else (), "the turned-up card")
    w.choice("trump", SUITS, trump, "trump: C, D, H, S, or no trump")
    w.seat("exchange_seat", exchange_seat, "who exchanged a joker for the upcard")
    w.cards("laid_out_joker", [laid_out_joker] if laid_out_joker else (), "the joker laid out")
    w.per_seat("hand_counts", hand_counts, "cards in each hand", 0, 13)
    off = w.seg("bids", n * 5, 0, BIG, "each seat's bid, 5 per seat: none, pass, number, board (one-hot), tricks "
                "(a number bid) or board level")
    for seat, bid_kind, tricks, board_level in bids:
        base = off + ((seat - w.me) % n) * 5
        w.mark(base + min(bid_kind, 3))
        w.put(base + 4, board_level if bid_kind == 3 else tricks)
    off = w.seg("contracts", 6, 0, BIG, "the contracts, 3 for this seat's team then 3 for the other: board, "
                "board level, tricks (zeros before the end of bidding)")
    for team, board, board_level, tricks in contracts:
        base = off + (0 if team == me_team else 3)
        w.put(base, board)
        w.put(base + 1, board_level)
        w.put(base + 2, tricks)
    w.seat("opening_leader", opening_leader, "who leads the first trick")
    w.seat("trick_leader", trick_leader, "who led the current trick")
    w.seat_cards("trick", [(s, (c,)) for s, c in trick], "the current trick: each seat's card")
    w.seat_cards("played", [(s, (c,)) for s, c in played],
                 "cards each seat played in the completed tricks of the round")
    w.scalar("my_tricks", team_tricks[me_team], "tricks this seat's team won this round", 0, 13)
    w.scalar("their_tricks", team_tricks[1 - me_team], "tricks the other team won this round", 0, 13)
    w.flags("trumps_broken", [trumps_broken], "trumps have been broken")


def update(arrays: list[Any], off: dict[str, int], g: Any, records: Sequence[Any]) -> bool:
    """Bring each seat's array (``arrays[s]``, ``None``: not made yet) up to
    date with one action's event records (``g`` is the state after the
    action): a bid (spec section 4.2), the end of bidding with contracts
    (4.4-4.6), a play (5), a trick's end (6), and the totals and the end of
    the match after the last round (7, 8) change the entries they name.
    Returns False for any other record (a new deal, a pass-out): the arrays
    are then encoded again from the state. ``tests/test_envs.py`` checks the
    arrays equal :func:`encode_state` of every seat at every step."""
    trick, leader = off["trick"], off["trick_leader"]
    for r in records:
        t = type(r)
        if t is E.Play:
            one_card_played(arrays, off, r.seat, r.card, len(g.hands[r.seat]), "hand_counts")
        elif t is E.TrickEnd:
            if g.phase == "bidding":  # the trick ended the round and a new one is dealt
                return False
            done = g.tricks[-1]
            for me, a in enumerate(arrays):
                if a is not None:
                    a[trick:trick + 4 * N_CARDS] = 0
                    for i, c in enumerate(done.cards):
                        a[off["played"] + ((done.leader + i - me) & 3) * N_CARDS + CARD_INDEX[c]] = 1
                    a[off["my_tricks"]] = r.team_tricks[me & 1]
                    a[off["their_tricks"]] = r.team_tricks[1 - (me & 1)]
                    a[off["trumps_broken"]] = r.trumps_broken
                    a[leader:leader + 4] = 0
                    a[leader + ((r.winner - me) & 3)] = 1
        elif t is E.Bid:
            for me, a in enumerate(arrays):
                if a is not None:
                    base = off["bids"] + ((r.seat - me) & 3) * 5
                    a[base + _BID_KINDS[r.kind]] = 1
                    a[base + 4] = r.board_level if r.kind == "board" else r.tricks
        elif t is E.BiddingEnd and not r.passed_out:  # the play phase, led by the opening leader
            phase, contracts = off["phase"], off["contracts"]
            for me, a in enumerate(arrays):
                if a is not None:
                    a[phase:phase + len(_PHASES)] = 0
                    a[phase + 1] = 1
                    for c in r.contracts:
                        base = contracts + (0 if c.team == me & 1 else 3)
                        a[base:base + 3] = c.board, c.board_level, c.tricks
                    a[off["opening_leader"] + ((r.opening_leader - me) & 3)] = 1
                    a[leader + ((r.opening_leader - me) & 3)] = 1
        elif t is E.RoundEnd:  # a new deal follows (not followed here) unless the match ends
            for me, a in enumerate(arrays):
                if a is not None:
                    a[off["my_total"]] = r.totals[me & 1]
                    a[off["their_total"]] = r.totals[1 - (me & 1)]
                    a[off["passed_out_in_row"]] = g.passed_out_in_row
        elif t is E.MatchEnd:  # after the last trick (a pass-out ends no match here: its BiddingEnd re-encodes)
            phase = off["phase"]
            for a in arrays:
                if a is not None:
                    a[phase:phase + len(_PHASES)] = 0
                    a[phase + 2] = 1
                    a[leader:leader + 4] = 0
        else:
            return False
    return True
