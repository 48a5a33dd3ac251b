"""The President match engine (shared/rules/president.md, ruleset ``president/1``)."""

from __future__ import annotations

import copy
import random
from bisect import bisect_right
from itertools import combinations
from typing import Any

from cardgames.v1 import president_pb2 as ppb
from referee.engine import (EXCHANGE, PASS, PLAY, Action, Game, IllegalAction, LegacyGame, MatchResult,
                            RatingOutcome)
from referee.games import _wire as W
from referee.games._wire import WireEvent as Event

from .play import RoundPlay
from .rules import (LATER_LEADERS, VARIANT_FLAGS, Rules, deal, final_ranking, forced_gifts,
                    lowest_cards, match_over, return_duties, roles, round_start, sort_cards)
from .rules import CARD_ORDER

_PASS_ACTION = Action(PASS)
#: interned PLAY actions by card tuple (Action is immutable): legal lists are rebuilt often
_PLAY_ACTIONS: dict[tuple[str, ...], Action] = {}
_RULE_PLAY = "6.2"
_RULE_RETURN = "5.3"


# Observation encoding tables (see PresidentGame.observation): PresidentObservation
# fields seat (2), hand (11), hand_sizes (12, packed), passed (23, packed),
# played (24), finished (25, packed).
_OBS_FROM = ppb.PresidentObservation.FromString
_SEAT_B = [W.int_field(2, s) for s in range(8)]
_HAND_B = W.repeated_str_entries(11, CARD_ORDER)
_PLAYED_B = W.repeated_str_entries(24, CARD_ORDER)
#: every ``played`` entry has this size (two-character codes)
_PLAYED_ENTRY_SIZE = 5
assert all(len(b) == _PLAYED_ENTRY_SIZE for b in _PLAYED_B.values())
_HAND_SIZES_KEY = {n: W.key(12, 2) + bytes([n]) for n in range(1, 8)}  # with the packed length
#: encoded phase, return_*, to_act, trick_leader, top, top_seat and revolution, by their values (memo)
_SCALARS: dict[tuple, bytes] = {}


_PASSED_KEY = W.key(23, 2)
_FINISHED_KEY = W.key(25, 2)


# PresidentPlay fields: seat (1), cards (2), auto (3), transparent (4), top (5: PresidentTop
# count (1), rank (2)), revolution (6), hand_size (7), place (8)
_PP_SEAT = [W.int_field(1, i) for i in range(128)]
_PP_CARD = W.repeated_str_entries(2, CARD_ORDER)
_PP_SIZE = [W.int_field(7, i) for i in range(128)]
_PP_PLACE = [W.int_field(8, i) for i in range(128)]
#: encoded ``top`` field by (count, rank) (memo)
_PP_TOP: dict[tuple[int, str], bytes] = {}


def _entry_encodings(entry: tuple) -> tuple[bytes, bytes]:
    """A trick entry ``(seat, cards, auto, transparent, top, revolution,
    hand_size, place)`` encoded as a ``PresidentEvent`` (its ``play``) and as
    one ``PresidentObservation.trick`` field (memoised on the entry)."""
    e = _ENTRY_MEMO.get(entry)
    if e is None:
        body = _play_body(entry)
        e = (W.len_field(5, body), W.len_field(22, body))
        if len(_ENTRY_MEMO) >= 100_000:
            _ENTRY_MEMO.clear()
        _ENTRY_MEMO[entry] = e
    return e


def _play_body(entry: tuple) -> bytes:
    """The encoded ``PresidentPlay`` of a trick entry: from per-value pieces
    when every number is below 128 and every card a known code, else through
    protobuf."""
    s, cs, auto, transparent, top, rev, size, place = entry
    if 0 <= s < 128 and 0 <= size < 128 and 0 <= place < 128:
        try:
            b = _PP_SEAT[s] + b"".join(map(_PP_CARD.__getitem__, cs))
        except (KeyError, TypeError):
            pass
        else:
            if auto:
                b += b"\x18\x01"
            if transparent:
                b += b"\x20\x01"
            if top is not None:
                tb = _PP_TOP.get(top)
                if tb is None:
                    tb = W.len_field(5, ppb.PresidentTop(count=top[0], rank=top[1]).SerializeToString())
                    if len(_PP_TOP) < 1024:
                        _PP_TOP[top] = tb
                b += tb
            if rev:
                b += b"\x30\x01"
            return b + _PP_SIZE[size] + _PP_PLACE[place]
    return ppb.PresidentPlay(
        seat=s, cards=cs, auto=auto, transparent=transparent, revolution=rev, hand_size=size, place=place,
        top=None if top is None else ppb.PresidentTop(count=top[0], rank=top[1])).SerializeToString()


