"""The Smear match state machine (shared/rules/smear.md, ruleset ``smear/1``)."""

from __future__ import annotations

import copy
import random
from typing import Any

from cardgames.v1 import smear_pb2 as spb
from referee.engine import BID, PASS, PLAY, Action, IllegalAction, LegacyGame, MatchResult, RatingOutcome
from referee.games import _wire as W
from referee.games._wire import WireEvent as Event

from . import rules as R

_AUCTION, _PLAY, _OVER = "auction", "play", "over"
_PHASE_PB = {_AUCTION: spb.SMEAR_PHASE_AUCTION, _PLAY: spb.SMEAR_PHASE_PLAY, _OVER: spb.SMEAR_PHASE_OVER}
_PASS_ACTION = Action(PASS)
_BID_ACTIONS = {b: Action(BID, (), b) for b in range(R.MIN_BID, R.MAX_BID + 1)}
_PLAY_ACTIONS = {c: Action(PLAY, (c,)) for c in R.DECK53}

# Observation encoding tables (see SmearGame.observation): SmearObservation fields
# seat (1), hand (10), hand_sizes (11, packed), trick (17: SmearPlay seat 1, card 2, trick 3).
_OBS_FROM = spb.SmearObservation.FromString
_SEAT_B = [W.int_field(1, s) for s in range(4)]
_HAND_B = W.repeated_str_entries(10, R.DECK53)
_HAND_SIZES_KEY = {n: W.key(11, 2) + bytes([n]) for n in (2, 3)}
#: encoded phase, bidder, bid, trump, leader and winner by their values (memo)
_SCALARS: dict[tuple, bytes] = {}
#: per play (seat, card, trick index): (its ``SmearObservation.trick`` field, its ``SmearEvent``), memo
_TRICK_ENTRY: dict[tuple[int, str, int], tuple[bytes, bytes]] = {}
_PLAY_EVENT_FIELD = spb.SmearEvent.DESCRIPTOR.fields_by_name["play"].number


def _trick_entry(play: tuple[int, str, int]) -> tuple[bytes, bytes]:
    """A play ``(seat, card, trick index)`` encoded as one ``trick`` field of the
    observation and as a ``SmearEvent(play=...)`` (memoised)."""
    e = _TRICK_ENTRY.get(play)
    if e is None:
        body = spb.SmearPlay(seat=play[0], card=play[1], trick=play[2]).SerializeToString()
        e = (W.len_field(17, body), W.len_field(_PLAY_EVENT_FIELD, body))
        if len(_TRICK_ENTRY) >= 10_000:
            _TRICK_ENTRY.clear()
        _TRICK_ENTRY[play] = e
    return e

# Compact event records kept on the hot path; turned into SmearEvent protobufs
# only by pop_events(). Record = (to, kind, *fields); to is None for public.
_RS, _DEAL, _CALL, _AE, _PLAY_EV, _TRUMP, _TE, _RE, _ME = range(9)


_EV_FROM = spb.SmearEvent.FromString
#: encoded call events by (seat, call) (at most 4 x 5 entries)
_CALL_EV: dict[tuple[int, int], bytes] = {}
# SmearTrick fields index (1), leader (2), cards (3), winner (4)
_TRICK_END_FIELD = spb.SmearEvent.DESCRIPTOR.fields_by_name["trick_end"].number
_TE_INDEX_B = [W.int_field(1, i) for i in range(R.TRICKS + 1)]
_TE_LEADER_B = [W.int_field(2, s) for s in range(4)]
_TE_CARD_B = W.repeated_str_entries(3, R.DECK53)
_TE_WINNER_B = [W.int_field(4, s) for s in range(4)]


