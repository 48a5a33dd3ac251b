"""The Tractor match engine (shared/rules/tractor.md, ruleset ``tractor/1``)."""

from __future__ import annotations

import copy
import random
from bisect import insort
from typing import Any, Iterable, Sequence

from referee.engine import (DECLARE, DISCARD, PASS, PLAY, Action, Game, IllegalAction, MatchResult, RatingOutcome,
                            ranks_from_scores)
from referee.games.tractor import events as E
from referee.games.tractor import rules as R

#: most actions listed in one DecisionRequest; larger legal sets are sampled (see TractorGame doc)
LIST_LIMIT = 100

_DECLARE, _BURY, _PLAY, _OVER = "declare", "bury", "play", "over"
_PRE_TRUMP_KEY = {c: (4, R.JOKERS.index(c)) if c in R.JOKERS else ("SHDC".index(c[1]), R.RANKS.index(c[0]))
                  for c in R.ALL_CODES}
#: the same order as ints (faster sort keys): code -> position
_PRE_TRUMP_ORDER = {c: i for i, c in enumerate(sorted(R.ALL_CODES, key=_PRE_TRUMP_KEY.__getitem__))}

_PASS = Action(PASS)
#: interned PLAY / DECLARE actions by card tuple (Actions are immutable), so hot legal lists do not rebuild them
_PLAY_ACTIONS: dict[tuple[str, ...], Action] = {}
_DECLARE_ACTIONS: dict[tuple[str, ...], Action] = {}
#: the one-card PLAY action of each code
_SINGLE_PLAY = {c: Action(PLAY, (c,)) for c in R.ALL_CODES}


def _actions(kind: str, cache: dict[tuple[str, ...], Action], plays: list[tuple[str, ...]]) -> tuple[Action, ...]:
    if len(cache) > 200_000:
        cache.clear()
    out = []
    get = cache.get
    for p in plays:
        a = get(p)
        if a is None:
            a = cache[p] = Action(kind, p)
        out.append(a)
    return tuple(out)


def _suit_name(trump_suit: str | None) -> str:
    return "NT" if trump_suit is None else trump_suit


