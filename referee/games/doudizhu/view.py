"""What a Dou Dizhu seat is sent (shared/rules/doudizhu.md §10), as protocol
messages (protos/cardgames/v1/doudizhu.proto).

:func:`observation` builds a seat's ``DouDizhuObservation`` field by field
from the engine's public state and that seat's own hand; :func:`event_message`
turns an event record (:mod:`referee.games.doudizhu.events`) into its
``DouDizhuEvent``. Nothing else of the engine reaches a seat. Lists of
records (history, results) go in through :func:`referee.games.viewkit.merge_records`,
which encodes each record once.
"""

from __future__ import annotations

from cardgames.v1 import doudizhu_pb2 as dpb
from referee.games.doudizhu import events as E
from referee.games.doudizhu.game import DouDizhu
from referee.games.viewkit import fill_message, merge_records

#: the engine's phase -> the protocol's DouDizhuPhase
_PHASE = {"auction": dpb.DOU_DIZHU_PHASE_AUCTION, "play": dpb.DOU_DIZHU_PHASE_PLAY, "over": dpb.DOU_DIZHU_PHASE_OVER}


def observation(g: DouDizhu, seat: int) -> dpb.DouDizhuObservation:
    """The ``DouDizhuObservation`` of ``seat``: the public state (§10 "Public")
    and its own hand (§10 "Private to seat s")."""
    p = g.playp if g.phase != "auction" else None  # the round's play phase (also once the match is over)
    o = dpb.DouDizhuObservation(
        seat=seat,  # the seat this observation is for
        hand=g.hands[seat],  # §10 private: the seat's own hand, canonical order (§2.3)
        hand_sizes=list(map(len, g.hands)),  # §10 public: cards each seat holds
        phase=_PHASE[g.phase],  # auction, play or over
        high_bid=g.auction.high,  # §4: the highest bid so far (0 = none)
        players=g.players,  # §10 public: n
        rounds=g.params["rounds"],  # §10 public: the match parameter (§9 [GAME-1])
        spring=g.spring,  # §10 public: variant flag (§11)
        round=g.round,  # §10 public: the round number (§9)
        scores=g.scores,  # §10 public: every seat's score so far (§8)
        marker=g.marker,  # §10 public: the marker's code (§2.2)
        first_bidder=g.first_bidder)  # §10 public: the first bidder (§2.2)
    merge_records(o, "calls", g.auction.calls, _call)  # §10 public: every auction action, in order (§4)
    merge_records(o, "history", g.history, _play)  # §10 public: every play and pass of the round, in order
    merge_records(o, "results", g.results, _round_end)  # §10 public: the finished rounds' outcomes (§8)
    if p is None:
        o.landlord = o.top_seat = -1  # none yet
        o.multiplier = 1
    else:
        o.landlord = p.landlord  # §10 public: the landlord's seat (§4 [AUC-7])
        o.bid = g.auction.bid  # §10 public: the winning bid
        o.kitty.extend(g.kitty)  # §10 public once a landlord is found (§4 [AUC-8])
        merge_records(o, "trick", g.trick(), _play)  # §7.1: the current trick's plays and passes
        o.top.extend(p.top_cards)  # §7.1: the play to beat (empty on a lead)
        o.top_seat = p.top_seat  # §7.1: who played it (-1 on a lead)
        o.passes = p.passes  # §7.1 [PLAY-6]: consecutive passes since the top
        o.doublings = p.doublings  # §10 public: doublings so far (§8 [PAY-1])
        o.multiplier = 1 << p.doublings  # §10 public: the current multiplier (§8)
        o.played.extend(g.played)  # §10 public: every card played this round
    return o


def _call(c: tuple[int, int]) -> dpb.DouDizhuCall:
    seat, amount = c
    return dpb.DouDizhuCall(seat=seat, amount=amount)


def _play(r: E.Play) -> dpb.DouDizhuPlay:
    m = dpb.DouDizhuPlay()
    fill_message(m, r)  # seat, cards, combination, rank, length
    return m


def _round_end(r: E.RoundEnd) -> dpb.DouDizhuRoundEnd:
    return dpb.DouDizhuRoundEnd(round=r.round, winner=r.winner, landlord_won=r.landlord_won,
                                multiplier=r.multiplier, spring=r.spring, deltas=r.deltas, scores=r.scores,
                                redeal=r.redeal, landlord=r.landlord, bid=r.bid, doublings=r.doublings)


#: record type -> its DouDizhuEvent field, for the records whose fields are that
#: message's fields, one for one (filled by fill_message)
_FILLED = {
    E.Call: "call",
    E.AuctionEnd: "auction_end",
    E.TrickEnd: "trick_end",
    E.MatchEnd: "match_end",
}


def event_message(record: object) -> dpb.DouDizhuEvent:
    """The ``DouDizhuEvent`` of an event record; ``KeyError`` for a record of another game.
    A deal record is the public ``round_start`` (``seat`` -1) or the seat's private ``deal``."""
    t = type(record)
    if t is E.Deal:
        r: E.Deal = record  # type: ignore[assignment]
        if r.seat < 0:
            return dpb.DouDizhuEvent(round_start=dpb.DouDizhuRoundStart(
                round=r.round, marker=r.marker, first_bidder=r.first_bidder, hand_sizes=r.hand_sizes))
        return dpb.DouDizhuEvent(deal=dpb.DouDizhuDeal(round=r.round, seat=r.seat, hand=r.hand))
    if t is E.Play:
        return dpb.DouDizhuEvent(play=_play(record))  # type: ignore[arg-type]
    if t is E.RoundEnd:
        return dpb.DouDizhuEvent(round_end=_round_end(record))  # type: ignore[arg-type]
    e = dpb.DouDizhuEvent()
    fill_message(getattr(e, _FILLED[t]), record)
    return e
