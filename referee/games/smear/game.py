"""The Smear match state machine (shared/rules/smear.md, ruleset ``smear/1``)."""

from __future__ import annotations

import copy
import random
from typing import Any

from cardgames.v1 import smear_pb2 as spb
from referee.engine import BID, PASS, PLAY, Action, Event, Game, IllegalAction, MatchResult, RatingOutcome

from . import rules as R

_AUCTION, _PLAY, _OVER = "auction", "play", "over"
_PHASE_PB = {_AUCTION: spb.SMEAR_PHASE_AUCTION, _PLAY: spb.SMEAR_PHASE_PLAY, _OVER: spb.SMEAR_PHASE_OVER}
_PASS_ACTION = Action(PASS)
_BID_ACTIONS = {b: Action(BID, (), b) for b in range(R.MIN_BID, R.MAX_BID + 1)}
_PLAY_ACTIONS = {c: Action(PLAY, (c,)) for c in R.DECK53}

# Compact event records kept on the hot path; turned into SmearEvent protobufs
# only by pop_events(). Record = (to, kind, *fields); to is None for public.
_RS, _DEAL, _CALL, _AE, _PLAY_EV, _TRUMP, _TE, _RE, _ME = range(9)


def _build_event(rec: tuple) -> spb.SmearEvent:
    """One compact event record -> its ``SmearEvent`` protobuf."""
    k = rec[1]
    if k == _PLAY_EV:
        return spb.SmearEvent(play=spb.SmearPlay(seat=rec[2], card=rec[3], trick=rec[4]))
    if k == _TE:
        return spb.SmearEvent(trick_end=spb.SmearTrick(index=rec[2], leader=rec[3], cards=rec[4], winner=rec[5]))
    if k == _CALL:
        return spb.SmearEvent(call=spb.SmearCall(seat=rec[2], bid=rec[3]))
    if k == _TRUMP:
        return spb.SmearEvent(trump=spb.SmearTrump(suit=rec[2], seat=rec[3]))
    if k == _AE:
        return spb.SmearEvent(auction_end=spb.SmearAuctionEnd(passed_out=rec[2], bidder=rec[3], bid=rec[4]))
    if k == _RS:
        return spb.SmearEvent(round_start=spb.SmearRoundStart(round=rec[2], dealer=rec[3], scores=rec[4],
                                                              hand_sizes=[R.HAND_SIZE] * rec[5]))
    if k == _DEAL:
        return spb.SmearEvent(deal=spb.SmearDeal(round=rec[2], seat=rec[3], hand=rec[4]))
    if k == _RE:
        d = dict(rec[2])
        items = d.pop("items", None)
        m = spb.SmearRoundEnd(**d)
        if items is not None:
            m.items.CopyFrom(spb.SmearRoundItems(**items))
        return spb.SmearEvent(round_end=m)
    if k == _ME:
        return spb.SmearEvent(match_end=spb.SmearMatchEnd(winner=rec[2], scores=rec[3], ranks=rec[4], rounds=rec[5]))
    raise AssertionError(f"unknown event record {rec!r}")


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
        self._log: list[tuple] = []
        self._legal: list[str] | None = None
        self.scores: list[int] = [0] * n
        self.round_no = 0
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
        self.round_no += 1
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
        self.tricks: list[tuple[int, tuple[str, ...], int]] = []  # (leader, cards, winner)
        self.won: list[list[str]] = [[] for _ in range(n)]
        self._to_act: int | None = (self.dealer + 1) % n
        self._legal = None
        log = self._log
        log.append((None, _RS, self.round_no, self.dealer, tuple(self.scores), n))
        for s in range(n):
            log.append((s, _DEAL, self.round_no, s, tuple(self.hands[s])))

    # ------------------------------------------------------------ the turn
    @property
    def to_act(self) -> int | None:
        """Seat that must act now, ``None`` once the match is over."""
        return self._to_act

    def decision_kind(self) -> str:
        """``"BID"`` during the auction, ``"PLAY"`` during the tricks (and once over)."""
        return BID if self.phase == _AUCTION else PLAY

    def legal_actions(self) -> tuple[list[Action], bool]:
        """Legal actions of :attr:`to_act`; always complete (``([], True)`` once over).

        Auction: ``PASS`` (unless forced) then ``BID`` 2..4 above the highest
        bid (spec 5.3, 5.6). Play: one ``PLAY`` per legal card (spec 6.3).
        """
        if self.phase == _AUCTION:
            calls = R.legal_calls(self.players, self.dealer, self.calls, self._forced)
            return [_PASS_ACTION if c == 0 else _BID_ACTIONS[c] for c in calls], True
        if self.phase == _PLAY:
            pa = _PLAY_ACTIONS
            return [pa[c] for c in self._legal_cards()], True
        return [], True

    def _legal_cards(self) -> list[str]:
        """Legal cards of the seat to play (cached until the next state change)."""
        lc = self._legal
        if lc is None:
            trick = self.trick
            lc = self._legal = R.legal_plays(self.hands[self._to_act], trick[0] if trick else None, self.trump,
                                             self._strict)
        return lc

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` if :meth:`apply` would reject ``action`` (no state change)."""
        self._check(seat, action)

    def _check(self, seat: int, action: Action) -> None:
        if self._to_act is None:
            raise IllegalAction("TURN", "the match is over")
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        if self.phase == _AUCTION:
            if kind not in (PASS, BID):
                raise IllegalAction("5.1", f"the auction needs a call (PASS, or BID with amount 2-4), not {kind}")
            if action.cards:
                raise IllegalAction("5.1", "a call carries no cards")
            if type(action.amount) is not int:
                raise IllegalAction("5.1", f"the amount must be an integer, not {action.amount!r}")
            if kind == PASS and action.amount != 0:
                raise IllegalAction("5.1", "PASS carries amount 0")
            err = R.check_call(self.players, self.dealer, self.calls, seat, kind == PASS, action.amount, self._forced)
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

    def apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat`` (spec sections 5 to 8).

        Raises :class:`IllegalAction` (state unchanged) with the rule labels of
        the class docstring.
        """
        if self.phase is _PLAY and seat == self._to_act and action.kind == PLAY and not action.amount:
            cards = action.cards
            if len(cards) == 1 and cards[0] in self._legal_cards():  # fast path: a legal play
                self._apply_play(seat, cards[0])
                return
        self._check(seat, action)
        if self.phase == _AUCTION:
            self._apply_call(seat, 0 if action.kind == PASS else action.amount)
        else:
            self._apply_play(seat, action.cards[0])

    # ------------------------------------------------------------ auction (5)
    def _apply_call(self, seat: int, call: int) -> None:
        self._legal = None
        self.calls.append(call)
        self._log.append((None, _CALL, seat, call))
        complete, nxt, bidder, bid = R.auction_state(self.players, self.dealer, self.calls)
        if not complete:
            self._to_act = nxt
            return
        if bidder is None:  # §5.6 passed out: same dealer, new round, scores unchanged
            # the hands are gathered unseen with the stock (nothing is shown)
            for h in self.hands:
                self.stock.extend(h)
                h.clear()
            self._log.append((None, _AE, True, -1, 0))
            self._log.append((None, _RE, dict(
                round=self.round_no, passed_out=True, bidder=-1, bid=0, trump="", deltas=[0] * self.players,
                scores=list(self.scores), winner=-1)))
            self.history.append({"round": self.round_no, "dealer": self.dealer, "passed_out": True})
            self._end_of_round(None, None, None, self.scores)
            return
        self.bidder, self.bid = bidder, bid
        self._log.append((None, _AE, False, bidder, bid))
        self.phase = _PLAY
        self.leader = bidder
        self._to_act = bidder

    # ------------------------------------------------------------ play (6)
    def _apply_play(self, seat: int, card: str) -> None:
        self._legal = None
        self.hands[seat].remove(card)
        idx = len(self.tricks)
        self.trick.append(card)
        log = self._log
        log.append((None, _PLAY_EV, seat, card, idx))
        if self.trump is None:  # §6.1 the first card fixes trump
            self.trump = card[1]
            log.append((None, _TRUMP, self.trump, seat))
        n = self.players
        if len(self.trick) < n:
            self._to_act = (seat + 1) % n
            return
        cards = tuple(self.trick)
        leader = self.leader
        w = R.trick_winner(leader, cards, self.trump, n)
        self.won[w].extend(cards)
        self.tricks.append((leader, cards, w))
        self.trick = []
        log.append((None, _TE, idx, leader, cards, w))
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
        for leader, cards, _w in self.tricks:
            for i, c in enumerate(cards):
                if c == R.JOKER or c[1] == trump:
                    out[(leader + i) % n].append(c)
        return out

    def _score_round(self) -> None:
        items = R.award_items(self.players, self.trump, self.won, self.trumps_played(), self._low_to_taker)
        old = self.scores
        made, new = R.score_round(self.bidder, self.bid, items["points"], old)
        self.scores = new
        deltas = [a - b for a, b in zip(new, old)]
        winner, _over = R.match_end(self.bidder, self.bid, made, old, new, self.round_no, self._max_rounds)

        def seat_or_none(x: int | None) -> int:
            return -1 if x is None else x

        self._log.append((None, _RE, dict(
            round=self.round_no, passed_out=False, bidder=self.bidder, bid=self.bid, trump=self.trump,
            items=dict(
                high=seat_or_none(items["high"]), low=seat_or_none(items["low"]), jack=seat_or_none(items["jack"]),
                game=seat_or_none(items["game"]), high_card=items["high_card"] or "",
                low_card=items["low_card"] or "", game_points=items["game_points"], points=items["points"]),
            made=made, deltas=deltas, scores=list(new), winner=seat_or_none(winner))))
        self.history.append({"round": self.round_no, "dealer": self.dealer, "passed_out": False,
                             "bidder": self.bidder, "bid": self.bid, "trump": self.trump,
                             "high": items["high"], "low": items["low"], "jack": items["jack"],
                             "game": items["game"], "points": items["points"], "made": made, "scores": new})
        self._end_of_round(self.bidder, self.bid, made, old)

    def _end_of_round(self, bidder: int | None, bid: int | None, made: bool | None, old: list[int]) -> None:
        """Section 8 check, then the next round or the end of the match."""
        winner, over = R.match_end(bidder, bid, made, old, self.scores, self.round_no, self._max_rounds)
        if over:
            self.winner = winner
            self.phase = _OVER
            self._to_act = None
            self._log.append((None, _ME, -1 if winner is None else winner, tuple(self.scores),
                              tuple(R.standings(self.scores, winner)), self.round_no))
            return
        if bidder is not None:  # §2.6: the deal passes on after a played-out round
            self.dealer = (self.dealer + 1) % self.players
        self._start_round()

    # ------------------------------------------------------------ fallback (13)
    def fallback_action(self) -> Action:
        """The spec's fallback (section 13).

        Bid: ``PASS``, or ``BID 2`` when the dealer is forced to bid. Play: the
        lowest legal card (rank, then suit C < D < H < S; the joker lowest).
        Raises ``RuntimeError`` once the match is over.
        """
        if self._to_act is None:
            raise RuntimeError("smear: the match is over; no fallback action")
        if self.phase == _AUCTION:
            calls = R.legal_calls(self.players, self.dealer, self.calls, self._forced)
            return _PASS_ACTION if calls[0] == 0 else _BID_ACTIONS[calls[0]]
        return _PLAY_ACTIONS[R.lowest_card(self._legal_cards())]

    # ------------------------------------------------------------ events
    def pop_events(self) -> list[Event]:
        """Events since the last call (construction included), in order, as
        :class:`Event` objects whose payload is a ``SmearEvent``.

        ``SmearDeal`` events are private (``to`` = the seat dealt); all others
        are public. The engine keeps compact records and builds the protobufs
        here, off the hot path.
        """
        log, self._log = self._log, []
        out = [Event(_build_event(r), r[0]) for r in log]
        if self._events:  # anything emitted through Game.emit (nothing in this engine)
            out = self._events + out
            self._events = []
        return out

    # ------------------------------------------------------------ what a seat sees (9)
    def observation(self, seat: int) -> spb.SmearObservation:
        """``SmearObservation`` for ``seat``: its own hand plus the public state of spec section 9."""
        n = self.players
        o = spb.SmearObservation(
            seat=seat, players=n,
            variant=spb.SmearVariant(with_joker=self._joker, dealer_forced_bid=self._forced,
                                     low_to_taker=self._low_to_taker, strict_follow=self._strict),
            target=R.TARGET, max_rounds=self._max_rounds, round=self.round_no, dealer=self.dealer,
            scores=self.scores, phase=_PHASE_PB[self.phase], hand=self.hands[seat],
            hand_sizes=[len(h) for h in self.hands],
            calls=[spb.SmearCall(seat=(self.dealer + 1 + i) % n, bid=c) for i, c in enumerate(self.calls)],
            bidder=-1 if self.bidder is None else self.bidder, bid=self.bid, trump=self.trump or "",
            leader=-1 if self.leader is None else self.leader,
            winner=-1 if self.winner is None else self.winner,
        )
        if self.trick:
            ld = self.leader
            idx = len(self.tricks)
            o.trick.extend(spb.SmearPlay(seat=(ld + i) % n, card=c, trick=idx) for i, c in enumerate(self.trick))
        o.tricks.extend(spb.SmearTrick(index=i, leader=ld, cards=cards, winner=w)
                        for i, (ld, cards, w) in enumerate(self.tricks))
        return o

    # ------------------------------------------------------------ the end
    def result(self) -> MatchResult:
        """Final result (spec section 8): scores in match points, ranks 1 = best.

        The winner (if any) ranks first, the others by final score (ties
        share). ``outcomes``: one free-for-all :class:`RatingOutcome` with one
        seat per team, ranks 0-based from the standings (ties are draws).
        Called before the end, it reports the standings so far.
        """
        ranks = R.standings(self.scores, self.winner)
        return MatchResult(
            scores=[float(s) for s in self.scores],
            ranks=ranks,
            outcomes=[RatingOutcome(teams=[[s] for s in range(self.players)], ranks=[r - 1 for r in ranks])],
            summary={"winner": self.winner, "rounds": self.round_no, "over": self._to_act is None,
                     "reason": ("bidder_won" if self.winner is not None else "max_rounds")
                     if self._to_act is None else "unfinished",
                     "scores": list(self.scores), "history": self.history},
        )

    # ------------------------------------------------------------ hidden information
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
