"""The President match engine (shared/rules/president.md, ruleset ``president/1``)."""

from __future__ import annotations

import copy
import random
from itertools import combinations
from typing import Any, ClassVar

from referee.engine import (EXCHANGE, PASS, PLAY, Action, Game, IllegalAction, MatchResult,
                            RatingOutcome)

from . import events as E
from .play import RoundPlay
from .rules import (CARD_ORDER, LATER_LEADERS, VARIANT_FLAGS, Rules, deal, final_ranking, forced_gifts,
                    lowest_cards, match_over, return_duties, roles, round_start, sort_cards)

_PASS_ACTION = Action(PASS)
#: interned PLAY actions by card tuple (Action is immutable): legal lists are rebuilt often
_PLAY_ACTIONS: dict[tuple[str, ...], Action] = {}
_RULE_PLAY = "6.2"
_RULE_RETURN = "5.3"


class PresidentGame(Game):
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

    **State** (plain attributes, read by :mod:`.view`): ``round``, ``dealer``,
    ``first_leader``, ``phase`` (``"exchange"``, ``"play"``, ``"over"``),
    ``roles_held`` (roles from the previous round), ``totals``,
    ``prev_order`` (the previous round's finishing order), ``hands`` (per
    seat, its cards in card order, spec 3.3), ``pending`` (returns chosen, not yet delivered), ``exchange_log`` (this
    round's :class:`.events.Transfer` records), ``duties``/``duty_idx`` (the
    returns to decide: ``(returner, receiver, count, optional)``) and
    ``play`` (the round's :class:`.play.RoundPlay`: trick, top, passes,
    revolution, played cards, finishing order). Events: the records of
    :mod:`.events`.
    """

    name = "president"
    player_counts = (4, 5, 6, 7)
    ruleset = "president/1"
    variant_defaults: ClassVar[dict[str, Any]] = {f: False for f in VARIANT_FLAGS}
    param_defaults: ClassVar[dict[str, Any]] = {"later_leader": "after_dealer", "target_score": 10,
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
        self.round = 0
        self.prev_order: list[int] | None = None   # finishing order of the previous round
        self.roles_held: list[str] = [""] * n      # roles held during the current round
        self.orders: list[list[int]] = []          # finishing order of every round played
        self.phase = "play"
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.play: RoundPlay | None = None
        self.dealer = 0
        self.first_leader = 0
        self.exchange_log: list[E.Transfer] = []   # the round's exchange transfers, in order
        self.duties: list[tuple[int, int, int, bool]] = []
        self.duty_idx = 0
        self.pending: dict[int, list[str]] = {}    # returner -> chosen, not yet delivered cards
        self.ranking: list[int] | None = None
        self._legal: tuple[tuple[Action, ...], bool] | None = None
        self._start_round()

    # -- round flow --------------------------------------------------------------
    def _start_round(self) -> None:
        n = self.players
        self.round += 1
        self.dealer, self.first_leader = round_start(n, self.round, self.params["first_dealer"],
                                                     self.prev_order, self.params["later_leader"])
        pack = list(self.rules.pack)
        self.rng.shuffle(pack)
        self.hands = [sort_cards(h) for h in deal(pack, n, self.dealer)]  # kept in card order (3.3)
        self.play = None
        self.exchange_log = []
        self.pending = {}
        self.emit(E.RoundStart(round=self.round, dealer=self.dealer, leader=self.first_leader,
                                roles=tuple(self.roles_held), hand_sizes=tuple(len(h) for h in self.hands)))
        for s in range(n):
            self.emit(E.Deal(round=self.round, hand=tuple(self.hands[s])), to=s)
        if self.round >= 2 and self.prev_order:
            # spec 5.1 step 1 / 5.2 step 1: the forced gifts, computed from the hands as dealt
            for giver, receiver, cards in forced_gifts(self.prev_order, self.hands, self.rules.double):
                for c in cards:
                    self.hands[giver].remove(c)
                self._receive(receiver, cards)
                self._log_transfer("gift", giver, receiver, tuple(cards))
            self.duties = return_duties(self.prev_order, self.rules.double)
            self.duty_idx = 0
            self.phase = "exchange"
            self._legal = None
        else:
            self._start_play()

    def _log_transfer(self, kind: str, giver: int, receiver: int, cards: tuple[str, ...]) -> None:
        t = E.Transfer(kind=kind, from_seat=giver, to_seat=receiver, cards=cards)
        self.exchange_log.append(t)
        self.emit(t)  # public: the count only (spec 9)
        if cards:
            private = E.TransferCards(t)
            self.emit(private, to=giver)
            self.emit(private, to=receiver)

    def _start_play(self) -> None:
        if self.exchange_log:
            self.emit(E.ExchangeEnd(hand_sizes=tuple(len(h) for h in self.hands), leader=self.first_leader))
        self.phase = "play"
        self.play = RoundPlay(self.rules, self.hands, self.first_leader)
        self._legal = None

    def _end_round(self) -> None:
        assert self.play is not None
        order = list(self.play.finished)
        new_roles, deltas = roles(order)
        for s, d in enumerate(deltas):
            self.totals[s] += d
        self.emit(E.RoundEnd(round=self.round, order=tuple(order), roles=tuple(new_roles), deltas=tuple(deltas),
                              totals=tuple(self.totals)))
        self.orders.append(order)
        self.prev_order = order
        self.roles_held = new_roles
        if match_over(self.totals, self.round, self.params["target_score"], self.params["max_rounds"]):
            self.ranking = final_ranking(self.totals, order)
            self.phase = "over"
            self._legal = None
            self.emit(E.MatchEnd(rounds_played=self.round, totals=tuple(self.totals), ranking=tuple(self.ranking),
                                  winner=self.ranking[0]))
        else:
            self._start_round()

    # -- the turn ------------------------------------------------------------------
    def _round_play(self) -> RoundPlay:
        """The round's play; only called while ``phase`` is ``"play"``."""
        play = self.play
        assert play is not None, "the play phase has a RoundPlay"
        return play

    @property
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` when the match is over."""
        if self.phase == "play":
            return self._round_play().to_act
        if self.phase == "exchange":
            return self.duties[self.duty_idx][0]
        return None

    def _decision_kind(self) -> str:
        """``"EXCHANGE"`` while a return is being decided (spec 5), else ``"PLAY"``."""
        return EXCHANGE if self.phase == "exchange" else PLAY

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """Every legal action of :attr:`to_act` (always complete; see class doc),
        as an immutable tuple (cached until the next action)."""
        if self._legal is not None:
            return self._legal
        if self.phase == "play":
            cache = _PLAY_ACTIONS
            out = []
            for a in self._round_play().legal():
                if a is None:
                    out.append(_PASS_ACTION)
                else:
                    act = cache.get(a)
                    if act is None:
                        act = cache[a] = Action(PLAY, a)
                    out.append(act)
        else:  # a return (spec 5.3)
            returner, _, k, optional = self.duties[self.duty_idx]
            hand = sort_cards(self.hands[returner])
            out = [_PASS_ACTION] if optional else []
            if k == 1:
                out.extend(Action(EXCHANGE, (c,)) for c in hand)
            else:
                out.extend(Action(EXCHANGE, cs) for cs in combinations(hand, k))
        self._legal = (tuple(out), True)
        return self._legal

    def _apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat`` (spec 5.3 for returns, 6.2-6.9 for play).

        Raises :class:`IllegalAction` (state unchanged): rule ``"TURN"`` when
        it is not ``seat``'s turn, ``"5.3"`` for an illegal return, ``"6.2"``
        for an illegal play or pass.
        """
        phase = self.phase
        to_act = self._round_play().to_act if phase == "play" else self.to_act
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

    def _validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would (rules
        ``"TURN"``, ``"5.3"``, ``"6.2"``); never changes the state."""
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
        for entry in play.ev_entries:  # the action, then an automatic pass if it caused a skip (spec 6.5)
            self.emit(entry)
        te = play.ev_trick_end
        if te is not None:
            self.emit(E.TrickEnd(last_player=te[0], leader=te[1]))
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
            self._receive(receiver, given)
            self._log_transfer("return", returner, receiver, tuple(given))
        self._start_play()

    def _fallback_action(self) -> Action:
        """Spec 6.10: with a top, PASS; a lead, the single lowest card under the
        order in force; a return, the required number of lowest cards by card
        order (one card in the default exchange)."""
        if self.phase == "play":
            play = self.play
            assert play is not None and play.to_act is not None
            if play.top is not None:
                return _PASS_ACTION
            return Action(PLAY, (self.rules.fallback_lead(self.hands[play.to_act], play.revolution),))
        returner, _, k, _ = self.duties[self.duty_idx]
        return Action(EXCHANGE, tuple(lowest_cards(self.hands[returner], k)))

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
                     "rounds_played": self.round, "orders": [list(o) for o in self.orders]},
        )

    # -- cards and hidden information --------------------------------------------------------------
    def deck(self) -> tuple[str, ...]:
        """The match's pack (spec 2.1: 52 cards, 54 with ``jokers``)."""
        return tuple(self.rules.pack)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """Every place holding cards: ``"hand<s>"``, ``"return<s>"`` (chosen,
        not yet delivered, spec 5.2) and ``"played"`` (this round's plays)."""
        z = {f"hand{s}": tuple(h) for s, h in enumerate(self.hands)}
        z.update({f"return{s}": tuple(c) for s, c in self.pending.items()})
        z["played"] = tuple(self.play.played) if self.play is not None else ()
        return z

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

    def _receive(self, seat: int, cards: list[str]) -> None:
        """Put exchanged ``cards`` into the seat's hand, which stays in card order (spec 3.3)."""
        hand = self.hands[seat]
        hand.extend(cards)
        hand.sort(key=CARD_ORDER.__getitem__)

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
            # in place: the round's play state shares these lists; a hand is kept in card order
            place[:] = sort_cards(cards) if key.startswith("hand") else list(cards)
        g._legal = None
        if g.play is not None:
            g.play.invalidate()
        return g

    def __deepcopy__(self, memo: dict[int, Any]) -> "PresidentGame":
        cls = self.__class__
        g = cls.__new__(cls)
        memo[id(self)] = g
        for k, val in self.__dict__.items():
            if k in ("_events", "exchange_log"):
                setattr(g, k, list(val))  # lists of immutable records
            elif k == "_legal":
                g._legal = None
            elif k in ("play", "rules"):
                setattr(g, k, val)  # play is cloned below; rules are never mutated
            else:
                setattr(g, k, copy.deepcopy(val, memo))
        if self.play is not None:
            g.play = self.play.clone(g.hands)
        return g

