"""What a Smear seat is sent (shared/rules/smear.md section 9), as protocol messages.

:func:`observation` builds the seat's ``SmearObservation`` from the engine's
state, field by field; :func:`event_message` turns one of the engine's event records
(:mod:`.events`) into its ``SmearEvent``. Nothing here changes the game.
"""

from __future__ import annotations

from cardgames.v1 import smear_pb2 as spb
from referee.games.viewkit import merge_records

from . import events as E
from . import rules as R

_PHASE = {"auction": spb.SMEAR_PHASE_AUCTION, "play": spb.SMEAR_PHASE_PLAY, "over": spb.SMEAR_PHASE_OVER}


def _seat_or_none(seat: int | None) -> int:
    """A seat, or -1 for "none" (smear.proto's convention)."""
    return -1 if seat is None else seat


def _trick(r: E.TrickEnd) -> spb.SmearTrick:
    return spb.SmearTrick(index=r.index, leader=r.leader, cards=r.cards, winner=r.winner)


def observation(game, seat: int) -> spb.SmearObservation:
    """The ``SmearObservation`` of ``seat``: its own hand and the public state
    of spec section 9 (nothing of another hand or of the stock)."""
    g = game
    n = g.players
    o = spb.SmearObservation(
        seat=seat,  # §9: own seat
        players=n,  # §9: number of players
        target=R.TARGET,  # §8: 11 points
        max_rounds=g.params["max_rounds"],  # §8: the round limit
        round=g.round,  # §9: the round's number (§8: every deal counts)
        dealer=g.dealer,  # §9: who deals the round
        scores=g.scores,  # §9: scores of all seats (§7)
        bidder=_seat_or_none(g.bidder),  # §9: the bidder, at the end of the auction (§5.5)
        bid=g.bid,  # §9: the bid (0 before the end of the auction)
        trump=g.trump or "")  # §9: the trump suit, from the round's first card (§6.1)
    v, ov = g.variant, o.variant  # §9, §10: the variant flags
    ov.with_joker, ov.dealer_forced_bid, ov.low_to_taker, ov.strict_follow = (
        v["with_joker"], v["dealer_forced_bid"], v["low_to_taker"], v["strict_follow"])
    add = o.calls.add
    for i, c in enumerate(g.calls):  # §9: each call and its seat; the first by seat dealer + 1 (§5.2)
        add(seat=(g.dealer + 1 + i) % n, bid=c)
    o.phase = _PHASE[g.phase]
    o.hand.extend(g.hands[seat])  # §9: the seat's own remaining cards, sorted as dealt (§2.3)
    o.hand_sizes.extend(map(len, g.hands))  # §9: how many cards each hand holds
    o.leader = _seat_or_none(g.leader)  # §6.2: who leads the current trick
    add = o.trick.add
    for i, c in enumerate(g.trick):  # §9: each card played to the current trick, and its seat
        add(seat=(g.leader + i) % n, card=c, trick=len(g.tricks))
    merge_records(o, "tricks", g.tricks, _trick)  # §9: the completed tricks, their cards and winners
    o.winner = _seat_or_none(g.winner)  # §8: the match winner, once there is one
    return o


def event_message(record: E.SmearEventRecord) -> spb.SmearEvent:
    """The ``SmearEvent`` of one event record (``TypeError`` for anything else)."""
    r = record
    if type(r) is E.Play:
        return spb.SmearEvent(play=spb.SmearPlay(seat=r.seat, card=r.card, trick=r.trick))
    if type(r) is E.TrickEnd:
        return spb.SmearEvent(trick_end=_trick(r))
    if type(r) is E.Call:
        return spb.SmearEvent(call=spb.SmearCall(seat=r.seat, bid=r.bid))
    if type(r) is E.Trump:
        return spb.SmearEvent(trump=spb.SmearTrump(suit=r.suit, seat=r.seat))
    if type(r) is E.AuctionEnd:
        return spb.SmearEvent(auction_end=spb.SmearAuctionEnd(passed_out=r.passed_out,
                                                              bidder=_seat_or_none(r.bidder), bid=r.bid))
    if type(r) is E.RoundStart:
        return spb.SmearEvent(round_start=spb.SmearRoundStart(round=r.round, dealer=r.dealer, scores=r.scores,
                                                              hand_sizes=r.hand_sizes))
    if type(r) is E.Deal:
        return spb.SmearEvent(deal=spb.SmearDeal(round=r.round, seat=r.seat, hand=r.hand))
    if type(r) is E.RoundEnd:
        m = spb.SmearRoundEnd(round=r.round, passed_out=r.passed_out, bidder=_seat_or_none(r.bidder), bid=r.bid,
                              trump=r.trump, made=r.made, deltas=r.deltas, scores=r.scores,
                              winner=_seat_or_none(r.winner))
        it = r.items
        if it is not None:
            m.items.CopyFrom(spb.SmearRoundItems(
                high=_seat_or_none(it.high), low=_seat_or_none(it.low), jack=_seat_or_none(it.jack),
                game=_seat_or_none(it.game), high_card=it.high_card, low_card=it.low_card,
                game_points=it.game_points, points=it.points))
        return spb.SmearEvent(round_end=m)
    if type(r) is E.MatchEnd:
        return spb.SmearEvent(match_end=spb.SmearMatchEnd(winner=_seat_or_none(r.winner), scores=r.scores,
                                                          ranks=r.ranks, rounds=r.rounds))
    raise TypeError(f"not a Smear event record: {record!r}")