def _trick_end_bytes(index: int, leader: int, cards: tuple[str, ...], winner: int) -> bytes:
    """Encoded ``SmearEvent(trick_end=SmearTrick(index, leader, cards, winner))``."""
    try:
        body = (_TE_INDEX_B[index] + _TE_LEADER_B[leader] + b"".join(map(_TE_CARD_B.__getitem__, cards))
                + _TE_WINNER_B[winner])
    except (IndexError, KeyError):
        return spb.SmearEvent(trick_end=spb.SmearTrick(index=index, leader=leader, cards=cards,
                                                       winner=winner)).SerializeToString()
    return W.len_field(_TRICK_END_FIELD, body)


def _event_bytes(rec: tuple) -> bytes | None:
    """The encoded ``SmearEvent`` of a record of the frequent kinds (play,
    trick end, call), else ``None``."""
    k = rec[1]
    if k == _PLAY_EV:  # (None, _PLAY_EV, (seat, card, trick index))
        return (_TRICK_ENTRY.get(rec[2]) or _trick_entry(rec[2]))[1]
    if k == _TE:
        return _trick_end_bytes(rec[2], rec[3], rec[4], rec[5])
    if k == _CALL:
        b = _CALL_EV.get(rec[2:4])
        if b is None:
            b = _CALL_EV[rec[2:4]] = spb.SmearEvent(call=spb.SmearCall(seat=rec[2], bid=rec[3])).SerializeToString()
        return b
    return None


def _event(rec: tuple) -> Event:
    """One compact event record -> its :class:`Event` (encoded when :func:`_event_bytes` has it)."""
    b = _event_bytes(rec)
    if b is not None:
        return Event(None, rec[0], encoded=b, parse=_EV_FROM)
    return Event(_build_event(rec), rec[0])


def _build_event(rec: tuple) -> spb.SmearEvent:
    """One compact event record of the kinds :func:`_event_bytes` has not -> its ``SmearEvent``."""
    k = rec[1]
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


