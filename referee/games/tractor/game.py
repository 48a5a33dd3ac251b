"""The Tractor match engine (shared/rules/tractor.md, ruleset ``tractor/1``)."""

from __future__ import annotations

import copy
import random
from bisect import bisect_right
from typing import Any

from cardgames.v1 import tractor_pb2 as tpb
from referee.engine import (DECLARE, DISCARD, PASS, PLAY, Action, Game, IllegalAction, LegacyGame, MatchResult,
                            RatingOutcome, ranks_from_scores)
from referee.games import _wire as W
from referee.games._wire import WireEvent as Event
from referee.games.tractor import rules as R

#: most actions listed in one DecisionRequest; larger legal sets are sampled (see TractorGame doc)
LIST_LIMIT = 100

_DECLARE, _BURY, _PLAY, _OVER = "declare", "bury", "play", "over"
_PRE_TRUMP_KEY = {c: (4, R.JOKERS.index(c)) if c in R.JOKERS else ("SHDC".index(c[1]), R.RANKS.index(c[0]))
                  for c in R.ALL_CODES}
#: the same order as ints (faster sort keys): code -> position
_PRE_TRUMP_ORDER = {c: i for i, c in enumerate(sorted(R.ALL_CODES, key=_PRE_TRUMP_KEY.__getitem__))}

# Observation encoding tables (see TractorGame.observation): TractorObservation fields
# seat (1), hand (2), cards_dealt (11), kitty_taken (17), kitty_buried (18),
# hand_sizes (19), current_trick (21), defender_points (22).
_OBS_FROM = tpb.TractorObservation.FromString
_SEAT_B = [W.int_field(1, s) for s in range(4)]
_HAND_B = W.repeated_str_entries(2, R.ALL_CODES)
#: every ``hand`` entry has this size (two-character codes), so the i-th card's entry starts at i times it
_HAND_ENTRY_SIZE = 4
assert all(len(b) == _HAND_ENTRY_SIZE for b in _HAND_B.values())
_KITTY_TAKEN_B = W.repeated_str_entries(17, R.ALL_CODES)
_KITTY_BURIED_B = W.repeated_str_entries(18, R.ALL_CODES)
_DEALT_B = [W.int_field(11, k) for k in range(109)]
_HAND_SIZES_KEY = W.key(19, 2) + bytes([4])
_HAND_SIZES_ZERO = _HAND_SIZES_KEY + bytes(4)
#: encoded defender_points by value (memo)
_DP_B: dict[int, bytes] = {}
#: encoded phase / final_window / declaration_closed / trump_suit / kitty_flipped by their values (memo)
_PHASE_MEMO: dict[tuple, bytes] = {}
# TractorTrick fields: plays (3) entries of TractorPlay(seat=1, cards=2), lead_type (4), lead_suit (5), winner (7)
_PLAY_ENTRY: dict[tuple[int, tuple[str, ...]], bytes] = {}
_LEAD_B: dict[tuple[str, str], bytes] = {
    (t, s): W.str_field(4, t) + W.str_field(5, s)
    for t in ("single", "pair", "tractor", "throw") for s in ("S", "H", "D", "C", R.TRUMP)}
_WINNER_B = {w: W.int_field(7, w) for w in range(-1, 4)}
#: encoded number (1) and leader (2) of a TractorTrick, by (number, leader) (memo)
_TRICK_HEAD: dict[tuple[int, int], bytes] = {}


def _trick_head(number: int, leader: int) -> bytes:
    """Encoded ``number`` and ``leader`` fields of a ``TractorTrick`` (memoised)."""
    b = _TRICK_HEAD.get((number, leader))
    if b is None:
        b = W.int_field(1, number) + W.int_field(2, leader)
        if len(_TRICK_HEAD) < 4096:
            _TRICK_HEAD[number, leader] = b
    return b


_CUR_KEY = W.key(21, 2)
#: encoded points (8) of a TractorTrick, by value
_POINTS_B = [W.int_field(8, p) for p in range(256)]


def _trick_body(number: int, leader: int, plays: bytes, lead_type: str, lead_suit: str, failure: tuple | None,
                winner: int, points: int) -> bytes:
    """Encoded ``TractorTrick`` (what :meth:`TractorGame._trick_pb` builds, serialised),
    with ``plays`` its already encoded ``plays`` entries (see :func:`_play_entry`)."""
    b = _trick_head(number, leader) + plays
    if lead_type or lead_suit:
        b += _LEAD_B.get((lead_type, lead_suit)) or W.str_field(4, lead_type) + W.str_field(5, lead_suit)
    if failure is not None:
        fs, att, forced, pen, delta = failure
        b += W.len_field(6, tpb.TractorThrowFailure(seat=fs, attempted=att, forced=forced, penalty=pen,
                                                    defender_points_delta=delta).SerializeToString())
    return (b + (_WINNER_B.get(winner) or W.int_field(7, winner))
            + (_POINTS_B[points] if 0 <= points < 256 else W.int_field(8, points)))


