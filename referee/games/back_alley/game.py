"""The Back Alley match engine (shared/rules/back_alley.md)."""

from __future__ import annotations

import copy
import random
from typing import Any

from cardgames.v1 import back_alley_pb2 as bpb
from referee.cards import ALL_CODES
from referee.engine import (BID, PASS, PLAY, Action, Game, LegacyGame, IllegalAction, MatchResult, RatingOutcome,
                            ranks_from_scores)

from .. import _wire as W
from . import rules as R

_BIDDING, _PLAY, _OVER = 0, 1, 2
_PHASE_PB = {_BIDDING: bpb.BACK_ALLEY_PHASE_BIDDING, _PLAY: bpb.BACK_ALLEY_PHASE_PLAY,
             _OVER: bpb.BACK_ALLEY_PHASE_OVER}

#: shared immutable Action objects (hot path: no allocation per legal list)
_PLAY_ACTION: dict[str, Action] = {c: Action(PLAY, (c,), 0) for c in R.DECK}
_PASS_ACTION = Action(PASS, (), 0)
_BID_ACTION: dict[int, Action] = {n: Action(BID, (), n) for n in range(1, 14)}

_CANON = R.CANON
_Ev = bpb.BackAlleyEvent
_Play = bpb.BackAlleyPlay
_OBS_FROM = bpb.BackAlleyObservation.FromString

# encoded BackAlleyObservation pieces (field numbers in back_alley.proto), see referee/games/_wire.py
_HAND_B = W.repeated_str_entries(13, ALL_CODES)
_PHASE_B = {ph: W.int_field(2, v) for ph, v in _PHASE_PB.items()}
_HAND_COUNTS_KEY = W.key(14, 2) + bytes((4,))  # packed, four values
_TO_ACT_NONE = W.int_field(22, -1)
_WINNER_NONE = W.int_field(4, -1)  # BackAlleyTrick.winner of the trick in progress
_PLAY_ENTRY: dict[tuple[int, str, int, int], bytes] = {}


def _play_entry(seat: int, card: str, trick_number: int, position: int) -> bytes:
    """One encoded ``BackAlleyTrick.plays`` entry (memoised: a few thousand at most)."""
    k = (seat, card, trick_number, position)
    b = _PLAY_ENTRY.get(k)
    if b is None:
        b = _PLAY_ENTRY[k] = W.len_field(3, _Play(seat=seat, card=card, trick_number=trick_number,
                                                   position=position).SerializeToString())
    return b


def _bid_pb(seat: int, bid: int, h: int, level: int) -> bpb.BackAlleyBid:
    if bid == R.PASS:
        return bpb.BackAlleyBid(seat=seat, kind=bpb.BACK_ALLEY_BID_KIND_PASS, tricks=0)
    if bid == R.BOARD:
        return bpb.BackAlleyBid(seat=seat, kind=bpb.BACK_ALLEY_BID_KIND_BOARD, tricks=h, board_level=level)
    return bpb.BackAlleyBid(seat=seat, kind=bpb.BACK_ALLEY_BID_KIND_NUMBER, tricks=bid)


def _contracts_pb(cs: list[tuple[int, int]] | None, h: int) -> list[bpb.BackAlleyContract]:
    if cs is None:
        return []
    return [bpb.BackAlleyContract(team=t, board=m > 0, board_level=m, tricks=h if m else b)
            for t, (m, b) in enumerate(cs)]