_EV_FROM = ppb.PresidentEvent.FromString
#: (event, observation trick field) encodings by trick entry (memo), see _entry_encodings
_ENTRY_MEMO: dict[tuple, tuple[bytes, bytes]] = {}
#: encoded trick_end events by (last player, leader) (memo)
_TRICK_END_EV: dict[tuple[int, int], bytes] = {}


def _packed_seats(key: bytes, seats: list[int]) -> bytes:
    """A packed repeated seat field (``key``, length, one byte per seat: seats < 8)."""
    return key + W.SMALL[len(seats)] + bytes(seats)


class PresidentGame(LegacyGame):  # TRANSITIONAL (issue #20): not converted to the engine contract yet
    """One match of President / Scum for 4-7 seats (shared/rules/president.md).

    **Phases.** Each round: deal (spec 2), from round 2 on the card exchange
    (spec 5: forced gifts happen automatically, then the returner(s) decide),
    then play (spec 6) until one seat holds cards (spec 7); role scores are
    added and the match ends at ``target_score`` or ``max_rounds`` (spec 8).

    **Decisions and action vocabulary** (``Action(kind, cards, amount)``,
    ``amount`` is always 0):

    * ``EXCHANGE`` decision (a return, spec 5.1 step 2 / 5.2 step 2):
      ``EXCHANGE`` with the returned cards (exactly 1 in the default exchange,
      exactly 2 for the President and 1 for the Vice-President under
      ``double_exchange``); in the default exchange also ``PASS`` = return
      nothing. Under ``double_exchange`` the President decides first, then
      the Vice-President; both returns are applied together afterwards, and
      neither sees the other's choice (spec 5.2).
    * ``PLAY`` decision (spec 6): ``PLAY`` with one or more cards of one rank,
      or ``PASS`` (only when a top exists).

    **Legal action lists are always complete**: every return (each card, or
    each pair of cards) and every play (every combination of same-rank cards
    of every allowed count), plus ``PASS`` where legal, in a deterministic
    order (PASS first; then by rank in the normal order, count, and card order).

    Illegal actions raise :class:`IllegalAction` with rule ``"TURN"`` (out of
    turn or match over), ``"6.2"`` (an illegal play or pass, wrong action kind
    during play, malformed card codes) or ``"5.3"`` (an illegal return). The
    state is unchanged after an error.
    """

    name = "president"
    player_counts = (4, 5, 6, 7)
    ruleset = "president/1"
    variant_defaults: dict[str, Any] = {f: False for f in VARIANT_FLAGS}
    param_defaults: dict[str, Any] = {"later_leader": "after_dealer", "target_score": 10,
                                      "max_rounds": 100, "first_dealer": 0}

    def __init__(self, players: int, variant: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, rng: random.Random | None = None):
        """Start a match: deals round 1 at once (spec 2.4).

        Raises ``ValueError`` for an unsupported player count, an unknown flag
        or parameter, or a parameter out of range (``later_leader`` not one of
        ``after_dealer``/``scum``/``president``, ``target_score`` or
        ``max_rounds`` below 1, ``first_dealer`` not a seat).
        """
        super().__init__(players, variant, params, rng if rng is not None else random.Random(0))
        p = self.params
        if p["later_leader"] not in LATER_LEADERS:
            raise ValueError(f"president: later_leader must be one of {', '.join(LATER_LEADERS)}, "
                             f"got {p['later_leader']!r}")
        if p["target_score"] < 1:
            raise ValueError(f"president: target_score must be >= 1, got {p['target_score']}")
        if p["max_rounds"] < 1:
            raise ValueError(f"president: max_rounds must be >= 1, got {p['max_rounds']}")
        if not 0 <= p["first_dealer"] < players:
            raise ValueError(f"president: first_dealer must be a seat 0..{players - 1}, got {p['first_dealer']}")
        self.rules = Rules(self.variant)
        n = players
        self.totals: list[int] = [0] * n
        self.round_no = 0
        self.prev_order: list[int] | None = None   # finishing order of the previous round
        self.roles_held: list[str] = [""] * n      # roles held during the current round
        self.orders: list[list[int]] = []          # finishing order of every round played
        self.phase = "play"
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.play: RoundPlay | None = None
        self.dealer = 0
        self.first_leader = 0
        self.exchange_log: list[tuple[str, int, int, tuple[str, ...]]] = []
        self.duties: list[tuple[int, int, int, bool]] = []
        self.duty_idx = 0
        self.pending: dict[int, list[str]] = {}    # returner -> chosen, not yet delivered cards
        self.ranking: list[int] | None = None
        self._legal: tuple[list[Action], bool] | None = None
        # observation caches (see observation and the helpers it names)
        self._hand_enc: list[list | None] = [None] * n
        self._trick_cache: tuple | None = None
        self._played_cache: tuple | None = None
        self._start_round()

    # -- round flow --------------------------------------------------------------
    def _start_round(self) -> None:
        n = self.players
        self.round_no += 1
        self.dealer, self.first_leader = round_start(n, self.round_no, self.params["first_dealer"],
                                                     self.prev_order, self.params["later_leader"])
        pack = list(self.rules.pack)
        self.rng.shuffle(pack)
        self.hands = deal(pack, n, self.dealer)
        self.play = None
        self.exchange_log = []
        self.pending = {}
        self.emit(ppb.PresidentEvent(round_start=ppb.PresidentRoundStart(
            round=self.round_no, dealer=self.dealer, leader=self.first_leader, roles=self.roles_held,
            hand_sizes=[len(h) for h in self.hands])))
        for s in range(n):
            self.emit(ppb.PresidentEvent(deal=ppb.PresidentDeal(round=self.round_no, hand=sort_cards(self.hands[s]))),
                      to=s)
        if self.round_no >= 2 and self.prev_order:
            # spec 5.1 step 1 / 5.2 step 1: the forced gifts, computed from the hands as dealt
            for giver, receiver, cards in forced_gifts(self.prev_order, self.hands, self.rules.double):
                for c in cards:
                    self.hands[giver].remove(c)
                self.hands[receiver].extend(cards)
                self._log_transfer("gift", giver, receiver, tuple(cards))
            self.duties = return_duties(self.prev_order, self.rules.double)
            self.duty_idx = 0
            self.phase = "exchange"
            self._legal = None
        else:
            self._start_play()

    def _log_transfer(self, kind: str, giver: int, receiver: int, cards: tuple[str, ...]) -> None:
        self.exchange_log.append((kind, giver, receiver, cards))
        self.emit(ppb.PresidentEvent(transfer=ppb.PresidentTransfer(
            kind=kind, from_seat=giver, to_seat=receiver, count=len(cards))))
        if cards:
            private = ppb.PresidentEvent(transfer=ppb.PresidentTransfer(
                kind=kind, from_seat=giver, to_seat=receiver, count=len(cards), cards=cards))
            self.emit(private, to=giver)
            self.emit(private, to=receiver)

    def _start_play(self) -> None:
        if self.exchange_log:
            self.emit(ppb.PresidentEvent(exchange_end=ppb.PresidentExchangeEnd(
                hand_sizes=[len(h) for h in self.hands], leader=self.first_leader)))
        self.phase = "play"
        self.play = RoundPlay(self.rules, self.hands, self.first_leader)
        self._legal = None

    def _end_round(self) -> None:
        assert self.play is not None
        order = list(self.play.finished)
        new_roles, deltas = roles(order)
        for s, d in enumerate(deltas):
            self.totals[s] += d
        self.emit(ppb.PresidentEvent(round_end=ppb.PresidentRoundEnd(
            round=self.round_no, order=order, roles=new_roles, deltas=deltas, totals=self.totals)))
        self.orders.append(order)
        self.prev_order = order
        self.roles_held = new_roles
        if match_over(self.totals, self.round_no, self.params["target_score"], self.params["max_rounds"]):
            self.ranking = final_ranking(self.totals, order)
            self.phase = "over"
            self._legal = None
            self.emit(ppb.PresidentEvent(match_end=ppb.PresidentMatchEnd(
                rounds_played=self.round_no, totals=self.totals, ranking=self.ranking, winner=self.ranking[0])))
        else:
            self._start_round()

    # -- the turn ------------------------------------------------------------------
    def deck(self) -> tuple[str, ...]:
        """The pack (spec 2.1)."""
        return tuple(self.rules.pack)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """``hand<j>`` per seat, ``played`` this round, ``returning<j>`` (chosen, not yet delivered)."""
        zones = {f"hand{j}": tuple(h) for j, h in enumerate(self.hands)}
        zones["played"] = tuple(self.play.played) if self.play is not None else ()
        for j, cards in self.pending.items():
            zones[f"returning{j}"] = tuple(cards)
        return zones

    @property
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` when the match is over."""
        if self.phase == "play":
            return self.play.to_act  # type: ignore[union-attr]
        if self.phase == "exchange":
            return self.duties[self.duty_idx][0]
        return None

    def decision_kind(self) -> str:
        """``"EXCHANGE"`` while a return is being decided (spec 5), else ``"PLAY"``."""
        return EXCHANGE if self.phase == "exchange" else PLAY

    def legal_actions(self) -> tuple[list[Action], bool]:
        """Every legal action of :attr:`to_act` (always complete; see class doc)."""
        if self._legal is not None:
            return self._legal
        if self.phase == "play":
            cache = _PLAY_ACTIONS
            out = []
            for a in self.play.legal():  # type: ignore[union-attr]
                if a is None:
                    out.append(_PASS_ACTION)
                else:
                    act = cache.get(a)
                    if act is None:
                        act = cache[a] = Action(PLAY, a)
                    out.append(act)
        elif self.phase == "exchange":
            returner, _, k, optional = self.duties[self.duty_idx]
            hand = sort_cards(self.hands[returner])
            out = [_PASS_ACTION] if optional else []
            if k == 1:
                out.extend(Action(EXCHANGE, (c,)) for c in hand)
            else:
                out.extend(Action(EXCHANGE, cs) for cs in combinations(hand, k))
        else:
            out = []
        self._legal = (out, True)
        return self._legal

    def apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat`` (spec 5.3 for returns, 6.2-6.9 for play).

        Raises :class:`IllegalAction` (state unchanged): rule ``"TURN"`` when
        it is not ``seat``'s turn or the match is over, ``"5.3"`` for an
        illegal return, ``"6.2"`` for an illegal play or pass.
        """
        phase = self.phase
        if phase == "over":
            raise IllegalAction("TURN", "the match is over")
        to_act = self.play.to_act if phase == "play" else self.to_act  # type: ignore[union-attr]
        if seat != to_act:
            raise IllegalAction("TURN", f"it is seat {to_act}'s turn, not seat {seat}'s")
        if phase == "play":
            self._apply_play(seat, action)
        else:
            self._apply_return(seat, action)

    def apply_play_only(self, seat: int, action: Action) -> None:
        """Apply a play-phase action like :meth:`apply`, but leave a finished
        round unsettled (no scoring, no next deal). Used by the ``play_sequence``
        conformance query (spec 12.9). Raises :class:`IllegalAction` like :meth:`apply`."""
        if self.phase != "play" or self.play is None or self.play.over:
            raise IllegalAction("TURN", "no play decision is pending")
        if seat != self.play.to_act:
            raise IllegalAction("TURN", f"it is seat {self.play.to_act}'s turn, not seat {seat}'s")
        self._apply_play(seat, action, settle=False)

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would (rules
        ``"TURN"``, ``"5.3"``, ``"6.2"``); never changes the state."""
        if self.phase == "over":
            raise IllegalAction("TURN", "the match is over")
        to_act = self.to_act
        if seat != to_act:
            raise IllegalAction("TURN", f"it is seat {to_act}'s turn, not seat {seat}'s")
        if self.phase == "play":
            self._check_play(seat, action)
        else:
            self._check_return(seat, action)

    def _check_play(self, seat: int, action: Action) -> tuple[str, ...] | None:
        """Spec 6.2 for the seat to act: the cards to play (``None`` = pass) or IllegalAction."""
        play = self.play
        assert play is not None
        kind = action.kind
        if action.amount != 0:
            raise IllegalAction(_RULE_PLAY, f"amount must be 0 for {kind}, got {action.amount}")
        if kind == PASS:
            if action.cards:
                raise IllegalAction(_RULE_PLAY, "a PASS carries no cards")
            cards = None
        elif kind == PLAY:
            cards = tuple(action.cards)
        else:
            raise IllegalAction(_RULE_PLAY, f"{kind} is not a play action: send PLAY with cards, or PASS")
        why = play.rules.check_action(play.hands[seat], play.top, cards, play.revolution)  # play.check
        if why is not None:
            raise IllegalAction(_RULE_PLAY, why)
        return cards

    def _apply_play(self, seat: int, action: Action, settle: bool = True) -> None:
        cards = self._check_play(seat, action)
        play = self.play
        assert play is not None
        play.act(seat, cards)
        self._legal = None
        if cards is not None:
            e = self._hand_enc[seat]
            if e is not None:  # keep the seat's hand encoding in step (see _hand_bytes)
                snap = e[0]
                try:
                    for c in cards:
                        snap.remove(c)
                        e[1] = e[1].replace(_HAND_B[c], b"", 1)
                except (ValueError, KeyError):  # not in step: drop it
                    self._hand_enc[seat] = None
        # each entry encoded once, for its event and (memoised) for the observation's trick
        events = self._events
        for entry in play.ev_entries:
            enc = _ENTRY_MEMO.get(entry) or _entry_encodings(entry)
            events.append(Event(encoded=enc[0], parse=_EV_FROM))
        te = play.ev_trick_end
        if te is not None:
            b = _TRICK_END_EV.get(te)
            if b is None:
                b = ppb.PresidentEvent(trick_end=ppb.PresidentTrickEnd(last_player=te[0], leader=te[1])
                                       ).SerializeToString()
                if len(_TRICK_END_EV) < 1024:
                    _TRICK_END_EV[te] = b
            events.append(Event(encoded=b, parse=_EV_FROM))
        if play.ev_round_over and settle:
            self._end_round()

    def _check_return(self, seat: int, action: Action) -> tuple[str, ...]:
        """Spec 5.3 for the returner to act: the cards to return (``()`` = none) or IllegalAction."""
        returner, receiver, k, optional = self.duties[self.duty_idx]
        kind = action.kind
        if action.amount != 0:
            raise IllegalAction(_RULE_RETURN, f"amount must be 0 for {kind}, got {action.amount}")
        if kind == PASS:
            if action.cards:
                raise IllegalAction(_RULE_RETURN, "a PASS carries no cards")
            if not optional:
                raise IllegalAction(_RULE_RETURN, f"you must return exactly {k} card(s) to seat {receiver}")
            cards: tuple[str, ...] = ()
        elif kind == EXCHANGE:
            cards = tuple(action.cards)
            pack = self.rules.pack_set
            for c in cards:
                if c not in pack:
                    raise IllegalAction(_RULE_RETURN, f"malformed or unknown card code {c!r}")
            if len(cards) != k:
                extra = " (or PASS to return nothing)" if optional else ""
                raise IllegalAction(_RULE_RETURN, f"a return must have exactly {k} card(s){extra}, got {len(cards)}")
            hand = self.hands[seat]
            for c in dict.fromkeys(cards):  # first offending card in the order given
                if cards.count(c) > hand.count(c):
                    raise IllegalAction(_RULE_RETURN, f"{c} is not in your hand" if c not in hand
                                        else f"{c} is used more than once")
        else:
            raise IllegalAction(_RULE_RETURN, f"{kind} is not a return: send EXCHANGE with cards"
                                + (" or PASS" if optional else ""))
        return cards

    def _apply_return(self, seat: int, action: Action) -> None:
        cards = self._check_return(seat, action)
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self.pending[seat] = list(cards)
        self._legal = None
        self.duty_idx += 1
        if self.duty_idx < len(self.duties):
            return
        # every return decided: deliver them all at once (spec 5.2 step 2)
        for returner, receiver, _, _ in self.duties:
            given = self.pending.pop(returner)
            self.hands[receiver].extend(given)
            self._log_transfer("return", returner, receiver, tuple(given))
        self._start_play()

    def fallback_action(self) -> Action:
        """Spec 6.10: with a top, PASS; a lead, the single lowest card under the
        order in force; a return, the required number of lowest cards by card
        order (one card in the default exchange). Raises ``RuntimeError`` when
        the match is over."""
        if self.phase == "play":
            play = self.play
            assert play is not None and play.to_act is not None
            if play.top is not None:
                return _PASS_ACTION
            return Action(PLAY, (self.rules.fallback_lead(self.hands[play.to_act], play.revolution),))
        if self.phase == "exchange":
            returner, _, k, _ = self.duties[self.duty_idx]
            return Action(EXCHANGE, tuple(lowest_cards(self.hands[returner], k)))
        raise RuntimeError("president: the match is over; no action is pending")

    # -- what a seat sees ------------------------------------------------------------
    def _rules_msg(self) -> ppb.PresidentRules:
        m = self.__dict__.get("_rules_pb")
        if m is None:
            v, p = self.variant, self.params
            m = self._rules_pb = ppb.PresidentRules(
                bigger_sets_beat_lower=v["bigger_sets_beat_lower"], bigger_sets_beat_any=v["bigger_sets_beat_any"],
                equal_rank_beats=v["equal_rank_beats"], equal_rank_skip=v["equal_rank_skip"],
                revolution=v["revolution"], jokers=v["jokers"], two_high_low=v["two_high_low"],
                transparent_threes=v["transparent_threes"], double_exchange=v["double_exchange"],
                later_leader=p["later_leader"], target_score=p["target_score"], max_rounds=p["max_rounds"],
                first_dealer=p["first_dealer"])
        return m

    def observation(self, seat: int) -> ppb.PresidentObservation:
        """The :class:`PresidentObservation` of ``seat`` (spec 9): its own hand,
        the cards of exchange transfers it took part in, and public state only.

        Parsed once from the concatenation of encoded parts, each cached on
        what it depends on: the per-round public part (:meth:`_round_bytes`),
        the exchange transfers as ``seat`` sees them (:meth:`_exchange_bytes`),
        the plays of the trick in progress (:meth:`_trick_bytes`), the played
        cards (:meth:`_played_bytes`), the seat's sorted hand
        (:meth:`_hand_bytes`) and the turn scalars (memoised on their values)."""
        return _OBS_FROM(self.observation_bytes(seat))

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation` encoded (the bytes it parses)."""
        phase = self.phase
        hands = self.hands
        pending = self.pending
        play = self.play
        to_act = play.to_act if phase == "play" else self.to_act  # type: ignore[union-attr]
        c = self.__dict__.get("_round_cache")
        rb = c[1] if c is not None and c[0] == (self.round_no, len(self.orders)) else self._round_bytes()
        e = self._hand_enc[seat]
        hand = hands[seat]
        hb = e[1] if e is not None and e[0] == hand else self._hand_bytes(seat)
        if pending:
            sizes = bytes([len(h) + len(pending[s]) if s in pending else len(h) for s, h in enumerate(hands)])
        else:
            sizes = bytes(map(len, hands))  # one-byte varints: a hand holds at most 54 cards
        parts = [rb, _SEAT_B[seat] if seat < len(_SEAT_B) else W.int_field(2, seat), hb,
                 _HAND_SIZES_KEY[len(sizes)], sizes]
        if self.exchange_log:
            parts.append(self._exchange_bytes(seat))
        return_to = trick_leader = top_seat = -1
        return_count = 0
        return_optional = revolution = False
        top = None
        if phase == "exchange":
            returner, receiver, k, optional = self.duties[self.duty_idx]
            if returner == seat:
                return_to, return_count, return_optional = receiver, k, optional
        if play is not None:
            if phase == "play":
                trick_leader = play.leader
                top = play.top
                if top is not None:
                    top_seat = play.last
                if play.trick:
                    parts.append(self._trick_bytes(play))
                if play.passed:
                    parts.append(_packed_seats(_PASSED_KEY, play.passed))
            revolution = play.revolution
            if play.played:
                parts.append(self._played_bytes(play))
            if play.finished:
                parts.append(_packed_seats(_FINISHED_KEY, play.finished))
        key = (phase, return_to, return_count, return_optional, -1 if to_act is None else to_act, trick_leader,
               top, top_seat, revolution)
        b = _SCALARS.get(key)
        if b is None:
            m = ppb.PresidentObservation(
                phase=phase, return_to=return_to, return_count=return_count,
                return_optional=return_optional, to_act=key[4], trick_leader=trick_leader, top_seat=top_seat,
                revolution=revolution)
            if top is not None:
                m.top.count, m.top.rank = top
            b = m.SerializeToString()
            if len(_SCALARS) >= 50_000:
                _SCALARS.clear()
            _SCALARS[key] = b
        parts.append(b)
        return b"".join(parts)

    def _hand_bytes(self, seat: int) -> bytes:
        """Encoded ``hand`` of ``seat`` (sorted by card order).

        ``_hand_enc[seat]`` is ``[copy of the hand list, encoding]``, used only
        while the copy equals the hand (a C-level list comparison). Plays keep
        it in step (:meth:`_apply_play` drops the played cards' entries, each a
        fixed 5-byte pattern that cannot occur across entries), so the seat to
        act does not sort its hand again."""
        hand = self.hands[seat]
        e = self._hand_enc[seat]
        if e is not None and e[0] == hand:
            return e[1]
        b = b"".join(map(_HAND_B.__getitem__, sort_cards(hand)))
        self._hand_enc[seat] = [hand[:], b]
        return b

    def _sorted_hand(self, seat: int) -> list[str]:
        """``sort_cards`` of the seat's hand."""
        return sort_cards(self.hands[seat])

    def _played_bytes(self, play: RoundPlay) -> bytes:
        """Encoded ``played`` (every card played this round, in card order), kept
        up to date by inserting the cards played since the last call
        (``play.played`` only grows; a new round has a new list). Entries have
        a fixed size, so a card goes in at its sorted index times that size."""
        played = play.played
        c = self._played_cache
        if c is None or c[0] is not played or c[1] > len(played):
            srt = sort_cards(played)
            b = b"".join(map(_PLAYED_B.__getitem__, srt))
        else:
            srt, b = c[2], c[3]
            n = c[1]
            if n < len(played):
                for card in played[n:]:
                    i = bisect_right(srt, CARD_ORDER[card], key=CARD_ORDER.__getitem__)
                    srt.insert(i, card)
                    j = i * _PLAYED_ENTRY_SIZE
                    b = b[:j] + _PLAYED_B[card] + b[j:]
        self._played_cache = (played, len(played), srt, b)
        return b

    def _round_bytes(self) -> bytes:
        """Encoded fields fixed for a round: players, rules, round, dealer,
        first leader, roles, totals, last order (they change only in
        ``_start_round`` / ``_end_round``, i.e. with ``round_no`` or ``orders``)."""
        key = (self.round_no, len(self.orders))
        c = self.__dict__.get("_round_cache")
        if c is not None and c[0] == key:
            return c[1]
        b = ppb.PresidentObservation(
            players=self.players, rules=self._rules_msg(), round=self.round_no, dealer=self.dealer,
            first_leader=self.first_leader, roles=self.roles_held, totals=self.totals,
            last_order=self.prev_order or []).SerializeToString()
        self._round_cache = (key, b)
        return b

    def _exchange_bytes(self, seat: int) -> bytes:
        """Encoded ``exchange`` entries as ``seat`` sees them (cards only for
        its own transfers); keyed by the log (appended to, replaced per round)."""
        log = self.exchange_log
        c = self.__dict__.get("_exchange_cache")
        if c is None or c[0] is not log or c[1] != len(log):
            c = self._exchange_cache = (log, len(log), {})
        per_seat = c[2]
        b = per_seat.get(seat)
        if b is None:
            b = per_seat[seat] = ppb.PresidentObservation(exchange=[
                ppb.PresidentTransfer(kind=kind, from_seat=giver, to_seat=receiver, count=len(cards),
                                      cards=cards if seat in (giver, receiver) else ())
                for kind, giver, receiver, cards in log]).SerializeToString()
        return b

    def _trick_bytes(self, play: RoundPlay) -> bytes:
        """Encoded ``trick`` entries of the trick in progress, extended by the
        entries added since the last call (``play.trick`` is appended to, and
        replaced by a new list at each trick start); ``_trick_cache`` is
        ``(trick list, entries encoded, encoding)``. A new entry's encoding
        usually comes from the memo filled by its event (:func:`_entry_encodings`)."""
        trick = play.trick
        c = self._trick_cache
        if c is None or c[0] is not trick or c[1] > len(trick):
            n, b = 0, b""
        else:
            n, b = c[1], c[2]
        if n < len(trick):
            b += b"".join([_entry_encodings(e)[1] for e in trick[n:]])
            self._trick_cache = (trick, len(trick), b)
        return b

    # -- the end -------------------------------------------------------------------
    def result(self) -> MatchResult:
        """Final result (spec 8): ``scores`` = match totals in role points;
        ``ranks`` = place in the final ranking (1 = best; the spec's ranking is
        strict, ties in total broken by the last round's finishing order);
        one free-for-all :class:`RatingOutcome` ranked the same way. Raises
        ``RuntimeError`` before the match is over."""
        if self.ranking is None:
            raise RuntimeError("president: the match is not over")
        n = self.players
        place = {s: i for i, s in enumerate(self.ranking)}
        return MatchResult(
            scores=[float(t) for t in self.totals],
            ranks=[place[s] + 1 for s in range(n)],
            outcomes=[RatingOutcome(teams=[[s] for s in range(n)], ranks=[place[s] for s in range(n)])],
            summary={"totals": list(self.totals), "ranking": list(self.ranking), "winner": self.ranking[0],
                     "rounds_played": self.round_no, "orders": [list(o) for o in self.orders]},
        )

    # -- hidden information --------------------------------------------------------------
    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Places ``seat`` may not see (spec 9): ``"hand<s>"`` for every other
        seat's hand (including the last player's unrevealed cards), and
        ``"return<s>"`` for a return chosen by another seat and not yet
        delivered (``double_exchange``). There is no stock or kitty."""
        zones = {f"hand{s}": sort_cards(h) for s, h in enumerate(self.hands) if s != seat}
        for s, cards in self.pending.items():
            if s != seat:
                zones[f"return{s}"] = list(cards)
        return zones

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "PresidentGame":
        """A deep copy whose hidden places hold ``zones`` (same keys and sizes
        as :meth:`hidden_zones` of some seat). Raises ``ValueError`` for an
        unknown zone or a size mismatch."""
        g = copy.deepcopy(self)
        for key, cards in zones.items():
            if key.startswith("hand") and key[4:].isdigit() and int(key[4:]) < g.players:
                place = g.hands[int(key[4:])]
            elif key.startswith("return") and key[6:].isdigit() and int(key[6:]) in g.pending:
                place = g.pending[int(key[6:])]
            else:
                raise ValueError(f"president: unknown hidden zone {key!r}")
            if len(place) != len(cards):
                raise ValueError(f"president: zone {key!r} holds {len(place)} cards, got {len(cards)}")
            place[:] = list(cards)  # in place: the round's play state shares these lists
        g._legal = None
        if g.play is not None:
            g.play.invalidate()
        return g

    def __deepcopy__(self, memo: dict[int, Any]) -> "PresidentGame":
        cls = self.__class__
        g = cls.__new__(cls)
        memo[id(self)] = g
        for k, val in self.__dict__.items():
            if k == "_events":
                g._events = [type(e)(_copy_msg(e.payload), e.to) for e in val]
            elif k == "_legal":
                g._legal = None
            elif k in ("play", "rules", "_rules_pb"):
                setattr(g, k, val)  # play is cloned below; rules and the rules message are never mutated
            else:
                setattr(g, k, copy.deepcopy(val, memo))
        if self.play is not None:
            g.play = self.play.clone(g.hands)
        return g


def _copy_msg(m: Any) -> Any:
    c = type(m)()
    c.CopyFrom(m)
    return c