def _play_entry(seat: int, cards: tuple[str, ...]) -> bytes:
    """Encoded ``plays`` entry (field 3 of ``TractorTrick``) of one play (memoised)."""
    b = _PLAY_ENTRY.get((seat, cards))
    if b is None:
        b = W.len_field(3, tpb.TractorPlay(seat=seat, cards=cards).SerializeToString())
        if len(_PLAY_ENTRY) >= 100_000:
            _PLAY_ENTRY.clear()
        _PLAY_ENTRY[seat, cards] = b
    return b


# Hot events (one per decision) parsed from their encoding: TractorEvent fields
# card_dealt (2), declare_pass (3), played (10); TractorPlayed fields trick (1),
# lead (2), play (3, same encoding as a TractorTrick ``plays`` entry), lead_type (4), lead_suit (5).
_EV_FROM = tpb.TractorEvent.FromString
# TractorCardDealt fields index (1), seat (2), card (3), by value
_IDX_B = [W.int_field(1, k) for k in range(108)]
_DEALT_SEAT_B = [W.int_field(2, s) for s in range(4)]
_DEALT_CARD_B = {c: W.str_field(3, c) for c in R.ALL_CODES}
_CARD_DEALT_KEY = W.key(2, 2)
#: encoded declare_pass events by their fields (memo; at most 4 x 101 entries)
_PASS_EV: dict[tuple[int, int], bytes] = {}
_PLAYED_KEY = W.key(10, 2)
_LEAD_TRUE = W.int_field(2, 1)


def _card_dealt_event(index: int, seat: int, card: str) -> bytes:
    """Encoded ``TractorEvent(card_dealt=TractorCardDealt(index, seat, card))``."""
    body = (_IDX_B[index] if 0 <= index < len(_IDX_B) else W.int_field(1, index)) + _DEALT_SEAT_B[seat] \
        + _DEALT_CARD_B[card]
    return _CARD_DEALT_KEY + W.SMALL[len(body)] + body


def _declare_pass_event(seat: int, dealt: int) -> bytes:
    """Encoded ``TractorEvent(declare_pass=TractorDeclarePass(seat, cards_dealt))``."""
    b = _PASS_EV.get((seat, dealt))
    if b is None:
        b = tpb.TractorEvent(declare_pass=tpb.TractorDeclarePass(seat=seat, cards_dealt=dealt)).SerializeToString()
        if len(_PASS_EV) < 4096:
            _PASS_EV[seat, dealt] = b
    return b


def _played_event(trick: int, lead: bool, seat: int, cards: tuple[str, ...], lead_type: str, lead_suit: str) -> bytes:
    """Encoded ``TractorEvent(played=TractorPlayed(trick, lead, TractorPlay(seat, cards), lead_type, lead_suit))``."""
    body = (_IDX_B[trick] if 0 < trick < len(_IDX_B) else W.int_field(1, trick)) + (_LEAD_TRUE if lead else b"") \
        + _play_entry(seat, cards)
    if lead_type or lead_suit:
        body += _LEAD_B.get((lead_type, lead_suit)) or W.str_field(4, lead_type) + W.str_field(5, lead_suit)
    n = len(body)
    return _PLAYED_KEY + (W.SMALL[n] if n < 128 else W.varint(n)) + body


# TractorTrickEnd fields trick (1), winner (2), points (3), defenders_won (4), defender_points (5)
_TRICK_END_KEY = W.key(11, 2)
_TE_WINNER_B = [W.int_field(2, s) for s in range(4)]
_TE_WON_B = W.int_field(4, 1)
_TE_POINTS_B = [W.int_field(3, p) for p in range(256)]


def _trick_end_event(trick: int, winner: int, points: int, defenders_won: bool, defender_points: int) -> bytes:
    """Encoded ``TractorEvent(trick_end=TractorTrickEnd(trick, winner, points, defenders_won, defender_points))``."""
    body = ((_IDX_B[trick] if 0 < trick < len(_IDX_B) else W.int_field(1, trick)) + _TE_WINNER_B[winner]
            + (_TE_POINTS_B[points] if 0 <= points < len(_TE_POINTS_B) else W.int_field(3, points))
            + (_TE_WON_B if defenders_won else b"") + W.int_field(5, defender_points))
    n = len(body)
    return _TRICK_END_KEY + (W.SMALL[n] if n < 128 else W.varint(n)) + body


_PASS = Action(PASS)
#: interned PLAY / DECLARE actions by card tuple (Actions are immutable), so hot legal lists do not rebuild them
_PLAY_ACTIONS: dict[tuple[str, ...], Action] = {}
_DECLARE_ACTIONS: dict[tuple[str, ...], Action] = {}
#: the one-card PLAY action of each code
_SINGLE_PLAY = {c: Action(PLAY, (c,)) for c in R.ALL_CODES}


