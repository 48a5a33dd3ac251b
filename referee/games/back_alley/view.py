"""What a Back Alley seat is sent (shared/rules/back_alley.md section 9), as protocol messages.

:func:`observation` builds the seat's ``BackAlleyObservation`` from the
engine's state, field by field; :func:`event_message` turns one of the engine's event
records (:mod:`.events`) into its ``BackAlleyEvent``. Nothing here changes the game.
"""

from __future__ import annotations

from cardgames.v1 import back_alley_pb2 as bpb
from referee.games.viewkit import merge_records

from . import events as E

_PHASE = {"bidding": bpb.BACK_ALLEY_PHASE_BIDDING, "play": bpb.BACK_ALLEY_PHASE_PLAY,
          "over": bpb.BACK_ALLEY_PHASE_OVER}
_BID_KIND = {"pass": bpb.BACK_ALLEY_BID_KIND_PASS, "number": bpb.BACK_ALLEY_BID_KIND_NUMBER,
             "board": bpb.BACK_ALLEY_BID_KIND_BOARD}


def _none(x: int | None) -> int:
    """A seat or team, or -1 for "none" (back_alley.proto's convention)."""
    return -1 if x is None else x


def _bid(b: E.Bid) -> bpb.BackAlleyBid:
    return bpb.BackAlleyBid(seat=b.seat, kind=_BID_KIND[b.kind], tricks=b.tricks, board_level=b.board_level)


def _contract(c: E.Contract) -> bpb.BackAlleyContract:
    return bpb.BackAlleyContract(team=c.team, board=c.board, board_level=c.board_level, tricks=c.tricks)


def _trick(t: E.Trick) -> bpb.BackAlleyTrick:
    """A completed trick: ``cards[i]`` was played by seat ``leader + i``."""
    m = bpb.BackAlleyTrick(number=t.number, leader=t.leader, winner=t.winner)
    add = m.plays.add
    for i, c in enumerate(t.cards):
        add(seat=(t.leader + i) & 3, card=c, trick_number=t.number, position=i)
    return m


def observation(game, seat: int) -> bpb.BackAlleyObservation:
    """The ``BackAlleyObservation`` of ``seat``: its own hand and the public state of
    spec section 9 (nothing of another hand or of the stock)."""
    g = game
    o = bpb.BackAlleyObservation(
        seat=seat,  # §9: own seat
        phase=_PHASE[g.phase],
        round_index=g.round_index,  # §9: round index k (§2.2)
        round_hand_size=g.hand_size,  # §9: hand size h (§2.2)
        last_round=g.params["last_round"],  # the last round index of the match (25 in the spec's match)
        dealer=g.dealer,  # §9: the dealer (§2.1)
        passed_out_in_row=g.passed_out_in_row,  # §9: pass-outs in a row at this index (§4.5)
        totals=g.totals,  # §9: both teams' totals (§7)
        upcard=g.upcard,  # §9: the upcard (§2.4)
        trump=g.trump or "",  # §9: the trump suit, "" in a no-trump round (§2.4)
        exchange_seat=g.exchange_seat,  # §9: who exchanged a joker for the upcard (§2.4), -1 if nobody
        laid_out_joker=g.laid_out_joker)  # §9: the joker laid out (§2.4)
    o.hand.extend(g.hands[seat])  # §9: own hand, sorted (CONVENTIONS.md order)
    o.hand_counts.extend([len(h) for h in g.hands])  # §9: cards held by every seat
    merge_records(o, "bids", g.bid_log, _bid)  # §9: every bid and its seat, in order (§4.1)
    merge_records(o, "contracts", g.contract_records(), _contract)  # §9: the contracts, after bidding (§4.4)
    merge_records(o, "completed_tricks", g.tricks, _trick)  # §9: every completed trick and its winner (§6)
    o.opening_leader = g.opening_leader  # §9: the opening leader (§4.6), -1 before
    o.team_tricks.extend(g.team_tricks)  # §9: tricks won per team this round
    o.trumps_broken = g.trumps_broken  # §9: whether trumps are broken (§5.2)
    o.to_act = _none(g.to_act)  # §9: whose turn it is
    if g.phase == "play":  # §9: the cards played to the current trick (no winner yet: -1)
        ct = o.current_trick
        ct.number, ct.leader, ct.winner = g.trick_number, g.trick_leader, -1
        add = ct.plays.add
        for i, c in enumerate(g.trick):
            add(seat=(g.trick_leader + i) & 3, card=c, trick_number=g.trick_number, position=i)
    return o


def event_message(record: E.BackAlleyEventRecord) -> bpb.BackAlleyEvent:
    """The ``BackAlleyEvent`` of one event record (``TypeError`` for anything else)."""
    r = record
    t = type(r)
    if t is E.Play:
        return bpb.BackAlleyEvent(play=bpb.BackAlleyPlay(seat=r.seat, card=r.card, trick_number=r.trick_number,
                                                         position=r.position))
    if t is E.TrickEnd:
        return bpb.BackAlleyEvent(trick_end=bpb.BackAlleyTrickEnd(
            trick_number=r.trick_number, winner=r.winner, winning_card=r.winning_card, team_tricks=r.team_tricks,
            trumps_broken=r.trumps_broken))
    if t is E.Bid:
        return bpb.BackAlleyEvent(bid=_bid(r))
    if t is E.BiddingEnd:
        return bpb.BackAlleyEvent(bidding_end=bpb.BackAlleyBiddingEnd(
            passed_out=r.passed_out, contracts=[_contract(c) for c in r.contracts],
            opening_leader=_none(r.opening_leader)))
    if t is E.Deal:
        return bpb.BackAlleyEvent(round_start=bpb.BackAlleyRoundStart(
            round_index=r.round_index, hand_size=r.hand_size, dealer=r.dealer,
            passed_out_in_row=r.passed_out_in_row, upcard=r.upcard, trump=r.trump))
    if t is E.Hand:
        return bpb.BackAlleyEvent(deal=bpb.BackAlleyDeal(seat=r.seat, cards=r.cards))
    if t is E.JokerExchange:
        return bpb.BackAlleyEvent(exchange=bpb.BackAlleyJokerExchange(seat=r.seat, joker=r.joker))
    if t is E.Draw:
        return bpb.BackAlleyEvent(draw=bpb.BackAlleyDraw(seat=r.seat, card=r.card))
    if t is E.RoundEnd:
        return bpb.BackAlleyEvent(round_end=bpb.BackAlleyRoundEnd(
            round_index=r.round_index, hand_size=r.hand_size, dealer=r.dealer, passed_out=r.passed_out,
            passed_out_in_row=r.passed_out_in_row, index_complete=r.index_complete, team_tricks=r.team_tricks,
            points=r.points, totals=r.totals, contracts=[_contract(c) for c in r.contracts]))
    if t is E.MatchEnd:
        return bpb.BackAlleyEvent(match_end=bpb.BackAlleyMatchEnd(totals=r.totals, winner_team=_none(r.winner_team)))
    raise TypeError(f"not a Back Alley event record: {record!r}")