class BackAlley(LegacyGame):  # TRANSITIONAL (issue #20): not converted to the engine contract yet
    """One Back Alley match: 4 seats in two partnerships, 25 counted rounds.

    Implements shared/rules/back_alley.md (ruleset ``back_alley/1``): deal
    and trump flip with the joker exchange (section 2), one bid per seat
    (section 4, pass-outs and the four-pass-out safeguard of 4.5), trick
    play with the lead and Blooper rules (section 5), trick winner (6),
    scoring (7), match end (8), visibility (9), variant flags (10) and
    fallback actions (13).

    **Decisions and action vocabulary** (every legal list is complete,
    ``legal_actions()`` always returns ``complete=True``):

    * decision ``BID`` (bidding, section 4): ``Action(PASS)`` = "pass";
      ``Action(BID, amount=n)`` with ``1 <= n <= h-1`` = a number bid of
      ``n`` tricks; ``Action(BID, amount=h)`` = "board" (all ``h`` tricks;
      its level comes from its position, section 4.3). ``cards`` is empty.
      The legal list is ordered pass, 1..h-1, board.
    * decision ``PLAY`` (trick play, section 5): ``Action(PLAY, cards=(c,))``
      plays card ``c``. The legal list follows the seat's sorted hand.

    The joker exchange (2.4) is automatic, so there is no DECLARE, DISCARD or
    EXCHANGE decision.

    **Match parameters** (``param_defaults``): ``first_dealer`` (``None`` =
    uniformly random seat, section 2.1; or a seat 0..3), ``first_round`` and
    ``last_round`` (default 1 and 25): the range of round indices the match
    plays. The spec's match is 1..25; a shorter range (e.g. 12..14 for hand
    sizes 2, 1, 2) is an engine extension for quick tests.

    **Rule labels** of :class:`IllegalAction`: ``"TURN"`` (out of turn),
    ``"8"`` (match over), ``"4.2"`` (not a legal bid), ``"10"`` (dealer may
    not pass under ``dealer_must_bid``), ``"5.1"`` (not one card played in
    the play phase), ``"5.5"`` (malformed code or card not in hand),
    ``"5.3.3"``/``"5.3.4"`` (trump lead bans), ``"5.4.1"``/``"5.4.2"``
    (Blooper leads), ``"5.4.3"`` (must follow suit).

    Randomness: ``self.rng`` draws the first dealer (when not fixed) and one
    ``shuffle`` of the 54 cards per deal, nothing else.
    """

    name = "back_alley"
    player_counts = (4,)
    ruleset = "back_alley/1"
    variant_defaults = {
        "board_may_lead_trump_first_trick": False,
        "zero_bid_scores_nothing": False,
        "dealer_must_bid": False,
    }
    param_defaults = {
        "first_dealer": None,
        "first_round": 1,
        "last_round": R.ROUNDS,
    }

    @classmethod
    def teams(cls, players: int) -> tuple[tuple[int, ...], ...]:
        """Two fixed partnerships: seats 0 and 2 against seats 1 and 3."""
        return ((0, 2), (1, 3))

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        """Start the match and deal its first round.

        Raises ``ValueError`` for a player count other than 4, an unknown
        flag or parameter, ``first_dealer`` not ``None`` or 0..3, or a round
        range outside ``1 <= first_round <= last_round <= 25``.
        """
        super().__init__(players, variant, params, rng)
        fd = self.params["first_dealer"]
        if fd is not None and (type(fd) is not int or not 0 <= fd <= 3):
            raise ValueError(f"back_alley: match parameter 'first_dealer' must be null or a seat 0..3, got {fd!r}")
        fr, lr = self.params["first_round"], self.params["last_round"]
        if not 1 <= fr <= lr <= R.ROUNDS:
            raise ValueError(f"back_alley: need 1 <= first_round <= last_round <= 25, got {fr}..{lr}")
        self._board_first = bool(self.variant["board_may_lead_trump_first_trick"])
        self._zero_nothing = bool(self.variant["zero_bid_scores_nothing"])
        self._dealer_must_bid = bool(self.variant["dealer_must_bid"])
        self._last_round = lr
        self.totals = [0, 0]
        self.history: list[dict[str, Any]] = []
        self.dealer = fd if fd is not None else self.rng.randrange(4)
        self.k = fr
        self.passouts = 0
        self._start_round()

    # ------------------------------------------------------------------
    # round set-up (sections 2, 4.1)

    def _start_round(self) -> None:
        self.h = h = R.hand_size(self.k)
        deck = list(R.DECK)
        self.rng.shuffle(deck)
        hands, stock = R.deal(deck, self.dealer, h)
        self.upcard = stock[0]
        trump, exch = R.trump_flip(hands, stock)
        self.trump = trump
        emit = self.emit
        emit(_Ev(deal=bpb.BackAlleyDeal(round_index=self.k, hand_size=h, dealer=self.dealer,
                                        passed_out_in_row=self.passouts, upcard=self.upcard,
                                        trump=trump or "")))
        for s in range(4):
            hands[s].sort(key=_CANON.__getitem__)
            emit(_Ev(hand=bpb.BackAlleyHand(seat=s, cards=hands[s])), to=s)
        if exch is not None:
            seat, joker, drawn = exch
            hands[seat].remove(joker)
            hands[seat].append(drawn)
            hands[seat].sort(key=_CANON.__getitem__)
            self.exchange_seat, self.laid_out = seat, joker
            self.stock = stock[2:]
            emit(_Ev(exchange=bpb.BackAlleyJokerExchange(seat=seat, joker=joker)))
            emit(_Ev(draw=bpb.BackAlleyDraw(seat=seat, card=drawn)), to=seat)
        else:
            self.exchange_seat, self.laid_out = -1, ""
            self.stock = stock[1:]
        self.hands = hands
        self.phase = _BIDDING
        self.bids: list[int] = []
        self.levels: list[int] = []
        self.contracts: list[tuple[int, int]] | None = None
        self.team_board = [False, False]
        self.leader = -1
        self.trick: list[str] = []
        self.trick_leader = -1
        self.trick_no = 0
        self.done: list[tuple[int, tuple[str, ...], int]] = []  # (leader, cards, winner)
        self.team_tricks = [0, 0]
        self.broken = False
        self._to_act: int | None = (self.dealer + 1) & 3
        self._legal: tuple[list[Action], bool] | None = None
        # observation caches: the per-round public part (scalars, bids,
        # contracts; rebuilt after each bid and at round end) and the
        # completed tricks (one encoded field appended per finished trick)
        self._round_bytes: bytes | None = None
        self._done_bytes = b""

    # ------------------------------------------------------------------
    # the turn

    def deck(self) -> tuple[str, ...]:
        """The pack (spec 2)."""
        return tuple(R.DECK)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """``upcard``, ``hand<j>`` per seat, ``stock``, ``laid_out`` (the joker), ``done`` (tricks), ``trick``."""
        zones = {"upcard": (self.upcard,), "stock": tuple(self.stock), "trick": tuple(self.trick),
                 "laid_out": (self.laid_out,) if self.laid_out else (),
                 "done": tuple(c for _, cards, _ in self.done for c in cards)}
        for j, h in enumerate(self.hands):
            zones[f"hand{j}"] = tuple(h)
        return zones

    @property
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` once the match is over."""
        return self._to_act

    def decision_kind(self) -> str:
        """``"BID"`` during bidding, ``"PLAY"`` during trick play; ``RuntimeError`` after the match."""
        if self.phase == _BIDDING:
            return BID
        if self.phase == _PLAY:
            return PLAY
        raise RuntimeError("back_alley: the match is over; no decision is pending")

    def _legal_cards(self) -> list[str]:
        seat = self._to_act
        return R.legal_set(self.hands[seat], self.trick, self.trump, self.broken, self.trick_no == 1,
                           self.team_board[seat & 1], self._board_first)

    def legal_actions(self) -> tuple[list[Action], bool]:
        """All legal actions of :attr:`to_act` (always complete; ``([], True)`` after the match).

        Bidding: pass (unless ``dealer_must_bid`` forbids it), ``BID`` 1..h-1,
        ``BID h`` (= board). Play: one ``PLAY`` per card of ``LegalSet`` (5.5).
        Cached per state (the cache is dropped by every applied action); the
        list returned is shared, callers must not modify it.
        """
        res = self._legal
        if res is not None:
            return res
        if self.phase == _PLAY:
            res = [_PLAY_ACTION[c] for c in self._legal_cards()], True
        elif self.phase == _BIDDING:
            h = self.h
            res = [_PASS_ACTION if b == R.PASS else _BID_ACTION[h if b == R.BOARD else b]
                   for b in R.legal_bids(h, self.bids, self._dealer_must_bid)], True
        else:
            res = [], True
        self._legal = res
        return res

    def _parse(self, seat: int, action: Action) -> Any:
        """Validate ``action`` by ``seat`` without changing state; return the internal move."""
        if self._to_act is None:
            raise IllegalAction("8", "the match is over")
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        if self.phase == _BIDDING:
            h = self.h
            if kind != PASS and kind != BID:
                raise IllegalAction("4.2", f"bidding is in progress: expected PASS or BID, not {kind}")
            if action.cards:
                raise IllegalAction("4.2", "a bid carries no cards")
            if kind == PASS:
                if action.amount != 0:
                    raise IllegalAction("4.2", "a pass carries no amount (amount must be 0)")
                bid: int | None = R.PASS
            else:
                a = action.amount
                if a == h:
                    bid = R.BOARD
                elif a == 0:
                    raise IllegalAction("4.2", "zero tricks is bid as PASS, not BID 0")
                else:
                    bid = a if a >= 1 else None
            p = R.bid_problem(h, bid, self.bids, self._dealer_must_bid)
            if p is not None:
                raise IllegalAction(p[0], p[1] + f" (BID {h} = board)")
            return bid
        # play phase
        if kind != PLAY:
            raise IllegalAction("5.1", f"trick play is in progress: expected PLAY of one card, not {kind}")
        if len(action.cards) != 1:
            raise IllegalAction("5.1", f"play exactly one card, not {len(action.cards)}")
        if action.amount:
            raise IllegalAction("5.1", "a play carries no amount (amount must be 0)")
        card = action.cards[0]
        if card not in ALL_CODES:
            raise IllegalAction("5.5", f"malformed card code {card!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction("5.5", f"{card} is not in your hand ({' '.join(hand)})")
        legal, rule, why = R.legal_set_rule(hand, self.trick, self.trump, self.broken, self.trick_no == 1,
                                            self.team_board[seat & 1], self._board_first)
        if card not in legal:
            raise IllegalAction(rule, f"{card} may not be played: {why}")
        return card

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would reject ``action``."""
        self._parse(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat`` (see the class docstring for the vocabulary).

        Raises :class:`IllegalAction` (state unchanged) for an out-of-turn
        action (rule ``"TURN"``) or one the rules forbid.
        """
        move = self._parse(seat, action)
        self._legal = None
        if self.phase == _BIDDING:
            self._bid(seat, move)
        else:
            self._play(seat, move)

    # ------------------------------------------------------------------
    # bidding (section 4)

    def _bid(self, seat: int, bid: int) -> None:
        bids = self.bids
        bids.append(bid)
        self._round_bytes = None
        self.levels = R.board_levels(bids)
        level = self.levels[-1]
        self.emit(_Ev(bid=_bid_pb(seat, bid, self.h, level)))
        if len(bids) < 4:
            self._to_act = (seat + 1) & 3
            return
        cs = R.contracts(self.dealer, bids)
        if cs is None:  # passed out (4.5)
            self.passouts += 1
            self.emit(_Ev(bidding_end=bpb.BackAlleyBiddingEnd(passed_out=True, opening_leader=-1)))
            closed = self.passouts >= R.MAX_PASSOUTS
            self._end_round(passed_out=True, closed=closed, points=[0, 0])
            return
        self.contracts = cs
        self.team_board = [cs[0][0] > 0, cs[1][0] > 0]
        lead = R.opening_leader(self.dealer, bids)
        self.leader = lead
        self.emit(_Ev(bidding_end=bpb.BackAlleyBiddingEnd(passed_out=False, contracts=_contracts_pb(cs, self.h),
                                                          opening_leader=lead)))
        self.phase = _PLAY
        self.trick_no = 1
        self.trick_leader = lead
        self._to_act = lead

    # ------------------------------------------------------------------
    # play (sections 5, 6)

    def _play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(card)
        self.emit(_Ev(play=bpb.BackAlleyPlay(seat=seat, card=card, trick_number=self.trick_no,
                                             position=len(trick) - 1)))
        if len(trick) < 4:
            self._to_act = (seat + 1) & 3
            return
        trump = self.trump
        winner, wi = R.trick_winner(trump, self.trick_leader, trick)
        self.team_tricks[winner & 1] += 1
        if not self.broken and R.contains_trump(trump, trick):
            self.broken = True
        self.done.append((self.trick_leader, tuple(trick), winner))
        self._done_bytes += self._trick_bytes(len(self.done), self.trick_leader, trick, winner)
        self.emit(_Ev(trick_end=bpb.BackAlleyTrickEnd(trick_number=self.trick_no, winner=winner,
                                                      winning_card=trick[wi], team_tricks=self.team_tricks,
                                                      trumps_broken=self.broken)))
        self.trick = []
        if self.trick_no == self.h:
            pts = R.round_scores(self.dealer, self.h, self.bids, self.team_tricks, self._zero_nothing)
            self._end_round(passed_out=False, closed=True, points=pts)
            return
        self.trick_no += 1
        self.trick_leader = winner
        self._to_act = winner

    # ------------------------------------------------------------------
    # round and match end (sections 4.5, 7, 8)

    def _end_round(self, passed_out: bool, closed: bool, points: list[int]) -> None:
        self._round_bytes = None
        self.totals[0] += points[0]
        self.totals[1] += points[1]
        self.emit(_Ev(round_end=bpb.BackAlleyRoundEnd(
            round_index=self.k, hand_size=self.h, dealer=self.dealer, passed_out=passed_out,
            passed_out_in_row=self.passouts, index_complete=closed, team_tricks=self.team_tricks,
            points=points, totals=self.totals, contracts=_contracts_pb(self.contracts, self.h))))
        self.history.append({
            "round_index": self.k, "hand_size": self.h, "dealer": self.dealer,
            "upcard": self.upcard, "trump": self.trump,
            "bids": [R.bid_to_json(b) for b in self.bids], "passed_out": passed_out,
            "index_complete": closed, "team_tricks": list(self.team_tricks), "points": list(points),
        })
        self.dealer = (self.dealer + 1) & 3  # after every round, pass-outs included (2.1)
        if closed:
            self.k += 1
            self.passouts = 0
        if self.k > self._last_round:
            self.phase = _OVER
            self._to_act = None
            w = R.match_winner(self.totals)
            self.emit(_Ev(match_end=bpb.BackAlleyMatchEnd(totals=self.totals, winner_team=-1 if w is None else w)))
            return
        self._start_round()

    def fallback_action(self) -> Action:
        """Section 13: bid pass (or 1 / board under ``dealer_must_bid``); play the lowest legal card.

        Raises ``RuntimeError`` after the match.
        """
        seat = self._to_act
        if seat is None:
            raise RuntimeError("back_alley: the match is over")
        if self.phase == _BIDDING:
            b = R.fallback_bid(self.h, self.bids, self._dealer_must_bid)
            if b == R.PASS:
                return _PASS_ACTION
            return _BID_ACTION[self.h if b == R.BOARD else b]
        return _PLAY_ACTION[R.fallback_play(self.hands[seat], self.trick, self.trump, self.broken,
                                            self.trick_no == 1, self.team_board[seat & 1], self._board_first)]

    # ------------------------------------------------------------------
    # what a seat sees (section 9)

    def observation(self, seat: int) -> bpb.BackAlleyObservation:
        """``BackAlleyObservation`` for ``seat``: its own hand plus the public state of section 9
        (parsed from :meth:`observation_bytes`)."""
        return _OBS_FROM(self.observation_bytes(seat))

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation` encoded: the cached encoding of the per-round
        public part (:meth:`_build_round_bytes`) and of the completed tricks,
        then the per-decision fields, each from a per-value table."""
        rb = self._round_bytes
        if rb is None:
            rb = self._round_bytes = self._build_round_bytes()
        hands = self.hands
        try:
            hand = b"".join(map(_HAND_B.__getitem__, hands[seat]))
        except KeyError:  # not a card code: let protobuf encode (or reject) it
            hand = bpb.BackAlleyObservation(hand=hands[seat]).SerializeToString()
        to_act = self._to_act
        tt = self.team_tricks
        parts = [rb, self._done_bytes, W.int_field(1, seat), _PHASE_B[self.phase], hand,
                 _HAND_COUNTS_KEY, bytes(map(len, hands)),  # four one-byte varints: a hand holds < 128 cards
                 W.packed_small_uints(20, tt), W.int_field(21, self.broken),
                 _TO_ACT_NONE if to_act is None else W.int_field(22, to_act)]
        if self.phase == _PLAY:
            tl, tn = self.trick_leader, self.trick_no
            head = W.int_field(1, tn) + W.int_field(2, tl) + _WINNER_NONE
            plays = [_play_entry((tl + i) & 3, c, tn, i) for i, c in enumerate(self.trick)]
            parts.append(W.len_field(19, head + b"".join(plays)))
        return b"".join(parts)

    def _build_round_bytes(self) -> bytes:
        """Encoded observation fields that change only with a bid or at a round
        boundary: round scalars, totals, upcard/trump/exchange, bids, contracts
        and the opening leader."""
        h = self.h
        dealer = self._obs_dealer()
        levels = self.levels
        return bpb.BackAlleyObservation(
            round_index=self.k if self.phase != _OVER else self._last_round,
            hand_size=h, last_round=self._last_round, dealer=dealer, passed_out_in_row=self.passouts,
            totals=self.totals, upcard=self.upcard, trump=self.trump or "", exchange_seat=self.exchange_seat,
            laid_out_joker=self.laid_out,
            bids=[_bid_pb(R.bid_seat(dealer, i), b, h, levels[i]) for i, b in enumerate(self.bids)],
            contracts=_contracts_pb(self.contracts, h), opening_leader=self.leader).SerializeToString()

    @staticmethod
    def _trick_bytes(n: int, lead: int, cards: list[str], win: int) -> bytes:
        """One encoded ``completed_tricks`` entry (trick number ``n``)."""
        return bpb.BackAlleyObservation(completed_tricks=[bpb.BackAlleyTrick(
            number=n, leader=lead, winner=win,
            plays=[_Play(seat=(lead + i) & 3, card=c, trick_number=n, position=i) for i, c in enumerate(cards)])
        ]).SerializeToString()

    def _obs_dealer(self) -> int:
        # after the match, self.dealer has already moved on; show the last round's dealer
        return self.dealer if self.phase != _OVER else (self.dealer - 1) & 3

    # ------------------------------------------------------------------
    # the end (section 8)

    def result(self) -> MatchResult:
        """Final result: each seat scores its team's total (points, section 7);
        ranks 1 = best (a draw ties); one TrueSkill outcome teams [[0, 2], [1, 3]].

        Raises ``RuntimeError`` before the match is over.
        """
        if self._to_act is not None:
            raise RuntimeError("back_alley: the match is not over")
        t0, t1 = self.totals
        scores = [float(t0), float(t1), float(t0), float(t1)]
        w = R.match_winner(self.totals)
        team_ranks = [0, 0] if w is None else ([0, 1] if w == 0 else [1, 0])
        return MatchResult(scores=scores, ranks=ranks_from_scores(scores),
                           outcomes=[RatingOutcome(teams=[[0, 2], [1, 3]], ranks=team_ranks)],
                           summary={"totals": list(self.totals), "winner_team": w,
                                    "rounds": copy.deepcopy(self.history)})

    # ------------------------------------------------------------------
    # hidden information (leak tests)

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Places ``seat`` may not see now: ``"hand<j>"`` for every other seat
        ``j`` (its current cards) and ``"stock"`` (the face-down stock below
        the upcard, after any exchange draw; never revealed, section 9).

        The upcard, a laid-out joker and played cards are public; future deals
        come from fresh shuffles, so nothing else is pending.
        """
        z = {f"hand{j}": list(self.hands[j]) for j in range(4) if j != seat}
        z["stock"] = list(self.stock)
        return z

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "BackAlley":
        """Deep copy whose places named in ``zones`` (keys of :meth:`hidden_zones`)
        hold the given cards. Raises ``ValueError`` for an unknown zone or a size change."""
        g = copy.deepcopy(self)
        g._legal = None  # the legal list depends on the hands
        for name, cards in zones.items():
            if name == "stock":
                if len(cards) != len(g.stock):
                    raise ValueError(f"zone stock holds {len(g.stock)} cards, got {len(cards)}")
                g.stock = list(cards)
            elif name in ("hand0", "hand1", "hand2", "hand3"):
                j = int(name[4])
                if len(cards) != len(g.hands[j]):
                    raise ValueError(f"zone {name} holds {len(g.hands[j])} cards, got {len(cards)}")
                g.hands[j] = sorted(cards, key=_CANON.__getitem__)
            else:
                raise ValueError(f"unknown hidden zone {name!r}")
        return g