def _actions(kind: str, cache: dict[tuple[str, ...], Action], plays: list[tuple[str, ...]]) -> list[Action]:
    if len(cache) > 200_000:
        cache.clear()
    out = []
    get = cache.get
    for p in plays:
        a = get(p)
        if a is None:
            a = cache[p] = Action(kind, p)
        out.append(a)
    return out


def _suit_name(trump_suit: str | None) -> str:
    return "NT" if trump_suit is None else trump_suit


class TractorGame(LegacyGame):
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
        self._nrt = bool(v["notrump_rank_cards_trump"])
        self._mft = bool(v["must_follow_tractor"])
        self._power = bool(v["kitty_multiplier_power"])
        self._mpa = bool(v["must_play_ace"])
        self._ntp = bool(v["no_throw_penalty"])
        self.levels = [2, 2]
        self.round_number = 1
        self.deal_number = 1
        self.declarer_team: int | None = None
        self.starter: int | None = None
        self.winner: int | None = None
        self.draw = False
        self.passed_ace = False
        self.history: list[dict[str, Any]] = []
        self.last_round: Any = None  # tpb.TractorRoundResult of the previous round
        self._legal: tuple[list[Action], bool] | None = None
        self._start_deal()

    # ------------------------------------------------------------------ deal
    def _start_deal(self) -> None:
        """Shuffle and deal card 0 (2.1); round state reset."""
        deck = list(R.DECK)
        self.rng.shuffle(deck)
        self.dealing = deck
        self.dealt = 0
        self.first_drawer = 0 if self.round_number == 1 else self.starter
        self._rank = R.VALUE_RANK[self.levels[self.declarer_team if self.declarer_team is not None else 0]]
        self.hands: list[dict[str, int]] = [{}, {}, {}, {}]
        self._hand_enc: list[list | None] = [None] * 4  # see _hand_bytes
        self.hand_n = [0, 0, 0, 0]
        self.phase = _DECLARE
        self.declarations: list[tuple[int, tuple[str, ...], R.DeclKind, bool, int]] = []
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
        self.tricks: list[tuple] = []
        self.trick_leader = 0
        self.trick_plays: list[tuple[int, tuple[str, ...]]] = []
        self.trick_lead: R.Lead | None = None
        self.trick_failure: tuple | None = None
        self.defender_points = 0
        self.trick_points = 0
        self.penalty_points = 0
        self.played: list[str] = []
        # serialized TractorObservation holding only the first `_tricks_done`
        # finished tricks (a repeated field's encodings concatenate), filled
        # lazily by observation() so that no protobuf is built per trick on
        # the playout path and no trick is serialized twice
        self._tricks_bytes = b""
        self._tricks_done = 0
        self.emit(tpb.TractorEvent(deal_start=tpb.TractorDealStart(
            round_number=self.round_number, deal_number=self.deal_number, first_drawer=self.first_drawer,
            levels=[R.VALUE_RANK[x] for x in self.levels], trump_rank=self.trump_rank,
            declarer_team=-1 if self.declarer_team is None else self.declarer_team,
            starter=-1 if self.starter is None else self.starter)))
        self._deal_next()

    @property
    def trump_rank(self) -> str:
        """Rank char of this round's trump rank (1.4): the declarers' level
        when the round was dealt (2 in round 1, where both levels are 2)."""
        return self._rank

    def _deal_next(self) -> None:
        k = self.dealt
        seat = (self.first_drawer + k) % 4
        c = self.dealing[k]
        h = self.hands[seat]
        h[c] = h.get(c, 0) + 1
        self.hand_n[seat] += 1
        e = self._hand_enc[seat]
        if e is not None:  # keep the seat's hand encoding in step (see _hand_bytes)
            snap = e[1]
            snap[c] = snap.get(c, 0) + 1
            order = _PRE_TRUMP_ORDER if e[0] is None else e[0].order_of
            codes = e[2]
            i = bisect_right(codes, order[c], key=order.__getitem__)
            codes.insert(i, c)
            b = e[3]
            if b is not None:
                i *= _HAND_ENTRY_SIZE
                e[3] = b[:i] + _HAND_B[c] + b[i:]
        self.dealt = k + 1
        self._events.append(Event(None, seat, encoded=_card_dealt_event(k, seat, c), parse=_EV_FROM))
        self._to_act = seat

    def _standing(self) -> tuple[int, tuple[str, ...]] | None:
        if not self.declarations:
            return None
        d = self.declarations[-1]
        return d[0], d[1]

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

    def _decl_pb(self, d: tuple) -> Any:
        seat, cards, kind, reinf, dealt = d
        return tpb.TractorDeclaration(seat=seat, cards=cards, kind=kind.kind, strength=kind.strength,
                                      reinforcement=reinf, trump_suit=_suit_name(kind.trump_suit), cards_dealt=dealt)

    def _close_declarations(self) -> None:
        """Sections 2.5-2.6: fix the trump (or redeal), hand the kitty to the starter."""
        kitty = self.dealing[100:108]
        if self.declarations:
            d = self.declarations[-1]
            if self.round_number == 1:
                self.starter = d[0]
                self.declarer_team = d[0] % 2
            self.trump_suit = d[2].trump_suit
            self.emit(tpb.TractorEvent(declaration_closed=tpb.TractorDeclarationClosed(
                outcome="declared", standing=self._decl_pb(d), trump_suit=_suit_name(self.trump_suit),
                declarer_team=self.declarer_team, starter=self.starter)))
        else:
            if self.round_number == 1:
                if self.deal_number < self.params["max_round1_deals"]:
                    self.emit(tpb.TractorEvent(declaration_closed=tpb.TractorDeclarationClosed(
                        outcome="redeal", trump_suit="", declarer_team=-1, starter=-1)))
                    self.deal_number += 1
                    self._start_deal()
                    return
                # 2.6 safeguard: seat 0 starts, team 0 declares, then the kitty flip
                self.starter, self.declarer_team = 0, 0
            suit, n = R.kitty_flip(kitty, self.trump_rank)
            self.flipped = kitty[:n]
            self.trump_suit = suit
            self.emit(tpb.TractorEvent(kitty_flip=tpb.TractorKittyFlip(flipped=self.flipped, trump_suit=suit)))
            self.emit(tpb.TractorEvent(declaration_closed=tpb.TractorDeclarationClosed(
                outcome="kitty_flip", trump_suit=suit, declarer_team=self.declarer_team, starter=self.starter)))
        self.trump_fixed = True
        self.ctx = R.ctx_for(self.trump_suit, self.trump_rank, self._nrt)
        st = self.starter
        assert st is not None
        h = self.hands[st]
        for c in kitty:
            h[c] = h.get(c, 0) + 1
        self.hand_n[st] += 8
        self.kitty_taken = kitty
        self.phase = _BURY
        self.emit(tpb.TractorEvent(kitty_taken=tpb.TractorKittyTaken(seat=st)))
        self.emit(tpb.TractorEvent(kitty_taken=tpb.TractorKittyTaken(seat=st, cards=kitty)), to=st)
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

    def decision_kind(self) -> str:
        """``DECLARE`` (2.4 prompt), ``DISCARD`` (3, kitty exchange) or
        ``PLAY`` (6-8, lead or follow). ``RuntimeError`` once the match is over."""
        if self.phase == _DECLARE:
            return DECLARE
        if self.phase == _BURY:
            return DISCARD
        if self.phase == _PLAY:
            return PLAY
        raise RuntimeError("tractor: the match is over, no decision is pending")

    def legal_actions(self) -> tuple[list[Action], bool]:
        """``(actions, complete)`` for :attr:`to_act`; see the class docstring
        for the vocabulary and when a list is partial. Cached per state."""
        if self._legal is not None:
            return self._legal
        seat = self._to_act
        if seat is None:
            return [], True
        if self.phase == _DECLARE:
            acts = [_PASS] + _actions(DECLARE, _DECLARE_ACTIONS, R.legal_declarations(
                self._standing(), seat, self.hands[seat], self.trump_rank))
            res = (acts, True)
        elif self.phase == _BURY:
            ctx = self.ctx
            assert ctx is not None
            h = self.hands[seat]
            cands = [tuple(self.kitty_taken), R.lowest_cards(h, ctx, 8)]
            plain = {c: k for c, k in h.items() if not ctx.is_trump(c) and R.POINTS[c] == 0}
            if sum(plain.values()) >= 8:
                cands.append(R.lowest_cards(plain, ctx, 8))
            seen, acts = set(), []
            for cd in cands:
                s = tuple(sorted(cd))
                if s not in seen:
                    seen.add(s)
                    acts.append(Action(DISCARD, cd))
            res = (acts, False)
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
                    self._legal = res = (list(map(_SINGLE_PLAY.__getitem__, pool[:LIST_LIMIT])),
                                         len(pool) <= LIST_LIMIT)
                    return res
                plays, complete = R.legal_follows(lead, self.hands[seat], ctx, self._mft, LIST_LIMIT)
            res = (_actions(PLAY, _PLAY_ACTIONS, plays), complete)
        self._legal = res
        return res

    def fallback_action(self) -> Action:
        """Section 16: PASS at a declaration prompt; bury the 8 kitty cards
        just taken; lead the lowest single; follow by the section 16 rule."""
        seat = self._to_act
        if seat is None:
            raise RuntimeError("tractor: the match is over")
        if self.phase == _DECLARE:
            return _PASS
        if self.phase == _BURY:
            return Action(DISCARD, tuple(self.kitty_taken))
        ctx = self.ctx
        assert ctx is not None
        if not self.trick_plays:
            return Action(PLAY, R.fallback_lead(self.hands[seat], ctx))
        assert self.trick_lead is not None
        return Action(PLAY, R.fallback_follow(self.trick_lead, self.hands[seat], ctx, self._mft))

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
        if self._to_act is None:
            raise IllegalAction("TURN", "the match is over")
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
        err = R.follow_error(self.trick_lead, h, cards, ctx, self._mft)
        if err is not None:
            raise IllegalAction(*err)
        return None

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would."""
        self._plan(seat, action)

    # ----------------------------------------------------------------- apply
    def apply(self, seat: int, action: Action) -> None:
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
                self._events.append(Event(None, seat, encoded=_declare_pass_event(seat, self.dealt), parse=_EV_FROM))
                self._after_prompt(False)
            else:
                st = self._standing()
                reinf = st is not None and st[0] == seat
                d = (seat, cards, plan, reinf, self.dealt)
                self.declarations.append(d)
                self.emit(tpb.TractorEvent(declaration=self._decl_pb(d)))
                self._after_prompt(True)
        elif phase == _BURY:
            h = self.hands[seat]
            for c in cards:
                h[c] -= 1
                if not h[c]:
                    del h[c]
            self.hand_n[seat] -= 8
            self.kitty_buried = list(cards)
            self.buried = True
            self.emit(tpb.TractorEvent(kitty_buried=tpb.TractorKittyBuried(seat=seat)))
            self.emit(tpb.TractorEvent(kitty_buried=tpb.TractorKittyBuried(seat=seat, cards=cards)), to=seat)
            self.phase = _PLAY
            self._new_trick(seat)

    def _new_trick(self, leader: int) -> None:
        self.trick_leader = leader
        self.trick_plays = []
        self.trick_lead = None
        self.trick_failure = None
        self._to_act = leader

    def _remove(self, seat: int, cards: tuple[str, ...]) -> None:
        h = self.hands[seat]
        for c in cards:
            h[c] -= 1
            if not h[c]:
                del h[c]
        self.hand_n[seat] -= len(cards)
        self.played.extend(cards)
        e = self._hand_enc[seat]
        if e is not None:  # keep the seat's hand encoding in step (see _hand_bytes)
            snap, codes, b = e[1], e[2], e[3]
            try:
                for c in cards:
                    k = snap[c] - 1
                    if k:
                        snap[c] = k
                    else:
                        del snap[c]
                    i = codes.index(c)
                    del codes[i]
                    if b is not None:
                        i *= _HAND_ENTRY_SIZE
                        b = b[:i] + b[i + _HAND_ENTRY_SIZE:]
            except (KeyError, ValueError):  # the entry was already out of step: drop it
                self._hand_enc[seat] = None
            else:
                e[3] = b

    def _apply_play(self, seat: int, cards: tuple[str, ...], lead: R.Lead | None) -> None:
        ctx = self.ctx
        assert ctx is not None
        tno = len(self.tricks) + 1
        if lead is not None:
            forced = R.throw_check(lead, (self.hands[(seat + i) % 4] for i in (1, 2, 3)), ctx)
            if forced is not None:
                pen = R.throw_penalty(lead.n, forced.size, self._ntp)
                delta = pen if seat % 2 == self.declarer_team else -pen
                self.defender_points += delta
                self.penalty_points += delta
                self.trick_failure = (seat, cards, forced.cards, pen, delta)
                self.emit(tpb.TractorEvent(throw_failure=tpb.TractorThrowFailure(
                    seat=seat, attempted=cards, forced=forced.cards, penalty=pen, defender_points_delta=delta)))
                cards = forced.cards
                lead = R.analyze_lead(cards, ctx)
                assert lead is not None
            self.trick_lead = lead
            self._remove(seat, cards)
            self.trick_plays.append((seat, cards))
            self._events.append(Event(encoded=_played_event(tno, True, seat, cards, lead.type, lead.suit), parse=_EV_FROM))
        else:
            self._remove(seat, cards)
            self.trick_plays.append((seat, cards))
            self._events.append(Event(encoded=_played_event(tno, False, seat, cards, "", ""), parse=_EV_FROM))
        tp = self.trick_plays
        if len(tp) < 4:
            self._to_act = (seat + 1) % 4
            return
        tl = self.trick_lead
        assert tl is not None
        winner = tp[self._trick_winner_index(tp, tl, ctx)][0]
        POINTS = R.POINTS
        pts = 0
        for _, cs in tp:
            for c in cs:
                pts += POINTS[c]
        dwon = winner % 2 != self.declarer_team
        if dwon:
            self.defender_points += pts
            self.trick_points += pts
        self.tricks.append((tno, self.trick_leader, tp, tl.type, tl.suit, self.trick_failure, winner, pts))
        self._events.append(Event(encoded=_trick_end_event(tno, winner, pts, dwon, self.defender_points), parse=_EV_FROM))
        if self.hand_n[winner] == 0:
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
        mult = R.kitty_multiplier(last_lead.cards, self.ctx, self._power) if dwon else 0
        bonus = kpts * mult
        self.defender_points += bonus
        p = self.defender_points
        ch = R.level_change(p, D, st, self.levels, self.round_number, self.params["max_rounds"], self._mpa)
        self.levels = list(ch.new_levels)
        over = ch.winner is not None or ch.draw
        rr = tpb.TractorRoundResult(
            round_number=self.round_number, declarer_team=D, starter=st, trump_rank=self.trump_rank,
            trump_suit=_suit_name(self.trump_suit), kitty=self.kitty_buried, kitty_points=kpts,
            kitty_multiplier=mult, kitty_bonus=bonus, trick_points=self.trick_points,
            penalty_points=self.penalty_points, defender_points=p,
            team_up=-1 if ch.team_up is None else ch.team_up, levels_up=ch.levels_up,
            levels=[R.VALUE_RANK[x] for x in self.levels], next_declarer_team=ch.next_declarer_team,
            next_starter=ch.next_starter, match_over=over, winner_team=-1 if ch.winner is None else ch.winner,
            draw=ch.draw)
        self.history.append({"round": self.round_number, "declarer_team": D, "starter": st,
                             "trump_rank": self.trump_rank, "trump_suit": _suit_name(self.trump_suit),
                             "defender_points": p, "kitty_bonus": bonus, "team_up": ch.team_up,
                             "levels_up": ch.levels_up, "levels": [R.VALUE_RANK[x] for x in self.levels]})
        self.emit(tpb.TractorEvent(round_end=rr))
        self.last_round = rr
        self.declarer_team, self.starter = ch.next_declarer_team, ch.next_starter
        if over:
            self.winner, self.draw, self.passed_ace = ch.winner, ch.draw, ch.passed_ace
            self.phase = _OVER
            self._to_act = None
            self.emit(tpb.TractorEvent(match_end=tpb.TractorMatchEnd(
                winner_team=-1 if ch.winner is None else ch.winner, draw=ch.draw, passed_ace=ch.passed_ace,
                levels=[R.VALUE_RANK[x] for x in self.levels], rounds_played=self.round_number)))
            return
        self.round_number += 1
        self.deal_number = 1
        self._start_deal()

    # ----------------------------------------------------------- observation
    def _sorted_hand(self, seat: int) -> list[str]:
        cards = R.expand(self.hands[seat])
        ctx = self.ctx
        if ctx is None:
            cards.sort(key=_PRE_TRUMP_KEY.__getitem__)
        else:
            cards.sort(key=ctx.order_of.__getitem__)
        return cards

    def _trick_pb(self, number: int, leader: int, plays: list, lead_type: str, lead_suit: str, failure: tuple | None,
                  winner: int, points: int) -> Any:
        t = tpb.TractorTrick(number=number, leader=leader, lead_type=lead_type, lead_suit=lead_suit, winner=winner,
                             points=points, plays=[tpb.TractorPlay(seat=s, cards=cs) for s, cs in plays])
        if failure is not None:
            fs, att, forced, pen, delta = failure
            t.throw_failure.CopyFrom(tpb.TractorThrowFailure(seat=fs, attempted=att, forced=forced, penalty=pen,
                                                             defender_points_delta=delta))
        return t

    def current_winner(self) -> int:
        """Seat winning the trick in progress so far (public plays only), -1 before the lead."""
        if not self.trick_plays or self.ctx is None or self.trick_lead is None:
            return -1
        w = R.trick_winner(self.trick_lead, [p[1] for p in self.trick_plays[1:]], self.ctx)
        return self.trick_plays[w][0]

    def _trick_winner_index(self, tp: list, tl: R.Lead, ctx: R.Ctx) -> int:
        """``rules.trick_winner(tl, follows of tp, ctx)``, continuing the running
        fold of the observation's trick cache (``_cur_cache``, see
        :meth:`_current_trick_bytes`) when it is for this very trick."""
        c = self.__dict__.get("_cur_cache")
        if (c is None or c[0] is not tp or c[1] is not tl or c[2] is not self.trick_failure
                or c[3] != len(self.tricks) or c[4] != self.trick_leader or c[5] is not ctx or c[6] > len(tp)):
            return R.trick_winner(tl, [p[1] for p in tp[1:]], ctx)
        best, win = c[9], c[10]
        for i in range(max(c[6], 1), len(tp)):
            st = R.play_strength(tl, tp[i][1], ctx)
            if st is not None and st > best:
                best, win = st, i
        return win

    def observation(self, seat: int) -> Any:
        """The :class:`TractorObservation` of ``seat`` (spec 12): its hand,
        the kitty cards it alone saw (starter), and the public state.

        Parsed once from the concatenation of encoded parts, each cached on
        what it depends on: the per-deal public part (:meth:`_static_bytes`),
        the finished tricks, the declarations, the phase fields, the trick in
        progress and the seat's sorted hand; only the per-decision counters
        (cards dealt, hand sizes, defender points) are encoded every call."""
        return _OBS_FROM(self.observation_bytes(seat))

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation` encoded (the bytes it parses)."""
        phase = self.phase
        over = phase == _OVER
        fixed = self.trump_fixed
        hn = self.hand_n
        if over:
            sizes = _HAND_SIZES_ZERO
        elif max(hn) < 128:
            sizes = _HAND_SIZES_KEY + bytes(hn)  # four one-byte varints
        else:
            sizes = W.len_field(19, b"".join(map(W.varint, hn)))
        dp = self.defender_points
        dpb = _DP_B.get(dp)
        if dpb is None:
            dpb = W.int_field(22, dp)
            if len(_DP_B) < 4096:
                _DP_B[dp] = dpb
        dealt = self.dealt
        parts = [self._public_bytes(),
                 _DEALT_B[dealt] if 0 <= dealt < len(_DEALT_B) else W.int_field(11, dealt),
                 sizes, dpb, self._hand_bytes(seat), _SEAT_B[seat]]
        if seat == self.starter and fixed and not over:
            kb = _KITTY_TAKEN_B
            parts += [kb[c] for c in self.kitty_taken]
            if self.buried:
                kb = _KITTY_BURIED_B
                parts += [kb[c] for c in self.kitty_buried]
        if phase == _PLAY:
            parts.append(self._current_trick_bytes())
        return b"".join(parts)

    def _public_bytes(self) -> bytes:
        """Encoded public fields that change a few times per deal at most: the
        per-deal part (:meth:`_static_bytes`), the finished tricks, the phase
        fields (:meth:`_phase_bytes`) and the declarations. Cached on one key
        of everything they are built from (lists by identity and length: the
        engine only appends to them, and replaces them per deal)."""
        lv = self.levels
        key = (self.round_number, self.deal_number, lv[0], lv[1], self._rank, self.declarer_team, self.starter,
               self.first_drawer, self.last_round, self.phase, self.window, self.trump_fixed, self.trump_suit,
               self.flipped, len(self.flipped), self.tricks, len(self.tricks), self.declarations,
               len(self.declarations))
        c = self.__dict__.get("_public_cache")
        if c is not None and c[0] == key:
            return c[1]
        if self._tricks_done < len(self.tricks):
            self._tricks_bytes += b"".join([
                W.len_field(20, _trick_body(tno, leader, b"".join([_play_entry(s, cs) for s, cs in plays]),
                                            lead_type, lead_suit, failure, winner, points))
                for tno, leader, plays, lead_type, lead_suit, failure, winner, points
                in self.tricks[self._tricks_done:]])
            self._tricks_done = len(self.tricks)
        b = self._static_bytes() + self._tricks_bytes + self._phase_bytes(self.phase, self.trump_fixed)
        if self.declarations:
            b += self._decl_bytes()
        self._public_cache = (key, b)
        return b

    def _phase_bytes(self, phase: str, fixed: bool) -> bytes:
        """Encoded ``phase``, ``final_window``, ``declaration_closed``,
        ``trump_suit`` and ``kitty_flipped`` (they change a few times per
        deal): memoised module-wide on their values."""
        fw = self.window and not fixed
        ts = _suit_name(self.trump_suit) if fixed else ""
        k = (phase, fw, fixed, ts, tuple(self.flipped))
        b = _PHASE_MEMO.get(k)
        if b is None:
            b = tpb.TractorObservation(phase=phase, final_window=fw, declaration_closed=fixed, trump_suit=ts,
                                       kitty_flipped=k[4]).SerializeToString()
            if len(_PHASE_MEMO) < 4096:
                _PHASE_MEMO[k] = b
        return b

    def _hand_bytes(self, seat: int) -> bytes:
        """Encoded ``hand`` of ``seat``, in :meth:`_sorted_hand` order.

        ``_hand_enc[seat]`` is ``[ctx, snapshot, codes, encoding or None]``:
        the trump context and a copy of the hand multiset it was built for,
        the hand's codes in display order, and their encoding. Dealing a card
        and playing cards update the entry in step with the hand
        (:meth:`_deal_next`, :meth:`_remove`: a card's entry goes in or out at
        its index in ``codes``, entries having a fixed size), so the seat to
        act, whose hand has just changed, does not sort or encode again. The entry is used only while
        its context is the current one and its snapshot equals the hand (a
        C-level ``dict`` comparison), else rebuilt: it can never be stale."""
        h = self.hands[seat]
        ctx = self.ctx
        e = self._hand_enc[seat]
        if e is not None and e[0] is ctx and e[1] == h:
            b = e[3]
            if b is None:
                b = e[3] = b"".join(map(_HAND_B.__getitem__, e[2]))
            return b
        order = _PRE_TRUMP_ORDER if ctx is None else ctx.order_of
        codes = R.expand(h)
        codes.sort(key=order.__getitem__)
        b = b"".join(map(_HAND_B.__getitem__, codes))
        self._hand_enc[seat] = [ctx, dict(h), codes, b]
        return b

    def _static_bytes(self) -> bytes:
        """Encoded fields fixed for a deal or longer: round, deal, levels, trump
        rank, declarer team, starter, first drawer, rule flags, match limits and
        the last round's summary."""
        key = (self.round_number, self.deal_number, self.levels[0], self.levels[1], self._rank,
               self.declarer_team, self.starter, self.first_drawer)
        lr = self.last_round
        c = self.__dict__.get("_static_cache")
        if c is not None and c[0] == key and c[1] is lr:
            return c[2]
        o = tpb.TractorObservation(
            round_number=self.round_number, deal_number=self.deal_number,
            levels=[R.VALUE_RANK[x] for x in self.levels], trump_rank=self.trump_rank,
            declarer_team=-1 if self.declarer_team is None else self.declarer_team,
            starter=-1 if self.starter is None else self.starter, first_drawer=self.first_drawer,
            notrump_rank_cards_trump=self._nrt, must_follow_tractor=self._mft, kitty_multiplier_power=self._power,
            must_play_ace=self._mpa, no_throw_penalty=self._ntp, max_rounds=self.params["max_rounds"],
            max_round1_deals=self.params["max_round1_deals"])
        if lr is not None:
            o.last_round.CopyFrom(lr)
        b = o.SerializeToString()
        self._static_cache = (key, lr, b)
        return b

    def _decl_bytes(self) -> bytes:
        """Encoded ``declarations`` (the list is appended to, replaced per deal)."""
        ds = self.declarations
        c = self.__dict__.get("_decl_cache")
        if c is not None and c[0] is ds and c[1] == len(ds):
            return c[2]
        b = tpb.TractorObservation(declarations=[self._decl_pb(d) for d in ds]).SerializeToString()
        self._decl_cache = (ds, len(ds), b)
        return b

    def _current_trick_bytes(self) -> bytes:
        """Encoded ``current_trick`` (play phase).

        A trick in progress only grows (plays are appended to ``trick_plays``;
        a new trick is a new list), so ``_cur_cache`` holds, for one plays
        list, lead, throw failure, trick number, leader and trump context:
        how many plays it has taken in, their encoded ``plays`` entries, the
        points so far, the running best strength and winning index (the fold
        of :func:`rules.trick_winner`), the encoded fields fixed for the trick
        (number and leader; lead type, suit and throw failure) and the
        encoding. A call that finds more plays extends it, any other change of
        those keys rebuilds it."""
        tp = self.trick_plays
        lt = self.trick_lead
        fail = self.trick_failure
        n = len(self.tricks)
        leader = self.trick_leader
        ctx = self.ctx
        c = self.__dict__.get("_cur_cache")
        if (c is None or c[0] is not tp or c[1] is not lt or c[2] is not fail or c[3] != n or c[4] != leader
                or c[5] is not ctx or c[6] > len(tp)):
            best = None if lt is None else (2 if lt.suit == R.TRUMP else 1, lt.top)
            # the trick's fixed fields, in TractorTrick order around the plays (3): number (1),
            # leader (2) before; lead type (4), lead suit (5), throw failure (6) after
            tail = _trick_body(0, 0, b"", "", "", fail, 0, 0) if lt is None else \
                _trick_body(0, 0, b"", lt.type, lt.suit, fail, 0, 0)
            # [plays, lead, failure, trick count, leader, ctx, plays taken in, plays bytes, points,
            #  best strength, winning index, encoding or None, number+leader bytes, lead+failure bytes]
            c = self._cur_cache = [tp, lt, fail, n, leader, ctx, 0, b"", 0, best, 0, None,
                                   _trick_head(n + 1, leader), tail]
        k = c[6]
        if k < len(tp):
            POINTS = R.POINTS
            pb, pts, best, win = c[7], c[8], c[9], c[10]
            for i in range(k, len(tp)):
                seat, cards = tp[i]
                pb += _PLAY_ENTRY.get((seat, cards)) or _play_entry(seat, cards)
                for x in cards:
                    pts += POINTS[x]
                if i and lt is not None and ctx is not None:
                    st = R.play_strength(lt, cards, ctx)
                    if st is not None and st > best:
                        best, win = st, i
            c[6], c[7], c[8], c[9], c[10], c[11] = len(tp), pb, pts, best, win, None
        b = c[11]
        if b is None:
            w = -1 if not tp or ctx is None or lt is None else tp[c[10]][0]
            pts = c[8]
            body = b"".join((c[12], c[7], c[13], _WINNER_B.get(w) or W.int_field(7, w),
                             _POINTS_B[pts] if 0 <= pts < 256 else W.int_field(8, pts)))
            k = len(body)
            b = c[11] = _CUR_KEY + (W.SMALL[k] if k < 128 else W.varint(k)) + body
        return b

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
                   "passed_ace": self.passed_ace, "rounds_played": self.round_number, "rounds": self.history}
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
            g.hands[st] = R.counts_of(base + kit)
        elif g.phase == _PLAY and "kitty" in zones:
            g.kitty_buried = list(zones["kitty"])
        for q in range(4):
            key = f"hand{q}"
            if key in zones and not (g.phase == _BURY and q == g.starter):
                g.hands[q] = R.counts_of(zones[key])
        return g
