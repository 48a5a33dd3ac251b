"""The Back Alley match engine (shared/rules/back_alley.md)."""

from __future__ import annotations

import copy
import random
from typing import Any

from referee.cards import ALL_CODES
from referee.engine import (BID, PASS, PLAY, Action, Game, IllegalAction, MatchResult, RatingOutcome,
                            ranks_from_scores)

from . import events as E
from . import rules as R

_BIDDING, _PLAY, _OVER = "bidding", "play", "over"

#: shared immutable Action objects (hot path: no allocation per legal list)
_PLAY_ACTION: dict[str, Action] = {c: Action(PLAY, (c,), 0) for c in R.DECK}
_PASS_ACTION = Action(PASS, (), 0)
_BID_ACTION: dict[int, Action] = {n: Action(BID, (), n) for n in range(1, 14)}

_CANON = R.CANON


def _pair(per_team: list[int]) -> tuple[int, int]:
    """The two per-team values of ``per_team`` (length 2) as a tuple."""
    return per_team[0], per_team[1]


class BackAlley(Game):
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

    **Rule labels** of :class:`IllegalAction`: ``"TURN"`` (out of turn, or
    the match is over: :class:`referee.engine.MatchOver`), ``"4.2"`` (not a legal bid), ``"10"`` (dealer may
    not pass under ``dealer_must_bid``), ``"5.1"`` (not one card played in
    the play phase), ``"5.5"`` (malformed code or card not in hand),
    ``"5.3.3"``/``"5.3.4"`` (trump lead bans), ``"5.4.1"``/``"5.4.2"``
    (Blooper leads), ``"5.4.3"`` (must follow suit).

    Randomness: ``self.rng`` draws the first dealer (when not fixed) and one
    ``shuffle`` of the 54 cards per deal, nothing else.

    **State** (plain attributes, read by :mod:`.view`): ``round_index`` (k,
    section 2.2; a pass-out redeals the same index), ``hand_size`` (h),
    ``dealer``, ``passed_out_in_row``, ``totals`` (per team), ``phase``
    (``"bidding"``, ``"play"``, ``"over"``), ``hands`` (per seat, sorted),
    ``stock``, ``upcard``, ``trump`` (``None`` = no trump), ``exchange_seat``
    and ``laid_out_joker`` (-1 and ``""`` without a joker exchange),
    ``bids`` (0 = pass, -1 = board, else tricks) and ``bid_log`` (the same as :class:`.events.Bid` records),
    ``levels`` (board levels), ``contracts`` (``[(board level, target)]``
    per team, ``None`` before the end of bidding; :meth:`contract_records`),
    ``opening_leader`` (-1 before), ``trick_number`` (1-based),
    ``trick_leader``, ``trick`` (its cards), ``tricks`` (the completed ones,
    :class:`.events.Trick` records), ``team_tricks`` and ``trumps_broken``.
    Events: the records of :mod:`.events`.
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
        """Two fixed partnerships (section 1): seats 0 and 2 against seats 1 and 3."""
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
        self.round_index = fr
        self.passed_out_in_row = 0
        self._start_round()

    # ------------------------------------------------------------------
    # round set-up (sections 2, 4.1)

    def _start_round(self) -> None:
        h = R.hand_size(self.round_index)
        assert h is not None  # round_index stays within 1..25
        self.hand_size = h
        deck = list(R.DECK)
        self.rng.shuffle(deck)
        hands, stock = R.deal(deck, self.dealer, h)
        self.upcard = stock[0]
        trump, exch = R.trump_flip(hands, stock)
        self.trump = trump
        emit = self.emit
        emit(E.Deal(round_index=self.round_index, hand_size=h, dealer=self.dealer,
                    passed_out_in_row=self.passed_out_in_row, upcard=self.upcard, trump=trump or ""))
        for s in range(4):
            hands[s].sort(key=_CANON.__getitem__)
            emit(E.Hand(seat=s, cards=tuple(hands[s])), to=s)
        if exch is not None:
            seat, joker, drawn = exch
            hands[seat].remove(joker)
            hands[seat].append(drawn)
            hands[seat].sort(key=_CANON.__getitem__)
            self.exchange_seat, self.laid_out_joker = seat, joker
            self.stock = stock[2:]
            emit(E.JokerExchange(seat=seat, joker=joker))
            emit(E.Draw(seat=seat, card=drawn), to=seat)
        else:
            self.exchange_seat, self.laid_out_joker = -1, ""
            self.stock = stock[1:]
        self.hands = hands
        self.phase = _BIDDING
        self.bids: list[int] = []
        self.bid_log: list[E.Bid] = []  # the same bids as records (seat, kind, tricks, board level)
        self.levels: list[int] = []
        self.contracts: list[tuple[int, int]] | None = None
        self._contract_records: tuple[E.Contract, ...] | None = None  # the same, once made (contract_records)
        self.team_board = [False, False]
        self.opening_leader = -1
        self.trick: list[str] = []
        self.trick_leader = -1
        self.trick_number = 0
        self.tricks: list[E.Trick] = []  # the completed tricks of the round
        self.team_tricks = [0, 0]
        self.trumps_broken = False
        self._to_act: int | None = (self.dealer + 1) & 3
        self._legal: tuple[tuple[Action, ...], bool] | None = None

    # ------------------------------------------------------------------
    # the turn

    @property
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` once the match is over."""
        return self._to_act

    def _decision_kind(self) -> str:
        """``"BID"`` during bidding, ``"PLAY"`` during trick play."""
        return BID if self.phase == _BIDDING else PLAY

    def _legal_cards(self) -> list[str]:
        seat = self._to_act
        assert seat is not None  # only asked while the match runs
        return R.legal_set(self.hands[seat], self.trick, self.trump, self.trumps_broken, self.trick_number == 1,
                           self.team_board[seat & 1], self._board_first)

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """All legal actions of :attr:`to_act` as an immutable tuple (always complete).

        Bidding: pass (unless ``dealer_must_bid`` forbids it), ``BID`` 1..h-1,
        ``BID h`` (= board). Play: one ``PLAY`` per card of ``LegalSet`` (5.5).
        Cached per state (the cache is dropped by every applied action).
        """
        res = self._legal
        if res is not None:
            return res
        if self.phase == _PLAY:
            res = tuple([_PLAY_ACTION[c] for c in self._legal_cards()]), True
        else:
            h = self.hand_size
            res = tuple([_PASS_ACTION if b == R.PASS else _BID_ACTION[h if b == R.BOARD else b]
                         for b in R.legal_bids(h, self.bids, self._dealer_must_bid)]), True
        self._legal = res
        return res

    def _parse(self, seat: int, action: Action) -> Any:
        """Validate ``action`` by ``seat`` without changing state; return the internal move."""
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        if self.phase == _BIDDING:
            h = self.hand_size
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
        if action.amount != 0:
            raise IllegalAction("5.1", "a PLAY carries no amount (amount must be 0)")
        card = action.cards[0]
        if card not in ALL_CODES:
            raise IllegalAction("5.5", f"malformed card code {card!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction("5.5", f"{card} is not in your hand ({' '.join(hand)})")
        legal, rule, why = R.legal_set_rule(hand, self.trick, self.trump, self.trumps_broken, self.trick_number == 1,
                                            self.team_board[seat & 1], self._board_first)
        if card not in legal:
            raise IllegalAction(rule, f"{card} may not be played: {why}")
        return card

    def _validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would reject ``action``."""
        self._parse(seat, action)

    def _apply(self, seat: int, action: Action) -> None:
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
        self.levels = R.board_levels(bids)
        h, level = self.hand_size, self.levels[-1]
        if bid == R.PASS:
            rec = E.Bid(seat=seat, kind="pass", tricks=0, board_level=0)
        elif bid == R.BOARD:
            rec = E.Bid(seat=seat, kind="board", tricks=h, board_level=level)
        else:
            rec = E.Bid(seat=seat, kind="number", tricks=bid, board_level=0)
        self.bid_log.append(rec)
        self.emit(rec)
        if len(bids) < 4:
            self._to_act = (seat + 1) & 3
            return
        cs = R.contracts(self.dealer, bids)
        if cs is None:  # passed out (4.5)
            self.passed_out_in_row += 1
            self.emit(E.BiddingEnd(passed_out=True, contracts=(), opening_leader=None))
            closed = self.passed_out_in_row >= R.MAX_PASSOUTS
            self._end_round(passed_out=True, closed=closed, points=[0, 0])
            return
        self.contracts = cs
        self.team_board = [cs[0][0] > 0, cs[1][0] > 0]
        lead = R.opening_leader(self.dealer, bids)
        assert lead is not None  # not passed out, so someone bid
        self.opening_leader = lead
        self.emit(E.BiddingEnd(passed_out=False, contracts=self.contract_records(), opening_leader=lead))
        self.phase = _PLAY
        self.trick_number = 1
        self.trick_leader = lead
        self._to_act = lead

    # ------------------------------------------------------------------
    # play (sections 5, 6)

    def _play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append(card)
        self.emit(E.Play(seat=seat, card=card, trick_number=self.trick_number, position=len(trick) - 1))
        if len(trick) < 4:
            self._to_act = (seat + 1) & 3
            return
        trump = self.trump
        winner, wi = R.trick_winner(trump, self.trick_leader, trick)
        self.team_tricks[winner & 1] += 1
        if not self.trumps_broken and R.contains_trump(trump, trick):
            self.trumps_broken = True
        self.tricks.append(E.Trick(number=self.trick_number, leader=self.trick_leader, cards=tuple(trick),
                                   winner=winner))
        self.emit(E.TrickEnd(trick_number=self.trick_number, winner=winner, winning_card=trick[wi],
                              team_tricks=_pair(self.team_tricks), trumps_broken=self.trumps_broken))
        self.trick = []
        if self.trick_number == self.hand_size:
            pts = R.round_scores(self.dealer, self.hand_size, self.bids, self.team_tricks, self._zero_nothing)
            assert pts is not None  # the round was played, so not passed out
            self._end_round(passed_out=False, closed=True, points=pts)
            return
        self.trick_number += 1
        self.trick_leader = winner
        self._to_act = winner

    # ------------------------------------------------------------------
    # round and match end (sections 4.5, 7, 8)

    def _end_round(self, passed_out: bool, closed: bool, points: list[int]) -> None:
        self.totals[0] += points[0]
        self.totals[1] += points[1]
        self.emit(E.RoundEnd(
            round_index=self.round_index, hand_size=self.hand_size, dealer=self.dealer, passed_out=passed_out,
            passed_out_in_row=self.passed_out_in_row, index_complete=closed, team_tricks=_pair(self.team_tricks),
            points=_pair(points), totals=_pair(self.totals), contracts=self.contract_records()))
        self.history.append({
            "round_index": self.round_index, "hand_size": self.hand_size, "dealer": self.dealer,
            "upcard": self.upcard, "trump": self.trump,
            "bids": [R.bid_to_json(b) for b in self.bids], "passed_out": passed_out,
            "index_complete": closed, "team_tricks": list(self.team_tricks), "points": list(points),
        })
        if closed:
            self.passed_out_in_row = 0
            if self.round_index == self._last_round:  # §8: the last counted round is over
                self.phase = _OVER
                self._to_act = None
                self.emit(E.MatchEnd(totals=_pair(self.totals), winner_team=R.match_winner(self.totals)))
                return
            self.round_index += 1
        self.dealer = (self.dealer + 1) & 3  # after every round, pass-outs included (2.1)
        self._start_round()

    def _fallback_action(self) -> Action:
        """Section 13: bid pass (or 1 / board under ``dealer_must_bid``); play the lowest legal card."""
        seat = self._to_act
        assert seat is not None  # only asked while the match runs
        if self.phase == _BIDDING:
            b = R.fallback_bid(self.hand_size, self.bids, self._dealer_must_bid)
            if b == R.PASS:
                return _PASS_ACTION
            return _BID_ACTION[self.hand_size if b == R.BOARD else b]
        return _PLAY_ACTION[R.fallback_play(self.hands[seat], self.trick, self.trump, self.trumps_broken,
                                            self.trick_number == 1, self.team_board[seat & 1], self._board_first)]

    # ------------------------------------------------------------------
    # what the seats are told (section 9)

    def contract_records(self) -> tuple[E.Contract, ...]:
        """The two team contracts once bidding is over (§4.4); ``()`` before, or when passed out."""
        if self.contracts is None:
            return ()
        if self._contract_records is not None:
            return self._contract_records
        h = self.hand_size
        self._contract_records = tuple(E.Contract(team=t, board=m > 0, board_level=m, tricks=h if m else b)
                                       for t, (m, b) in enumerate(self.contracts))
        return self._contract_records

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
    # cards and hidden information

    def deck(self) -> tuple[str, ...]:
        """The 54 cards (section 1)."""
        return R.DECK

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """Every place holding cards: ``"hand<s>"``, ``"stock"``, the upcard
        (``"upcard"``, with the laid-out joker when one was exchanged for
        it), ``"trick"`` in progress and the completed ``"tricks"``."""
        z = {f"hand{s}": tuple(h) for s, h in enumerate(self.hands)}
        z["stock"] = tuple(self.stock)
        z["upcard"] = (self.upcard, self.laid_out_joker) if self.laid_out_joker else (self.upcard,)
        z["trick"] = tuple(self.trick)
        z["tricks"] = tuple(c for t in self.tricks for c in t.cards)
        return z

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