class TractorGame(Game):
    """One Tractor match between teams 0 (seats 0, 2) and 1 (seats 1, 3).

    Decisions and action vocabulary (``Action(kind, cards, amount)``;
    ``amount`` is always 0):

    * ``DECLARE`` decision -- a declaration prompt (spec 2.4), after every
      card a seat receives and at each of its turns in the final window:
      ``PASS`` (no cards) or ``DECLARE`` with the cards shown (one rank-r
      card, two identical rank-r cards, or ``BJ BJ`` / ``RJ RJ``). The legal
      list is complete: ``PASS`` plus every legal declaration.
    * ``DISCARD`` decision -- the kitty exchange (spec 3): ``DISCARD`` with
      the 8 cards to bury out of the starter's 33. The list is never
      complete (C(33, 8) choices); it holds, deduplicated: the 8 cards taken
      from the kitty (the fallback), the 8 lowest cards (section 16 order)
      and the 8 lowest cards that are neither trumps nor point cards (when
      there are 8 such cards).
    * ``PLAY`` decision -- lead or follow a trick (spec 6-9): ``PLAY`` with
      the cards. A lead may be any non-empty set of one play-suit (a throw
      is attempted by leading several components; the referee checks it).
      Leads: complete when the hand allows at most ``LIST_LIMIT`` (100)
      distinct leads; otherwise a partial list with, per play-suit, every
      single, pair and tractor plus the whole holding of the suit (when it
      is a throw). Follows: complete when at most 100 legal follows exist
      (counted exactly); otherwise the first 50 legal follows in the
      ascending order of section 16 and the first 50 in descending order.
      Validation is always exact, whatever the list holds.

    Illegal actions raise ``IllegalAction(rule, message)`` with ``rule`` the
    spec section: "TURN", "1.2" (malformed card code), "2.2"/"2.3"/"2.4"
    (declarations), "3" (kitty exchange), "6.3" (lead), "7.1"/"7.2"/"7.3"
    (follow), "13" (``must_follow_tractor``), "ACTION" (non-zero amount).

    Scores of :meth:`result`: each seat gets its team's final level as a
    number (2..14, A = 14), and 15 for the team that passed the Ace.

    Events: records of :mod:`referee.games.tractor.events` (``CardDealt`` and
    ``DeclarePass`` private to their seat, ``KittyTaken``/``KittyBuried``
    public without cards and private to the starter with them).

    State a view reads (:mod:`referee.games.tractor.view`, section 12):
    ``round``, ``deal_number``, ``levels`` (per team, 2..14), ``trump_rank``,
    ``declarer_team``, ``starter``, ``first_drawer``, ``dealt``, ``phase``
    (``"declare"``, ``"bury"``, ``"play"``, ``"over"``), ``window``,
    ``trump_fixed``, ``trump_suit``, ``declarations`` (``Declaration``
    records), ``flipped``, ``kitty_taken``, ``kitty_buried``, ``buried``,
    :meth:`sorted_hand`, :meth:`hand_sizes`, ``tricks`` (``Trick`` records of
    this deal), the trick in progress (``trick_leader``, ``trick_plays``,
    ``trick_lead``, ``trick_failure``, ``trick_winner``, ``current_points``;
    :meth:`current_trick` as a record), ``defender_points``, ``last_round``
    (the previous round's ``RoundResult``), the variant flags as attributes
    of the same names and ``params``.
    """

    name = "tractor"
    player_counts = (4,)
    ruleset = "tractor/1"
    variant_defaults = {
        "notrump_rank_cards_trump": False,
        "must_follow_tractor": False,
        "kitty_multiplier_power": False,
        "must_play_ace": False,
        "no_throw_penalty": False,
    }
    param_defaults = {"max_rounds": 100, "max_round1_deals": 10}

    @classmethod
    def teams(cls, players: int) -> tuple[tuple[int, ...], ...]:
        """Two fixed partnerships: seats 0 and 2 against seats 1 and 3."""
        return ((0, 2), (1, 3))

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        super().__init__(players, variant, params, rng)
        for k in ("max_rounds", "max_round1_deals"):
            if self.params[k] < 1:
                raise ValueError(f"tractor: match parameter {k!r} must be a positive integer, got {self.params[k]!r}")
        v = self.variant
        #: variant flags (section 13)
        self.notrump_rank_cards_trump = bool(v["notrump_rank_cards_trump"])
        self.must_follow_tractor = bool(v["must_follow_tractor"])
        self.kitty_multiplier_power = bool(v["kitty_multiplier_power"])
        self.must_play_ace = bool(v["must_play_ace"])
        self.no_throw_penalty = bool(v["no_throw_penalty"])
        self.levels = [2, 2]
        self.round = 1
        self.deal_number = 1
        self.declarer_team: int | None = None
        self.starter: int | None = None
        self.winner: int | None = None
        self.draw = False
        self.passed_ace = False
        self.history: list[dict[str, Any]] = []
        self.last_round: E.RoundResult | None = None  # the previous round's scoring
        self._legal: tuple[tuple[Action, ...], bool] | None = None  # cached per state (cleared by apply)
        self._start_deal()

    # ------------------------------------------------------------------ deal
    def _start_deal(self) -> None:
        """Shuffle and deal card 0 (2.1); round state reset."""
        deck = list(R.DECK)
        self.rng.shuffle(deck)
        self.dealing = deck
        self.dealt = 0
        if self.round == 1:
            self.first_drawer = 0
        else:
            assert self.starter is not None  # every round after the first has its starter (11)
            self.first_drawer = self.starter
        self._rank = R.VALUE_RANK[self.levels[self.declarer_team if self.declarer_team is not None else 0]]
        #: per seat, its hand as a multiset {code: copies}: what the rules read
        self.hands: list[dict[str, int]] = [{}, {}, {}, {}]
        #: per seat, the same cards as a list in display order (section 12: what its view lists).
        #: A hand changes only through _give, _take and set_hand, which change both.
        self.hand_cards: list[list[str]] = [[], [], [], []]
        self.phase = _DECLARE
        self.declarations: list[E.Declaration] = []
        self._standing_trump: str | None = None  # trump suit named by the standing declaration
        self.window = False
        self.window_seat = 0
        self.window_passes = 0
        self.trump_suit: str | None = None
        self.trump_fixed = False
        self.ctx: R.Ctx | None = None
        self.flipped: list[str] = []
        self.kitty_taken: list[str] = []
        self.kitty_buried: list[str] = []
        self.buried = False
        self.tricks: list[E.Trick] = []
        self.trick_leader = 0
        self.trick_plays: list[E.Play] = []
        self.trick_lead: R.Lead | None = None
        self.trick_failure: E.ThrowFailure | None = None
        self.trick_winner = -1  # seat winning the trick in progress so far (section 8), -1 before the lead
        self._winning_strength = (0, 0)  # the strength it wins with (rules.lead_strength, taking_strength)
        self.current_points = 0  # card points (section 5) in the trick in progress
        self.defender_points = 0
        self.trick_points = 0
        self.penalty_points = 0
        self.played: list[str] = []
        self.emit(E.DealStart(self.round, self.deal_number, self.first_drawer, self._level_names(),
                              self.trump_rank, -1 if self.declarer_team is None else self.declarer_team,
                              -1 if self.starter is None else self.starter))
        self._deal_next()

    def _level_names(self) -> tuple[str, ...]:
        return tuple(R.VALUE_RANK[x] for x in self.levels)

    @property
    def trump_rank(self) -> str:
        """Rank char of this round's trump rank (1.4): the declarers' level
        when the round was dealt (2 in round 1, where both levels are 2)."""
        return self._rank

    def _deal_next(self) -> None:
        k = self.dealt
        seat = (self.first_drawer + k) % 4
        c = self.dealing[k]
        self._give(seat, (c,))
        self.dealt = k + 1
        self.emit(E.CardDealt(k, seat, c), to=seat)
        self._to_act: int | None = seat

    def _standing(self) -> tuple[int, tuple[str, ...]] | None:
        if not self.declarations:
            return None
        d = self.declarations[-1]
        return d.seat, d.cards

    def _after_prompt(self, declared: bool) -> None:
        """Advance the declaration phase after an answer (2.4)."""
        if not self.window:
            if self.dealt < 100:
                self._deal_next()
                return
            self.window = True
            self.window_seat = self.first_drawer
            self.window_passes = 0
            self._to_act = self.window_seat
            return
        self.window_passes = 0 if declared else self.window_passes + 1
        if self.window_passes >= 4:
            self._close_declarations()
        else:
            self.window_seat = (self.window_seat + 1) % 4
            self._to_act = self.window_seat

    def _close_declarations(self) -> None:
        """Sections 2.5-2.6: fix the trump (or redeal), hand the kitty to the starter."""
        kitty = self.dealing[100:108]
        if self.declarations:
            d = self.declarations[-1]
            if self.round == 1:
                self.starter = d.seat
                self.declarer_team = d.seat % 2
            self.trump_suit = self._standing_trump
            assert self.declarer_team is not None and self.starter is not None  # set in round 1 just above
            self.emit(E.DeclarationClosed("declared", _suit_name(self.trump_suit), self.declarer_team,
                                          self.starter, standing=d))
        else:
            if self.round == 1:
                if self.deal_number < self.params["max_round1_deals"]:
                    self.emit(E.DeclarationClosed("redeal", "", -1, -1))
                    self.deal_number += 1
                    self._start_deal()
                    return
                # 2.6 safeguard: seat 0 starts, team 0 declares, then the kitty flip
                self.starter, self.declarer_team = 0, 0
            suit, n = R.kitty_flip(kitty, self.trump_rank)
            self.flipped = kitty[:n]
            self.trump_suit = suit
            self.emit(E.KittyFlip(tuple(self.flipped), suit))
            assert self.declarer_team is not None and self.starter is not None  # set in round 1 just above
            self.emit(E.DeclarationClosed("kitty_flip", suit, self.declarer_team, self.starter))
        self.trump_fixed = True
        self.ctx = R.ctx_for(self.trump_suit, self.trump_rank, self.notrump_rank_cards_trump)
        for cards in self.hand_cards:  # the display order changes with the trump
            cards.sort(key=self.ctx.order_of.__getitem__)
        st = self.starter
        assert st is not None
        self._give(st, kitty)
        self.kitty_taken = kitty
        self.phase = _BURY
        self.emit(E.KittyTaken(st))
        self.emit(E.KittyTaken(st, tuple(kitty)), to=st)
        self._to_act = st

    # ------------------------------------------------------------------ turn
    def deck(self) -> tuple[str, ...]:
        """The pack: two 54-card decks (section 1)."""
        return tuple(R.DECK)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """``hand<j>`` per seat, the undealt ``stock`` and face-down ``kitty`` while
        declaring, the ``buried`` kitty afterwards, ``played`` this round."""
        zones = {f"hand{j}": tuple(c for c, k in h.items() for _ in range(k)) for j, h in enumerate(self.hands)}
        if self.phase == "declare":
            zones["stock"] = tuple(self.dealing[self.dealt:108])
        elif self.phase in ("play", "over"):
            zones["buried"] = tuple(self.kitty_buried)
        zones["played"] = tuple(self.played)
        return zones

    @property
    def to_act(self) -> int | None:
        """Seat to act (0..3): the receiver of the last card or the seat asked
        in the final window (2.4), the starter (3), the next player of the
        trick (6-8); ``None`` once the match is over (11)."""
        return self._to_act

    def _decision_kind(self) -> str:
        """``DECLARE`` (2.4 prompt), ``DISCARD`` (3, kitty exchange) or
        ``PLAY`` (6-8, lead or follow)."""
        if self.phase == _DECLARE:
            return DECLARE
        if self.phase == _BURY:
            return DISCARD
        return PLAY

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """``(actions, complete)`` for :attr:`to_act`; see the class docstring
        for the vocabulary and when a list is partial. Cached per state."""
        if self._legal is not None:
            return self._legal
        seat = self._to_act
        assert seat is not None  # only asked while the match runs
        if self.phase == _DECLARE:
            acts = (_PASS, *_actions(DECLARE, _DECLARE_ACTIONS, R.legal_declarations(
                self._standing(), seat, self.hands[seat], self.trump_rank)))
            res = (acts, True)
        elif self.phase == _BURY:
            ctx = self.ctx
            assert ctx is not None
            h = self.hands[seat]
            cands = [tuple(self.kitty_taken), R.lowest_cards(h, ctx, 8)]
            plain = {c: k for c, k in h.items() if not ctx.is_trump(c) and R.POINTS[c] == 0}
            if sum(plain.values()) >= 8:
                cands.append(R.lowest_cards(plain, ctx, 8))
            seen: set[tuple[str, ...]] = set()
            buries: list[Action] = []
            for cd in cands:
                s = tuple(sorted(cd))
                if s not in seen:
                    seen.add(s)
                    buries.append(Action(DISCARD, cd))
            res = (tuple(buries), False)
        else:
            ctx = self.ctx
            assert ctx is not None
            if not self.trick_plays:
                plays, complete = R.legal_leads(self.hands[seat], ctx, LIST_LIMIT)
            else:
                lead = self.trick_lead
                assert lead is not None
                if lead.n == 1:  # R.legal_follows of a single lead, with the cards' interned actions
                    pool = R.single_follows(lead, self.hands[seat], ctx)
                    self._legal = res = (tuple(map(_SINGLE_PLAY.__getitem__, pool[:LIST_LIMIT])),
                                         len(pool) <= LIST_LIMIT)
                    return res
                plays, complete = R.legal_follows(lead, self.hands[seat], ctx, self.must_follow_tractor, LIST_LIMIT)
            res = (_actions(PLAY, _PLAY_ACTIONS, plays), complete)
        self._legal = res
        return res

    def _fallback_action(self) -> Action:
        """Section 16: PASS at a declaration prompt; bury the 8 kitty cards
        just taken; lead the lowest single; follow by the section 16 rule."""
        seat = self._to_act
        assert seat is not None  # only asked while the match runs
        if self.phase == _DECLARE:
            return _PASS
        if self.phase == _BURY:
            return Action(DISCARD, tuple(self.kitty_taken))
        ctx = self.ctx
        assert ctx is not None
        if not self.trick_plays:
            return Action(PLAY, R.fallback_lead(self.hands[seat], ctx))
        assert self.trick_lead is not None
        return Action(PLAY, R.fallback_follow(self.trick_lead, self.hands[seat], ctx, self.must_follow_tractor))

    # ------------------------------------------------------------ validation
    def _check_codes(self, action: Action) -> None:
        for c in action.cards:
            if c not in R.ALL_CODES:
                raise IllegalAction("1.2", f"malformed card code {c!r} (expected rank 2-9TJQKA + suit SHDC, "
                                           f"or BJ/RJ)")
        if action.amount != 0:
            raise IllegalAction("ACTION", f"Tractor actions carry no amount (got {action.amount})")

    def _plan(self, seat: int, action: Action) -> Any:
        """Validate ``action`` by ``seat`` without changing anything; return
        what :meth:`apply` needs. Raises :class:`IllegalAction`."""
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        if not isinstance(action, Action):
            raise IllegalAction("ACTION", "not an Action")
        cards = tuple(action.cards)
        if self.phase == _DECLARE:
            if action.kind == PASS:
                if cards:
                    raise IllegalAction("2.4", "PASS shows no cards; use DECLARE to show cards")
                if action.amount != 0:
                    self._check_codes(action)  # raises
                return None
            if action.kind != DECLARE:
                raise IllegalAction("2.4", f"a declaration prompt is answered with PASS or DECLARE, not {action.kind}")
            self._check_codes(action)
            err = R.declaration_error(self._standing(), seat, cards, self.hands[seat], self.trump_rank)
            if err is not None:
                raise IllegalAction(*err)
            kind = R.declaration_kind(cards, self.trump_rank)
            return kind
        if self.phase == _BURY:
            if action.kind != DISCARD:
                raise IllegalAction("3", f"the kitty exchange is answered with DISCARD of 8 cards, not {action.kind}")
            self._check_codes(action)
            if len(cards) != 8:
                raise IllegalAction("3", f"bury exactly 8 cards, got {len(cards)}")
            h = self.hands[seat]
            for c, k in R.counts_of(cards).items():
                if h.get(c, 0) < k:
                    raise IllegalAction("3", f"{c} is not in your hand" if not h.get(c) else f"you hold {c} only once")
            return None
        # play
        ctx = self.ctx
        assert ctx is not None
        lead_turn = not self.trick_plays
        if action.kind != PLAY:
            raise IllegalAction("6.3" if lead_turn else "7.1", f"play cards with PLAY, not {action.kind}")
        if action.amount != 0 or not R.ALL_CODES.issuperset(cards):
            self._check_codes(action)  # raises
        h = self.hands[seat]
        if lead_turn:
            if not cards:
                raise IllegalAction("6.3", "a lead has at least one card")
            for c, k in R.counts_of(cards).items():
                if h.get(c, 0) < k:
                    raise IllegalAction("6.3", f"{c} is not in your hand" if not h.get(c)
                                        else f"you hold {c} only once")
            lead = R.analyze_lead(cards, ctx)
            if lead is None:
                raise IllegalAction("6.3", "a lead must be of one play-suit: "
                                    + ", ".join(f"{c}={ctx.suit_of[c]}" for c in cards))
            return lead
        assert self.trick_lead is not None
        err = R.follow_error(self.trick_lead, h, cards, ctx, self.must_follow_tractor)
        if err is not None:
            raise IllegalAction(*err)
        return None

    def _validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would."""
        self._plan(seat, action)

    # ----------------------------------------------------------------- apply
    def _apply(self, seat: int, action: Action) -> None:
        """Validate (exactly, whatever the legal list holds) and apply
        ``action`` by ``seat``; emits the events of everything that follows
        automatically (next card dealt, declaration close, kitty flip, throw
        check, trick end, round scoring, next deal). Raises
        :class:`IllegalAction` (rule labels in the class docstring) with the
        state unchanged."""
        plan = self._plan(seat, action)
        self._legal = None
        cards = tuple(action.cards)
        phase = self.phase
        if phase == _PLAY:
            self._apply_play(seat, cards, plan)
        elif phase == _DECLARE:
            if action.kind == PASS:
                self.emit(E.DeclarePass(seat, self.dealt), to=seat)
                self._after_prompt(False)
            else:
                st = self._standing()
                d = E.Declaration(seat, cards, plan.kind, plan.strength, st is not None and st[0] == seat,
                                  _suit_name(plan.trump_suit), self.dealt)
                self.declarations.append(d)
                self._standing_trump = plan.trump_suit
                self.emit(d)
                self._after_prompt(True)
        elif phase == _BURY:
            self._take(seat, cards)
            self.kitty_buried = list(cards)
            self.buried = True
            self.emit(E.KittyBuried(seat))
            self.emit(E.KittyBuried(seat, cards), to=seat)
            self.phase = _PLAY
            self._new_trick(seat)

    def _new_trick(self, leader: int) -> None:
        self.trick_leader = leader
        self.trick_plays = []
        self.trick_lead = None
        self.trick_failure = None
        self.trick_winner = -1
        self.current_points = 0
        self._to_act = leader

    def _display_order(self) -> dict[str, int]:
        """code -> its position in a hand's display order: by suit (S, H, D, C)
        and rank, jokers last, until the trump is fixed; then the ctx's order
        (play-suits S, H, D, C, trump; then step)."""
        return _PRE_TRUMP_ORDER if self.ctx is None else self.ctx.order_of

    def _give(self, seat: int, cards: Sequence[str]) -> None:
        """Put ``cards`` into the seat's hand (the multiset and the display list)."""
        h, listed, order = self.hands[seat], self.hand_cards[seat], self._display_order().__getitem__
        for c in cards:
            h[c] = h.get(c, 0) + 1
            insort(listed, c, key=order)

    def _take(self, seat: int, cards: tuple[str, ...]) -> None:
        """Take ``cards`` (validated: all held) out of the seat's hand (the multiset and the display list)."""
        h, listed = self.hands[seat], self.hand_cards[seat]
        for c in cards:
            h[c] -= 1
            if not h[c]:
                del h[c]
            listed.remove(c)

    def set_hand(self, seat: int, cards: Iterable[str]) -> None:
        """Make the seat's hand exactly ``cards`` (codes; for a copy with other
        hidden cards, :meth:`with_hidden_zones`, and for test positions)."""
        cards = list(cards)
        self.hands[seat] = R.counts_of(cards)
        cards.sort(key=self._display_order().__getitem__)
        self.hand_cards[seat] = cards

    def _remove(self, seat: int, cards: tuple[str, ...]) -> None:
        """A play: ``cards`` leave the hand for this round's played cards."""
        self._take(seat, cards)
        self.played.extend(cards)

    def _apply_play(self, seat: int, cards: tuple[str, ...], lead: R.Lead | None) -> None:
        ctx = self.ctx
        assert ctx is not None
        tno = len(self.tricks) + 1
        if lead is not None:
            forced = R.throw_check(lead, (self.hands[(seat + i) % 4] for i in (1, 2, 3)), ctx)
            if forced is not None:
                pen = R.throw_penalty(lead.n, forced.size, self.no_throw_penalty)
                delta = pen if seat % 2 == self.declarer_team else -pen
                self.defender_points += delta
                self.penalty_points += delta
                self.trick_failure = E.ThrowFailure(seat, cards, tuple(forced.cards), pen, delta)
                self.emit(self.trick_failure)
                cards = tuple(forced.cards)
                lead = R.analyze_lead(cards, ctx)
                assert lead is not None
            self.trick_lead = lead
            self.trick_winner, self._winning_strength = seat, R.lead_strength(lead)
            self._remove(seat, cards)
            play = E.Play(seat, cards)
            self.trick_plays.append(play)
            self.emit(E.Played(tno, True, play, lead.type, lead.suit))
        else:
            assert self.trick_lead is not None
            taking = R.taking_strength(self.trick_lead, cards, self._winning_strength, ctx)
            if taking is not None:
                self.trick_winner, self._winning_strength = seat, taking
            self._remove(seat, cards)
            play = E.Play(seat, cards)
            self.trick_plays.append(play)
            self.emit(E.Played(tno, False, play))
        self.current_points += R.points_of(cards)
        tp = self.trick_plays
        if len(tp) < 4:
            self._to_act = (seat + 1) % 4
            return
        tl = self.trick_lead
        assert tl is not None
        winner, pts = self.trick_winner, self.current_points
        dwon = winner % 2 != self.declarer_team
        if dwon:
            self.defender_points += pts
            self.trick_points += pts
        self.tricks.append(E.Trick(tno, self.trick_leader, tuple(tp), tl.type, tl.suit, self.trick_failure,
                                   winner, pts))
        self.emit(E.TrickEnd(tno, winner, pts, dwon, self.defender_points))
        if not self.hands[winner]:
            self._end_round(winner, tl)
        else:
            self._new_trick(winner)

    # ------------------------------------------------------------- round end
    def _end_round(self, last_winner: int, last_lead: R.Lead) -> None:
        """Sections 10-11: kitty bonus, level change, next round or match end."""
        D, st = self.declarer_team, self.starter
        assert D is not None and st is not None
        dwon = last_winner % 2 != D
        kpts = R.points_of(self.kitty_buried)
        mult = R.kitty_multiplier(last_lead.cards, self.ctx, self.kitty_multiplier_power) if dwon else 0
        bonus = kpts * mult
        self.defender_points += bonus
        p = self.defender_points
        ch = R.level_change(p, D, st, self.levels, self.round, self.params["max_rounds"], self.must_play_ace)
        self.levels = list(ch.new_levels)
        over = ch.winner is not None or ch.draw
        rr = E.RoundResult(
            round_number=self.round, declarer_team=D, starter=st, trump_rank=self.trump_rank,
            trump_suit=_suit_name(self.trump_suit), kitty=tuple(self.kitty_buried), kitty_points=kpts,
            kitty_multiplier=mult, kitty_bonus=bonus, trick_points=self.trick_points,
            penalty_points=self.penalty_points, defender_points=p,
            team_up=-1 if ch.team_up is None else ch.team_up, levels_up=ch.levels_up,
            levels=self._level_names(), next_declarer_team=ch.next_declarer_team,
            next_starter=ch.next_starter, match_over=over, winner_team=-1 if ch.winner is None else ch.winner,
            draw=ch.draw)
        self.history.append({"round": self.round, "declarer_team": D, "starter": st,
                             "trump_rank": self.trump_rank, "trump_suit": _suit_name(self.trump_suit),
                             "defender_points": p, "kitty_bonus": bonus, "team_up": ch.team_up,
                             "levels_up": ch.levels_up, "levels": [R.VALUE_RANK[x] for x in self.levels]})
        self.emit(rr)
        self.last_round = rr
        self.declarer_team, self.starter = ch.next_declarer_team, ch.next_starter
        if over:
            self.winner, self.draw, self.passed_ace = ch.winner, ch.draw, ch.passed_ace
            self.phase = _OVER
            self._to_act = None
            self.emit(E.MatchEnd(-1 if ch.winner is None else ch.winner, ch.draw, ch.passed_ace,
                                 self._level_names(), self.round))
            return
        self.round += 1
        self.deal_number = 1
        self._start_deal()

    # ----------------------------------------------------------- what a view reads
    def sorted_hand(self, seat: int) -> tuple[str, ...]:
        """The seat's hand as codes, in display order (:meth:`_display_order`)."""
        return tuple(self.hand_cards[seat])

    def hand_size(self, seat: int) -> int:
        """Cards in the seat's hand."""
        return len(self.hand_cards[seat])

    def hand_sizes(self) -> list[int]:
        """Cards in each seat's hand, by seat (0..3)."""
        return [len(cards) for cards in self.hand_cards]

    def current_trick(self) -> E.Trick:
        """The trick in progress (play phase): number, leader, plays so far,
        the lead's type and play-suit, a failed throw, the seat winning it so
        far and its points so far."""
        lt = self.trick_lead
        tp = self.trick_plays
        return E.Trick(len(self.tricks) + 1, self.trick_leader, tuple(tp), lt.type if lt else "",
                       lt.suit if lt else "", self.trick_failure, self.trick_winner, self.current_points)

    # ------------------------------------------------------------- result
    def _team_score(self, team: int) -> int:
        # The spec gives no unit for a match score. Reading of the seed text
        # (shared/seeds/tractor.txt): it calls a team's level its "score"
        # ("ਦੋਵੇਂ ਟੀਮਾਂ ਦੋ ਦੇ ਸਕੋਰ ਤੋਂ ਸ਼ੁਰੂ ਹੁੰਦੀਆਂ ਹਨ": both teams start at a
        # score of two) and ends the game when a team goes *beyond* the Ace,
        # so the score is the level (A = 14) and 15 for passing the Ace.
        if self.passed_ace and self.winner == team:
            return 15
        return self.levels[team]

    def result(self) -> MatchResult:
        """Scores: the team's final level (2..14; 15 = passed the Ace) for
        each of its seats; ranks 1/2 (1/1 for a draw); one TrueSkill outcome
        teams [[0, 2], [1, 3]]."""
        if self._to_act is not None:
            raise RuntimeError("tractor: result() before the match is over")
        scores = [float(self._team_score(s % 2)) for s in range(4)]
        ranks = ranks_from_scores(scores)
        if self.winner is None:
            tr = [0, 0]
        else:
            tr = [0 if self.winner == 0 else 1, 0 if self.winner == 1 else 1]
        summary = {"levels": [R.VALUE_RANK[x] for x in self.levels], "winner_team": self.winner, "draw": self.draw,
                   "passed_ace": self.passed_ace, "rounds_played": self.round, "rounds": self.history}
        return MatchResult(scores, ranks, [RatingOutcome([[0, 2], [1, 3]], tr)], summary)

    # ------------------------------------------------------ hidden information
    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Places ``seat`` cannot see: ``hand<q>`` for every other seat (for
        the starter during the exchange: its 25 dealt cards), ``stock``
        (undealt cards 0..99 in deal order) and ``kitty`` (face down: deck
        cards 100..107 during the deal; the 8 taken cards inside the
        starter's hand during the exchange; the buried cards during play)."""
        z: dict[str, list[str]] = {}
        for q in range(4):
            if q == seat:
                continue
            if self.phase == _BURY and q == self.starter:
                h = dict(self.hands[q])
                for c in self.kitty_taken:
                    h[c] -= 1
                z[f"hand{q}"] = sorted(R.expand({c: k for c, k in h.items() if k}))
            else:
                z[f"hand{q}"] = sorted(R.expand(self.hands[q]))
        if self.phase == _DECLARE:
            z["stock"] = self.dealing[self.dealt:100]
            z["kitty"] = self.dealing[100:108]
        elif self.phase == _BURY and seat != self.starter:
            z["kitty"] = list(self.kitty_taken)
        elif self.phase == _PLAY and seat != self.starter:
            z["kitty"] = list(self.kitty_buried)
        return z

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "TractorGame":
        """A deep copy whose hidden places hold ``zones`` (keys and sizes as
        returned by :meth:`hidden_zones`). Raises ``ValueError`` on a size mismatch."""
        g = copy.deepcopy(self)
        g._legal = None
        cur = {}
        for seat in range(4):
            for k, v in self.hidden_zones(seat).items():
                cur[k] = len(v)
        for k, v in zones.items():
            if k not in cur or cur[k] != len(v):
                raise ValueError(f"tractor: hidden zone {k!r} unknown or of the wrong size")
        if g.phase == _DECLARE:
            if "stock" in zones:
                g.dealing[g.dealt:100] = list(zones["stock"])
            if "kitty" in zones:
                g.dealing[100:108] = list(zones["kitty"])
        elif g.phase == _BURY:
            st = g.starter
            assert st is not None  # the kitty exchange has its starter
            kit = list(zones.get("kitty", g.kitty_taken))
            key = f"hand{st}"
            if key in zones:
                base = list(zones[key])
            else:
                h = dict(g.hands[st])
                for c in g.kitty_taken:
                    h[c] -= 1
                base = R.expand({c: k for c, k in h.items() if k})
            g.kitty_taken = kit
            g.set_hand(st, base + kit)
        elif g.phase == _PLAY and "kitty" in zones:
            g.kitty_buried = list(zones["kitty"])
        for q in range(4):
            key = f"hand{q}"
            if key in zones and not (g.phase == _BURY and q == g.starter):
                g.set_hand(q, zones[key])
        return g