class SmearGame(LegacyGame):  # TRANSITIONAL (issue #20): not converted to the engine contract yet
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
        # observation caches: see _round_bytes and observation (trick in progress: list, length,
        # leader, encoding)
        self._round_cache: tuple | None = None
        self._turn_cache: tuple | None = None
        self._trick_cache: tuple | None = None
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
    def deck(self) -> tuple[str, ...]:
        """The pack (52 cards, 53 with the joker variant)."""
        return tuple(self._deck)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """``stock``, ``hand<j>`` per seat, ``won<j>`` (completed tricks), ``trick``."""
        zones = {"stock": tuple(self.stock), "trick": tuple(self.trick)}
        for j, h in enumerate(self.hands):
            zones[f"hand{j}"] = tuple(h)
        for j, w in enumerate(self.won):
            zones[f"won{j}"] = tuple(w)
        return zones

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
        log.append((None, _PLAY_EV, (seat, card, idx)))
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
        out = [_event(r) for r in log]
        if self._events:  # anything emitted through Game.emit (nothing in this engine)
            out = self._events + out
            self._events = []
        return out

    # ------------------------------------------------------------ what a seat sees (9)
    def observation(self, seat: int) -> spb.SmearObservation:
        """``SmearObservation`` for ``seat``: its own hand plus the public state of spec section 9.

        Parsed once from the concatenation of encoded parts: the per-round
        part (:meth:`_round_bytes`), the calls and the finished tricks (each
        extended as its list grows), the turn scalars (memoised on their
        values) and the per-decision hand, hand sizes and trick in progress
        (from per-card encodings)."""
        return _OBS_FROM(self.observation_bytes(seat))

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation` encoded (the bytes it parses)."""
        hands = self.hands
        n = self.players
        try:
            hand = b"".join(map(_HAND_B.__getitem__, hands[seat]))
        except KeyError:  # not a card code of the deck: let protobuf encode (or reject) it
            hand = spb.SmearObservation(hand=hands[seat]).SerializeToString()
        sizes = bytes(map(len, hands))  # one-byte varints: a hand holds at most 6 cards
        parts = [self._round_bytes(), _SEAT_B[seat] if seat < len(_SEAT_B) else W.int_field(1, seat), hand,
                 _HAND_SIZES_KEY[n], sizes]
        parts.append(self._turn_bytes())
        trick = self.trick
        if trick:
            c = self._trick_cache
            if c is not None and c[0] is trick and c[1] == len(trick) and c[2] == self.leader:
                parts.append(c[3])
            else:
                ld = self.leader
                idx = len(self.tricks)
                tb = b"".join([_trick_entry(((ld + i) % n, c, idx))[0] for i, c in enumerate(trick)])
                self._trick_cache = (trick, len(trick), ld, tb)
                parts.append(tb)
        return b"".join(parts)

    def _turn_bytes(self) -> bytes:
        """Encoded phase, bidder, bid, trump, leader, winner (memoised module-wide
        on their values) and finished tricks (:meth:`_tricks_bytes`): they change
        a few times per round. Cached on those values and the tricks list and
        its length (it is appended to, and replaced per round)."""
        tricks = self.tricks
        key = (self.phase, self.bidder, self.bid, self.trump, self.leader, self.winner, tricks, len(tricks))
        c = self._turn_cache
        if c is not None and c[0] == key:
            return c[1]
        sk = key[:6]
        b = _SCALARS.get(sk)
        if b is None:
            b = spb.SmearObservation(
                phase=_PHASE_PB[self.phase], bidder=-1 if self.bidder is None else self.bidder, bid=self.bid,
                trump=self.trump or "", leader=-1 if self.leader is None else self.leader,
                winner=-1 if self.winner is None else self.winner).SerializeToString()
            if len(_SCALARS) >= 10_000:
                _SCALARS.clear()
            _SCALARS[sk] = b
        if tricks:
            b += self._tricks_bytes()
        self._turn_cache = (key, b)
        return b

    def _round_bytes(self) -> bytes:
        """Encoded fields fixed within a round and the calls: players, variant,
        target, max rounds, round, dealer, scores, calls (:meth:`_calls_bytes`).
        Cached on (round, dealer, scores, the calls list and its length: it is
        appended to, and replaced per round)."""
        calls = self.calls
        key = (self.round_no, self.dealer, tuple(self.scores), calls, len(calls))
        c = self._round_cache
        if c is not None and c[0] == key:
            return c[1]
        b = (self._calls_bytes() if calls else b"") + spb.SmearObservation(
            players=self.players,
            variant=spb.SmearVariant(with_joker=self._joker, dealer_forced_bid=self._forced,
                                     low_to_taker=self._low_to_taker, strict_follow=self._strict),
            target=R.TARGET, max_rounds=self._max_rounds, round=self.round_no, dealer=self.dealer,
            scores=self.scores).SerializeToString()
        self._round_cache = (key, b)
        return b

    def _calls_bytes(self) -> bytes:
        """Encoded ``calls`` of this round."""
        n = self.players
        return spb.SmearObservation(calls=[spb.SmearCall(seat=(self.dealer + 1 + i) % n, bid=x)
                                           for i, x in enumerate(self.calls)]).SerializeToString()

    def _tricks_bytes(self) -> bytes:
        """Encoded ``tricks`` (finished tricks of this round), extended by the
        tricks finished since the last call (``tricks`` is appended to, and
        replaced per round)."""
        tricks = self.tricks
        c = self.__dict__.get("_tricks_cache")
        if c is None or c[0] is not tricks or c[1] > len(tricks):
            c = (tricks, 0, b"")
        if c[1] < len(tricks):
            b = c[2] + spb.SmearObservation(tricks=[
                spb.SmearTrick(index=i, leader=ld, cards=cards, winner=w)
                for i, (ld, cards, w) in enumerate(tricks[c[1]:], c[1])]).SerializeToString()
            c = (tricks, len(tricks), b)
        self._tricks_cache = c
        return c[2]

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
