"""What a Tractor seat is sent (shared/rules/tractor.md section 12), as
protocol messages (protos/cardgames/v1/tractor.proto).

:func:`observation` builds a seat's ``TractorObservation`` field by field
from the engine's public state, the seat's own hand and the kitty cards only
the starter saw; :func:`event_message` turns an event record
(:mod:`referee.games.tractor.events`) into its ``TractorEvent``. Nothing else
of the engine reaches a seat. Lists of records (declarations, tricks) go in
through :func:`referee.games.viewkit.merge_records`, which encodes each record once.
"""

from __future__ import annotations

from typing import Any

from cardgames.v1 import tractor_pb2 as tpb
from referee.games.tractor import events as E
from referee.games.tractor import rules as R
from referee.games.tractor.game import TractorGame
from referee.games.viewkit import fill_message, merge_records

#: the engine's phase -> the protocol's TractorPhase
_PHASE = {"declare": tpb.TRACTOR_PHASE_DECLARE, "bury": tpb.TRACTOR_PHASE_BURY, "play": tpb.TRACTOR_PHASE_PLAY,
          "over": tpb.TRACTOR_PHASE_OVER}


def observation(g: TractorGame, seat: int) -> tpb.TractorObservation:
    """The ``TractorObservation`` of ``seat`` (section 12)."""
    over = g.phase == "over"
    o = tpb.TractorObservation(
        seat=seat,  # the seat this observation is for
        hand=g.sorted_hand(seat),  # 12: the seat's own cards (section 16 order once the trump is fixed)
        phase=_PHASE[g.phase],  # 1.5: declare, bury, play or over
        cards_dealt=g.dealt,  # 2.1: cards dealt so far
        hand_sizes=[0] * 4 if over else g.hand_sizes(),  # 12 public: cards per seat
        defender_points=g.defender_points,  # 10.1: the defenders' points so far
        notrump_rank_cards_trump=g.notrump_rank_cards_trump,  # 13: variant flags
        must_follow_tractor=g.must_follow_tractor,
        kitty_multiplier_power=g.kitty_multiplier_power,
        must_play_ace=g.must_play_ace,
        no_throw_penalty=g.no_throw_penalty,
        max_rounds=g.params["max_rounds"],  # 11.2: the round cap
        max_round1_deals=g.params["max_round1_deals"],  # 2.6: redeals allowed in round 1
        round_number=g.round,  # 1.4: the round (1-based)
        deal_number=g.deal_number,  # 2.6: deals of round 1 (redeals)
        levels=[R.VALUE_RANK[x] for x in g.levels],  # 1.4: each team's level
        trump_rank=g.trump_rank,  # 1.4: this round's trump rank
        declarer_team=_none(g.declarer_team),  # 1.4 (-1 until known in round 1)
        starter=_none(g.starter),  # 1.4 (-1 until known in round 1)
        first_drawer=g.first_drawer,  # 2.1: who receives card 0
        final_window=g.window and not g.trump_fixed,  # 2.4: the final declaration window is open
        declaration_closed=g.trump_fixed,  # 2.5: the trump is fixed
        trump_suit=_suit(g) if g.trump_fixed else "",  # 2.5-2.6: the trump suit ("NT": no trump)
        kitty_flipped=g.flipped)  # 2.6: the kitty cards turned up
    merge_records(o, "declarations", g.declarations, _message)  # 12 public: every declaration, in order
    merge_records(o, "tricks", g.tricks, _message)  # 12 public: this deal's finished tricks
    if seat == g.starter and g.trump_fixed and not over:
        o.kitty_taken.extend(g.kitty_taken)  # 12 private to the starter: the kitty it took (3)
        if g.buried:
            o.kitty_buried.extend(g.kitty_buried)  # 12 private to the starter: the cards it buried (3)
    if g.phase == "play":  # 12 public: the trick in progress (6-8)
        t = o.current_trick
        t.number = len(g.tricks) + 1
        t.leader = g.trick_leader
        merge_records(t, "plays", g.trick_plays, _message)  # the plays so far
        if g.trick_lead is not None:
            t.lead_type = g.trick_lead.type  # 6.1: single, pair, tractor or throw
            t.lead_suit = g.trick_lead.suit  # 4.1: the lead's play-suit
        if g.trick_failure is not None:
            merge_records(t, "throw_failure", (g.trick_failure,), _message)  # 9.2: a failed throw
        t.winner = g.trick_winner  # 8: winning so far (-1 before the lead)
        t.points = g.current_points  # 5: points so far
    if g.last_round is not None:
        merge_records(o, "last_round", (g.last_round,), _message)  # 10: the previous round's scoring
    return o


def _none(x: int | None) -> int:
    """A seat or team, or -1 for "none" (tractor.proto's convention)."""
    return -1 if x is None else x


def _suit(g: TractorGame) -> str:
    return "NT" if g.trump_suit is None else g.trump_suit


#: record type -> its message type; a record's fields are the message's fields,
#: one for one (nested records are nested messages; ``None`` = field not set)
_MESSAGES: dict[type, Any] = {
    E.DealStart: tpb.TractorRoundStart, E.CardDealt: tpb.TractorCardDealt, E.DeclarePass: tpb.TractorDeclarePass,
    E.Declaration: tpb.TractorDeclaration, E.DeclarationClosed: tpb.TractorDeclarationClosed,
    E.KittyFlip: tpb.TractorKittyFlip, E.KittyTaken: tpb.TractorKittyTaken, E.KittyBuried: tpb.TractorKittyBuried,
    E.ThrowFailure: tpb.TractorThrowFailure, E.Play: tpb.TractorPlay, E.Played: tpb.TractorPlayed,
    E.TrickEnd: tpb.TractorTrickEnd, E.Trick: tpb.TractorTrick, E.RoundResult: tpb.TractorRoundResult,
    E.MatchEnd: tpb.TractorMatchEnd,
}
#: record type -> its field of the TractorEvent oneof, filled from the record field for field
_EVENT_FIELD = {
    E.DealStart: "round_start", E.CardDealt: "card_dealt", E.DeclarePass: "declare_pass",
    E.Declaration: "declaration", E.DeclarationClosed: "declaration_closed", E.KittyFlip: "kitty_flip",
    E.KittyTaken: "kitty_taken", E.KittyBuried: "kitty_buried", E.ThrowFailure: "throw_failure",
    E.Played: "play", E.TrickEnd: "trick_end", E.RoundResult: "round_end", E.MatchEnd: "match_end",
}


def _message(record: Any) -> Any:
    """The message of a record (see :data:`_MESSAGES`)."""
    m = _MESSAGES[type(record)]()
    fill_message(m, record)
    return m


def event_message(record: Any) -> tpb.TractorEvent:
    """The ``TractorEvent`` of an event record; ``KeyError`` for a record of another game."""
    e = tpb.TractorEvent()
    fill_message(getattr(e, _EVENT_FIELD[type(record)]), record)
    return e
