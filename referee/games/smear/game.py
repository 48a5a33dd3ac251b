"""The Smear match state machine (shared/rules/smear.md, ruleset ``smear/1``)."""

from __future__ import annotations

import copy
import random
from typing import Any

from referee.engine import BID, PASS, PLAY, Action, Game, IllegalAction, MatchResult, RatingOutcome

from . import events as E
from . import rules as R

_AUCTION, _PLAY, _OVER = "auction", "play", "over"
_PASS_ACTION = Action(PASS)
_BID_ACTIONS = {b: Action(BID, (), b) for b in range(R.MIN_BID, R.MAX_BID + 1)}
_PLAY_ACTIONS = {c: Action(PLAY, (c,)) for c in R.DECK53}


class SmearGame(Game):
    """One match of Cutthroat Canadian Smear for 2 or 3 players (smear.md).

    **Decisions and action vocabulary** (``Action(kind, cards, amount)``):

    * ``decision_kind() == "BID"`` (auction, spec section 5): ``PASS`` with
      ``cards=()`` and ``amount=0``, or ``BID`` with ``cards=()`` and
      ``amount`` = 2, 3 or 4 (points the caller undertakes to win).
    * ``decision_kind() == "PLAY"`` (tricks, spec section 6): ``PLAY`` with
      ``cards=(code,)`` (exactly one card) and ``amount=0``. The bidder's first
      card fixes trump; there is no separate DECLARE decision.

    DECLARE, DISCARD and EXCHANGE never occur. ``legal_actions()`` is always
    **complete**: at most 4 calls (``PASS`` first, then bids ascending) or
    at most 6 plays (hand order: suit C D H S, then rank).

    **Rule labels** of :class:`IllegalAction`: ``"TURN"`` (not this seat's
    turn, or the match is over), ``"5.1"`` (not a call / not a bid of 2-4),
    ``"5.3"`` (bid not higher than the highest), ``"5.6"`` (dealer forced to
    bid under ``dealer_forced_bid``), ``"6.2"`` (not exactly one card played,
    or not a PLAY action during play), ``"6.3"`` (card malformed, not in the
    hand, or breaking the follow rules of section 6 step 3).

    **Variant flags** (spec section 10): ``with_joker``, ``dealer_forced_bid``,
    ``low_to_taker``, ``strict_follow`` (all ``False``). **Match parameters**:
    ``max_rounds`` (int >= 1, default 200, section 8) and ``first_dealer``
    (seat, or ``None`` = drawn from the seeded RNG, section 2 step 1).

    **State** (plain attributes, read by :mod:`.view`): ``round`` (1-based,
    every deal counts), ``dealer``, ``scores`` (per seat), ``phase``
    (``"auction"``, ``"play"``, ``"over"``), ``hands`` (per seat, sorted),
    ``stock``, ``calls`` (this round's, 0 = pass, the first by seat dealer + 1),
    ``bidder`` and ``bid`` (``None`` and 0 before the end of the auction),
    ``trump`` (``None`` before the first card), ``leader`` of the current
    trick, ``trick`` (its cards, in play order), ``tricks`` (the completed
    ones, as their :class:`.events.TrickEnd` records), ``won`` (per seat, the cards of its tricks)
    and ``winner`` (of the match, ``None`` if none yet). Events: the records
    of :mod:`.events`.

    Scores in :meth:`result` are match points (section 7). Raises
    ``ValueError`` from the constructor for bad parameters.
    """

    name = "smear"
    player_counts = (2, 3)
    ruleset = "smear/1"
    variant_defaults = {"with_joker": False, "dealer_forced_bid": False, "low_to_taker": False,
                        "strict_follow": False}
    param_defaults = {"max_rounds": 200, "first_dealer": None}

    def __init__(self, players: int, variant: dict[str, Any] | None = None, params: dict[str, Any] | None = None,
                 rng: random.Random | None = None):
        super().__init__(players, variant, params, rng if rng is not None else random.Random())
        mr = self.params["max_rounds"]
        if type(mr) is not int or mr < 1:
            raise ValueError(f"smear: match parameter 'max_rounds' must be an integer >= 1, got {mr!r}")
        fd = self.params["first_dealer"]
        if fd is not None and (type(fd) is not int or not 0 <= fd < players):
            raise ValueError(f"smear: match parameter 'first_dealer' must be a seat 0..{players - 1} or null, got {fd!r}")
        v = self.variant
        self._joker: bool = v["with_joker"]
        self._forced: bool = v["dealer_forced_bid"]
        self._low_to_taker: bool = v["low_to_taker"]
        self._strict: bool = v["strict_follow"]
        self._deck = R.DECK53 if self._joker else R.DECK52
        self._max_rounds: int = mr

        n = players
        self._legal: tuple[str, ...] | None = None
        self.scores: list[int] = [0] * n
        self.round = 0
        #: per-round summaries (JSON-able) for the result summary
        self.history: list[dict[str, Any]] = []
        self.winner: int | None = None
        # §2.1: first dealer from the seeded RNG unless the match fixes it
        self.dealer: int = fd if fd is not None else self.rng.randrange(n)
        self._start_round()

    # ------------------------------------------------------------ round set-up
    def _start_round(self) -> None:
        """Shuffle, deal (spec section 2) and open the auction."""
        n = self.players
        self.round += 1
        d = list(self._deck)
        self.rng.shuffle(d)
        hands: list[list[str]] = [[] for _ in range(n)]
        first = self.dealer + 1
        for p in range(2):  # §2.3 canonical pattern: two passes of three cards
            for k in range(n):
                i = 3 * (p * n + k)
                hands[(first + k) % n].extend(d[i:i + 3])
        self.hands = [R.sort_hand(h) for h in hands]
        self.stock: list[str] = d[R.HAND_SIZE * n:]
        self.phase = _AUCTION
        self.calls: list[int] = []
        self.bidder: int | None = None
        self.bid = 0
        self.trump: str | None = None
        self.leader: int | None = None
        self.trick: list[str] = []
        self.tricks: list[E.TrickEnd] = []  # the completed tricks of the round
        self.won: list[list[str]] = [[] for _ in range(n)]
        self._to_act: int | None = (self.dealer + 1) % n
        self._legal = None
        self.emit(E.RoundStart(round=self.round, dealer=self.dealer, scores=tuple(self.scores),
                                hand_sizes=(R.HAND_SIZE,) * n))
        for s in range(n):
            self.emit(E.Deal(round=self.round, seat=s, hand=tuple(self.hands[s])), to=s)

    # ------------------------------------------------------------ the turn
    @property
    def to_act(self) -> int | None:
        """Seat that must act now, ``None`` once the match is over."""
        return self._to_act

    def _decision_kind(self) -> str:
        """``"BID"`` during the auction, ``"PLAY"`` during the tricks."""
        return BID if self.phase == _AUCTION else PLAY

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """Legal actions of :attr:`to_act` as an immutable tuple; always complete.

        Auction: ``PASS`` (unless forced) then ``BID`` 2..4 above the highest
        bid (spec 5.3, 5.6). Play: one ``PLAY`` per legal card (spec 6.3).
        """
        if self.phase == _AUCTION:
            calls = R.legal_calls(self.players, self.dealer, self.calls, self._forced)
            return tuple([_PASS_ACTION if c == 0 else _BID_ACTIONS[c] for c in calls]), True
        pa = _PLAY_ACTIONS
        return tuple([pa[c] for c in self._legal_cards()]), True

    def _legal_cards(self) -> tuple[str, ...]:
        """Legal cards of the seat to play (cached until the next state change)."""
        lc = self._legal
        if lc is None:
            trick = self.trick
            seat = self._to_act
            assert seat is not None, "only called while a seat is to play"
            lc = self._legal = tuple(R.legal_plays(self.hands[seat], trick[0] if trick else None,
                                                   self.trump, self._strict))
        return lc

    def _validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` if :meth:`apply` would reject ``action`` (no state change)."""
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        if self.phase == _AUCTION:
            if kind not in (PASS, BID):
                raise IllegalAction("5.1", f"the auction needs a call (PASS, or BID with amount 2-4), not {kind}")
            if action.cards:
                raise IllegalAction("5.1", "a call carries no cards")
            amount = action.amount
            if type(amount) is not int:
                raise IllegalAction("5.1", f"the amount must be an integer, not {amount!r}")
            if kind == PASS and amount != 0:
                raise IllegalAction("5.1", "PASS carries amount 0")
            err = R.check_call(self.players, self.dealer, self.calls, seat, kind == PASS, amount, self._forced)
            if err is not None:
                raise IllegalAction(*err)
            return
        # play phase
        if kind == PLAY and len(action.cards) == 1 and action.amount == 0 and action.cards[0] in self._legal_cards():
            return  # fast path: a legal play
        if kind != PLAY:
            raise IllegalAction("6.2", f"a card must be played: PLAY with exactly one card, not {kind}")
        if len(action.cards) != 1:
            raise IllegalAction("6.2", f"play exactly one card per turn, not {len(action.cards)}")
        if action.amount != 0:
            raise IllegalAction("6.2", "PLAY carries amount 0")
        card = action.cards[0]
        if not isinstance(card, str):
            raise IllegalAction("6.3", f"malformed card code {card!r}")
        msg = R.play_error(self.hands[seat], self.trick[0] if self.trick else None, self.trump, card, self._strict)
        if msg is not None:
            raise IllegalAction("6.3", msg)

    def _apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat`` (spec sections 5 to 8).

        Raises :class:`IllegalAction` (state unchanged) with the rule labels of
        the class docstring.
        """
        if self.phase is _PLAY and seat == self._to_act and action.kind == PLAY and not action.amount:
            cards = action.cards
            if len(cards) == 1 and cards[0] in self._legal_cards():  # fast path: a legal play
                self._apply_play(seat, cards[0])
                return
        self._validate(seat, action)
        if self.phase == _AUCTION:
            self._apply_call(seat, 0 if action.kind == PASS else action.amount)
        else:
            self._apply_play(seat, action.cards[0])

    # ------------------------------------------------------------ auction (5)
    def _apply_call(self, seat: int, call: int) -> None:
        self._legal = None
        self.calls.append(call)
        self.emit(E.Call(seat=seat, bid=call))
        complete, nxt, bidder, bid = R.auction_state(self.players, self.dealer, self.calls)
        if not complete:
            self._to_act = nxt
            return
        if bidder is None:  # §5.6 passed out: same dealer, new round, scores unchanged
            # the hands are gathered unseen with the stock (nothing is shown)
            for h in self.hands:
                self.stock.extend(h)
                h.clear()
            self.emit(E.AuctionEnd(passed_out=True, bidder=None, bid=0))
            self.emit(E.RoundEnd(round=self.round, passed_out=True, bidder=None, bid=0, trump="", items=None,
                                  made=False, deltas=(0,) * self.players, scores=tuple(self.scores), winner=None))
            self.history.append({"round": self.round, "dealer": self.dealer, "passed_out": True})
            self._end_of_round(None, None, None, self.scores)
            return
        self.bidder, self.bid = bidder, bid
        self.emit(E.AuctionEnd(passed_out=False, bidder=bidder, bid=bid))
        self.phase = _PLAY
        self.leader = bidder
        self._to_act = bidder

    # ------------------------------------------------------------ play (6)
    def _apply_play(self, seat: int, card: str) -> None:
        self._legal = None
        self.hands[seat].remove(card)
        idx = len(self.tricks)
        self.trick.append(card)
        self.emit(E.Play(seat=seat, card=card, trick=idx))
        trump = self.trump
        if trump is None:  # §6.1 the first card fixes trump
            trump = self.trump = card[1]
            self.emit(E.Trump(suit=trump, seat=seat))
        n = self.players
        if len(self.trick) < n:
            self._to_act = (seat + 1) % n
            return
        cards = tuple(self.trick)
        leader = self.leader
        assert leader is not None, "the auction's bidder leads the first trick"
        w = R.trick_winner(leader, cards, trump, n)
        self.won[w].extend(cards)
        done = E.TrickEnd(index=idx, leader=leader, cards=cards, winner=w)
        self.tricks.append(done)
        self.trick = []
        self.emit(done)
        if len(self.tricks) < R.TRICKS:
            self.leader = w
            self._to_act = w
            return
        self._score_round()

    # ------------------------------------------------------------ scoring (7, 8)
    def trumps_played(self) -> list[list[str]]:
        """Per seat, the trumps it played this round so far (natural and joker)."""
        n = self.players
        out: list[list[str]] = [[] for _ in range(n)]
        trump = self.trump
        for t in self.tricks:
            for i, c in enumerate(t.cards):
                if c == R.JOKER or c[1] == trump:
                    out[(t.leader + i) % n].append(c)
        return out

    def _score_round(self) -> None:
        bidder, trump = self.bidder, self.trump
        assert bidder is not None and trump is not None, "a played-out round has a bidder and a trump"
        items = R.award_items(self.players, trump, self.won, self.trumps_played(), self._low_to_taker)
        old = self.scores
        made, new = R.score_round(bidder, self.bid, items["points"], old)
        self.scores = new
        deltas = [a - b for a, b in zip(new, old)]
        winner, _over = R.match_end(self.bidder, self.bid, made, old, new, self.round, self._max_rounds)
        self.emit(E.RoundEnd(
            round=self.round, passed_out=False, bidder=bidder, bid=self.bid, trump=trump,
            items=E.RoundItems(
                high=items["high"], low=items["low"], jack=items["jack"], game=items["game"],
                high_card=items["high_card"] or "", low_card=items["low_card"] or "",
                game_points=tuple(items["game_points"]), points=tuple(items["points"])),
            made=made, deltas=tuple(deltas), scores=tuple(new), winner=winner))
        self.history.append({"round": self.round, "dealer": self.dealer, "passed_out": False,
                             "bidder": self.bidder, "bid": self.bid, "trump": self.trump,
                             "high": items["high"], "low": items["low"], "jack": items["jack"],
                             "game": items["game"], "points": items["points"], "made": made, "scores": new})
        self._end_of_round(self.bidder, self.bid, made, old)

    def _end_of_round(self, bidder: int | None, bid: int | None, made: bool | None, old: list[int]) -> None:
        """Section 8 check, then the next round or the end of the match."""
        winner, over = R.match_end(bidder, bid, made, old, self.scores, self.round, self._max_rounds)
        if over:
            self.winner = winner
            self.phase = _OVER
            self._to_act = None
            self.emit(E.MatchEnd(winner=winner, scores=tuple(self.scores),
                                 ranks=tuple(R.standings(self.scores, winner)), rounds=self.round))
            return
        if bidder is not None:  # §2.6: the deal passes on after a played-out round
            self.dealer = (self.dealer + 1) % self.players
        self._start_round()

    # ------------------------------------------------------------ fallback (13)
    def _fallback_action(self) -> Action:
        """The spec's fallback (section 13).

        Bid: ``PASS``, or ``BID 2`` when the dealer is forced to bid. Play: the
        lowest legal card (rank, then suit C < D < H < S; the joker lowest).
        """
        if self.phase == _AUCTION:
            calls = R.legal_calls(self.players, self.dealer, self.calls, self._forced)
            return _PASS_ACTION if calls[0] == 0 else _BID_ACTIONS[calls[0]]
        return _PLAY_ACTIONS[R.lowest_card(self._legal_cards())]

    # ------------------------------------------------------------ the end
    def result(self) -> MatchResult:
        """Final result (spec section 8): scores in match points, ranks 1 = best.

        The winner (if any) ranks first, the others by final score (ties
        share). ``outcomes``: one free-for-all :class:`RatingOutcome` with one
        seat per team, ranks 0-based from the standings (ties are draws).
        Raises ``RuntimeError`` before the match is over.
        """
        if self._to_act is not None:
            raise RuntimeError("smear: the match is not over")
        ranks = R.standings(self.scores, self.winner)
        return MatchResult(
            scores=[float(s) for s in self.scores],
            ranks=ranks,
            outcomes=[RatingOutcome(teams=[[s] for s in range(self.players)], ranks=[r - 1 for r in ranks])],
            summary={"winner": self.winner, "rounds": self.round, "over": True,
                     "reason": "bidder_won" if self.winner is not None else "max_rounds",
                     "scores": list(self.scores), "history": self.history},
        )

    # ------------------------------------------------------------ cards and hidden information
    def deck(self) -> tuple[str, ...]:
        """The match's pack: 52 cards, 53 with ``with_joker`` (section 10)."""
        return self._deck

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """Every place holding cards: ``"hand<s>"``, ``"won<s>"`` (completed
        tricks), ``"trick"`` (in progress) and ``"stock"``."""
        z = {f"hand{s}": tuple(h) for s, h in enumerate(self.hands)}
        z.update({f"won{s}": tuple(w) for s, w in enumerate(self.won)})
        z["trick"] = tuple(self.trick)
        z["stock"] = tuple(self.stock)
        return z

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Places ``seat`` may not see: ``"hand<s>"`` for every other seat's
        remaining cards and ``"stock"`` (the undealt cards, section 2.4)."""
        z = {f"hand{s}": list(self.hands[s]) for s in range(self.players) if s != seat}
        z["stock"] = list(self.stock)
        return z

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "SmearGame":
        """Deep copy whose hidden places hold ``zones`` (keys and sizes as
        :meth:`hidden_zones`). Raises ``ValueError`` on unknown keys or size changes."""
        g = copy.deepcopy(self)
        g._legal = None
        for k, cards in zones.items():
            if k == "stock":
                if len(cards) != len(g.stock):
                    raise ValueError("stock size changed")
                g.stock = list(cards)
            elif k.startswith("hand") and k[4:].isdigit() and int(k[4:]) < self.players:
                s = int(k[4:])
                if len(cards) != len(g.hands[s]):
                    raise ValueError(f"{k} size changed")
                g.hands[s] = R.sort_hand(cards)
            else:
                raise ValueError(f"unknown hidden zone {k!r}")
        return g
