"""What a President seat is sent (shared/rules/president.md section 9), as protocol messages.

:func:`observation` builds the seat's ``PresidentObservation`` from the
engine's state, field by field; :func:`event_message` turns one of the engine's event
records (:mod:`.events`) into its ``PresidentEvent``. Nothing here changes the game.
"""

from __future__ import annotations

from cardgames.v1 import president_pb2 as ppb
from referee.games.viewkit import fill_message, merge_records

from . import events as E

#: the engine's phase -> the protocol's PresidentPhase
_PHASE = {"exchange": ppb.PRESIDENT_PHASE_EXCHANGE, "play": ppb.PRESIDENT_PHASE_PLAY, "over": ppb.PRESIDENT_PHASE_OVER}


def _play(e: E.Play) -> ppb.PresidentPlay:
    """A play as its message."""
    m = ppb.PresidentPlay()
    m.seat = e.seat
    m.cards.extend(e.cards)
    m.auto_pass = e.auto
    m.transparent = e.transparent
    if e.top is not None:
        m.top.count, m.top.rank = e.top
    m.revolution = e.revolution
    m.hand_size = e.hand_size
    m.place = e.place
    return m


def _transfer(t: E.Transfer, cards: bool) -> ppb.PresidentTransfer:
    """A transfer as its message, with its cards only when ``cards`` (spec 9: the two seats of it)."""
    return ppb.PresidentTransfer(kind=t.kind, from_seat=t.from_seat, to_seat=t.to_seat, count=len(t.cards),
                                 cards=t.cards if cards else ())


def observation(game, seat: int) -> ppb.PresidentObservation:
    """The ``PresidentObservation`` of ``seat`` (spec 9): its own hand, the cards
    of the exchange transfers it took part in, and the public state only."""
    g = game
    o = ppb.PresidentObservation(
        players=g.players,  # §9: number of players
        round=g.round,  # §9: the round number
        dealer=g.dealer,  # §9, §2.2: the round's dealer
        first_leader=g.first_leader,  # §9, §6.8: the round's first leader
        roles=g.roles_held,  # §9, §4: every seat's role from the previous round
        totals=g.totals,  # §9, §8: every seat's total score
        last_order=g.prev_order or ())  # §9, §7: the previous round's finishing order
    rules = o.rules  # §9: the match parameters and variant flags (§10), named as in the spec
    for name, value in (*g.variant.items(), *g.params.items()):
        setattr(rules, name, value)
    o.seat = seat  # §9: own seat
    o.hand.extend(g.hands[seat])  # §9: own hand, in card order (§3.3: the engine keeps hands so)
    # §9: cards in every hand; a return chosen but not yet delivered (§5.2) is still held
    if g.pending:
        o.hand_sizes.extend([len(h) + len(g.pending.get(s, ())) for s, h in enumerate(g.hands)])
    else:
        o.hand_sizes.extend(map(len, g.hands))
    for t in g.exchange_log:  # §9: every transfer and its count; its cards only to its giver and receiver
        o.exchange.append(_transfer(t, seat in (t.from_seat, t.to_seat)))
    o.phase = _PHASE[g.phase]
    o.to_act = -1 if g.to_act is None else g.to_act  # §9: whose turn it is
    o.return_to = o.trick_leader = o.top_seat = -1  # none, unless set below
    if g.phase == "exchange":
        returner, receiver, k, optional = g.duties[g.duty_idx]
        if returner == seat:  # §5.1 step 2 / §5.2 step 2: the return this seat must decide
            o.return_to, o.return_count, o.return_optional = receiver, k, optional
    play = g.play
    if play is not None:
        if g.phase == "play":
            o.trick_leader = play.leader  # §6.6: who led the current trick
            if play.top is not None:  # §9: the current top with its effective rank, and who made it
                o.top.count, o.top.rank = play.top
                o.top_seat = play.last
            # §9: every action of the current trick in order (automatic passes too, §6.5)
            merge_records(o, "trick", play.trick, _play)
            o.passed.extend(play.passed)  # §6.4: seats that passed since the top was played
        o.revolution = play.revolution  # §9, §6.3: whether a revolution is in force
        o.played.extend(play.played)  # §9: every card played this round, in card order (§3.3)
        o.finished.extend(play.finished)  # §9, §6.7: the seats gone out, first out first
    return o


#: record type -> its PresidentEvent field, for the records whose fields are that
#: message's fields, one for one (filled by fill_message)
_FILLED = {
    E.TrickEnd: "trick_end", E.RoundStart: "round_start", E.Deal: "deal", E.ExchangeEnd: "exchange_end",
    E.RoundEnd: "round_end", E.MatchEnd: "match_end",
}


def event_message(record: E.PresidentEventRecord) -> ppb.PresidentEvent:
    """The ``PresidentEvent`` of one event record (``TypeError`` for anything else).

    A :class:`.events.Transfer` becomes the public transfer (its count only);
    :class:`.events.TransferCards` the private one, with the cards (spec 9)."""
    r = record
    t = type(r)
    if t is E.Play:
        return ppb.PresidentEvent(play=_play(r))
    if t is E.Transfer:
        return ppb.PresidentEvent(transfer=_transfer(r, False))
    if t is E.TransferCards:
        return ppb.PresidentEvent(transfer=_transfer(r.transfer, True))
    field = _FILLED.get(t)  # a trick's end, a round's start, deal, exchange end and end, the match end
    if field is None:
        raise TypeError(f"not a President event record: {record!r}")
    e = ppb.PresidentEvent()
    fill_message(getattr(e, field), r)
    return e
