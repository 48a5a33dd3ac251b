"""What a Smear seat is sent (shared/rules/smear.md section 9), as protocol messages.

:func:`observation` builds the seat's ``SmearObservation`` from the engine's
state, field by field; :func:`event_message` turns one of the engine's event records
(:mod:`.events`) into its ``SmearEvent``. Nothing here changes the game.
"""

from __future__ import annotations

from cardgames.v1 import smear_pb2 as spb
from referee.protocol import merge_match_part, merge_part, merge_records, part_event

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
    of spec section 9 (nothing of another hand or of the stock).

    The fields that stay the same over many decisions are built by the
    ``_*_part`` functions below: the match's settings once per match
    (:func:`referee.protocol.merge_match_part`), the round's setup and the
    auction from their arguments alone (:func:`referee.protocol.merge_part`:
    each distinct part encoded once)."""
    g = game
    n = g.players
    o = spb.SmearObservation()
    o.seat = seat  # §9: own seat
    merge_match_part(o, _match_part, g)
    merge_part(o, _round_part, n, g.round, g.dealer, tuple(g.scores), tuple(g.calls), _seat_or_none(g.bidder), g.bid,
               g.trump or "")
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


def _match_part(g) -> spb.SmearObservation:
    """The match's settings (:func:`referee.protocol.merge_match_part`: nothing else of the game)."""
    o = spb.SmearObservation(players=g.players)  # §9: number of players
    v, ov = g.variant, o.variant  # §9, §10: the variant flags
    ov.with_joker, ov.dealer_forced_bid, ov.low_to_taker, ov.strict_follow = (
        v["with_joker"], v["dealer_forced_bid"], v["low_to_taker"], v["strict_follow"])
    o.target = R.TARGET  # §8: 11 points
    o.max_rounds = g.params["max_rounds"]  # §8: the round limit
    return o


def _round_part(players: int, round: int, dealer: int, scores: tuple[int, ...], calls: tuple[int, ...], bidder: int,
                bid: int, trump: str) -> spb.SmearObservation:
    """The round's setup and its auction."""
    o = spb.SmearObservation(
        round=round,  # §9: the round's number (§8: every deal counts)
        dealer=dealer,  # §9: who deals the round
        scores=scores)  # §9: scores of all seats (§7)
    add = o.calls.add
    for i, c in enumerate(calls):  # §9: each call and its seat; the first by seat dealer + 1 (§5.2)
        add(seat=(dealer + 1 + i) % players, bid=c)
    o.bidder = bidder  # §9: the bidder, at the end of the auction (§5.5)
    o.bid = bid  # §9: the bid (0 before the end of the auction)
    o.trump = trump  # §9: the trump suit, from the round's first card (§6.1)
    return o


#: record type -> (its SmearEvent field, the function building that field's
#: message) for the records an observation lists too (a finished trick):
#: referee.protocol encodes each such record once, for its event and every observation
EVENT_FIELDS = {E.TrickEnd: ("trick_end", _trick)}

#: record types whose event message the view fills from the record field for field
#: (referee.protocol.record_event_json): none, every event is built below
RECORD_EVENTS: dict[type, str] = {}


def event_message(record: E.SmearEventRecord) -> spb.SmearEvent:
    """The ``SmearEvent`` of one event record (``TypeError`` for anything else)."""
    r = record
    if type(r) is E.Play:
        return spb.SmearEvent(play=spb.SmearPlay(seat=r.seat, card=r.card, trick=r.trick))
    if type(r) is E.TrickEnd:
        return part_event(spb.SmearEvent, EVENT_FIELDS[E.TrickEnd], r)
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
