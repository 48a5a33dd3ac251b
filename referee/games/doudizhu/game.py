"""The Dou Dizhu match engine (shared/rules/doudizhu.md, ruleset ``doudizhu/1``).

See :class:`DouDizhu`. The rules themselves (classification, beating,
enumeration, auction, play phase, payments) live in
:mod:`referee.games.doudizhu.rules`.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from referee.engine import BID, PASS, PLAY, Action, Game, IllegalAction, MatchResult, RatingOutcome, ranks_from_scores
from referee.games.doudizhu import events as E
from referee.games.doudizhu import rules as R

_PASS_ACTION = Action(PASS)
_BID_ACTIONS = {b: Action(BID, (), b) for b in (1, 2, 3)}
#: realised legal plays per rank-level move and code groups (see rules.legal_plays_grouped)
_ACTION_MEMO: dict = {}
_new_action = Action.__new__
_setattr = object.__setattr__


def _play_action(cards: tuple[str, ...]) -> Action:
    # Same as Action(PLAY, cards, 0), without the frozen-dataclass __init__
    # overhead (this is the hot path of legal-action enumeration).
    a = _new_action(Action)
    _setattr(a, "kind", PLAY)
    _setattr(a, "cards", cards)
    _setattr(a, "amount", 0)
    return a


def play_record(seat: int, cards: tuple[str, ...], combo: tuple | None) -> E.Play:
    """The :class:`events.Play` of a play (``combo`` from :func:`rules.classify`) or a pass (``combo is None``)."""
    if combo is None:
        return E.Play(seat)
    return E.Play(seat, cards, combo[0], R.RANK_NAMES[combo[1]], combo[2])


class DouDizhu(Game):
    """One Dou Dizhu match for 3 or 4 seats (spec §1-§11).

    **Configuration.** ``variant``: ``{"spring": bool}`` (§11, default
    ``False``). ``params``: ``{"rounds": int}`` (§9 [GAME-1], default 12;
    every deal counts, redeals included).

    **Decisions and action vocabulary.**

    * ``decision_kind() == "BID"`` (auction, §4): ``Action("PASS")`` passes
      (the spec's amount 0); ``Action("BID", amount=b)`` bids ``b`` in 1..3,
      legal when ``b`` exceeds the high bid ([AUC-3]). The legal list is
      complete: ``PASS`` then each legal ``BID`` in ascending order.
    * ``decision_kind() == "PLAY"`` (§7): ``Action("PLAY", cards=codes)``
      plays that code multiset; ``Action("PASS")`` passes (only when there
      is a top, [PLAY-2]). The legal list is **complete**: with a top it is
      ``PASS`` first, then every code multiset that is a combination beating
      the top; when leading, every code multiset of the hand that is a
      combination. Plays are listed by type (§5.3 order, bombs and rocket
      last), then ascending ordering rank, then chain length, then the
      canonical order of the codes; each play's codes are in canonical
      order (§2.3). Two plays differing only in suits are different
      entries (§7.1).

    **Errors** (``IllegalAction.rule``): ``TURN`` (not this seat's turn, or
    the match is over), ``AUC-3`` (bad amount or kind in the auction),
    ``PLAY-2`` (pass on a lead), ``PLAY-3`` (empty play, card not in hand,
    wrong kind in the play phase), ``COMB-3`` (malformed card code),
    ``COMB-1``/``COMB-2`` (not a combination), ``PLAY-4`` (does not beat
    the top). The state is unchanged after an error.

    **Events** (records of :mod:`referee.games.doudizhu.events`): per round a
    public ``Deal`` (no hand) then a private ``Deal`` to each seat with its
    hand; public ``Call`` per auction action; public ``AuctionEnd`` (landlord,
    bid and kitty, or redeal); public ``Play`` per play or pass; public
    ``TrickEnd``; public ``RoundEnd`` (also after a redeal); public ``MatchEnd``.

    **State a view reads** (:mod:`referee.games.doudizhu.view`, §10):
    ``players``, ``round``, ``params["rounds"]``, ``scores``, ``hands`` (per
    seat, canonical order), ``phase`` (``"auction"``, ``"play"``, ``"over"``),
    ``marker``, ``first_bidder``, ``spring``, ``auction`` (:class:`rules.Auction`:
    ``calls``, ``high``, ``bid``), ``playp`` (:class:`rules.PlayPhase` while
    playing: ``landlord``, ``top_cards``, ``top_seat``, ``passes``,
    ``doublings``), ``kitty``, ``played`` (this round's played cards),
    ``history`` (this round's ``Play`` records), :meth:`trick` and ``results``
    (``RoundEnd`` records of the finished rounds).

    **Hidden zones** (leak tests): ``"hand<j>"`` for every other seat ``j``
    (minus the cards whose location is public: the marker while its holder
    has not played that code, and the kitty cards in the landlord's hand
    while not played), and ``"kitty"`` while it is face down (auction, or
    after a redeal).
    """

    name = "doudizhu"
    player_counts = (3, 4)
    ruleset = "doudizhu/1"
    variant_defaults = {"spring": False}
    param_defaults = {"rounds": 12}

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        super().__init__(players, variant, params, rng)
        rounds = self.params["rounds"]
        if type(rounds) is not int or rounds < 1:
            raise ValueError(f"doudizhu: match parameter 'rounds' must be a positive integer, got {rounds!r}")
        self.spring = bool(self.variant["spring"])
        self._deck = R.deck(players)
        self.round = 0
        self.scores = [0] * players
        self.outcomes: list[RatingOutcome] = []
        self.results: list[E.RoundEnd] = []  # one per finished round, redeals included
        self._version = 0  # bumped by every applied action (keys the legal-actions cache)
        self._legal_cache: tuple[int, tuple[Action, ...]] | None = None
        self._start_round()

    # ------------------------------------------------------------------ rounds
    def _start_round(self) -> None:
        """[DEAL-1]..[DEAL-3]: shuffle, deal, pick the marker, open the auction."""
        n = self.players
        self.round += 1
        d = self._deck[:]
        self.rng.shuffle(d)
        H = R.hand_size(n)
        nh = n * H
        self.hands = [R.sort_cards(d[s:nh:n]) for s in range(n)]
        self.kitty = R.sort_cards(d[nh:])
        pos = self.rng.randrange(nh)
        self.marker = d[pos]
        self.first_bidder = pos % n
        self.auction = R.Auction(n, self.first_bidder)
        self.playp: R.PlayPhase | None = None
        self.phase = "auction"
        self.kitty_shown = False
        self.history: list[E.Play] = []
        self.played: list[str] = []
        self._to_act: int | None = self.first_bidder
        sizes = (H,) * n
        self.emit(E.Deal(self.round, self.marker, self.first_bidder, sizes))
        for s in range(n):
            self.emit(E.Deal(self.round, self.marker, self.first_bidder, sizes, tuple(self.hands[s]), s), to=s)

    def _end_round(self, redeal: bool) -> None:
        n = self.players
        if redeal:
            deltas, m, spring, winner, lw, landlord, bid, d = [0] * n, 1, False, -1, False, -1, 0, 0
        else:
            p = self._play_phase()
            deltas, m, spring = p.multiplier_and_deltas(self.auction.bid, self.spring)
            winner, lw, landlord, bid, d = p.winner, p.landlord_won, p.landlord, self.auction.bid, p.doublings
            self.hands = p.hands
            peasants = [s for s in range(n) if s != landlord]
            self.outcomes.append(RatingOutcome([[landlord], peasants], [0, 1] if lw else [1, 0]))
        for s in range(n):
            self.scores[s] += deltas[s]
        rec = E.RoundEnd(self.round, winner, lw, m, spring, tuple(deltas), tuple(self.scores), redeal, landlord,
                         bid, d)
        self.results.append(rec)
        self.emit(rec)
        if self.round >= self.params["rounds"]:
            self.phase = "over"
            self._to_act = None
            self.emit(E.MatchEnd(tuple(self.scores), tuple(ranks_from_scores(self.scores))))
        else:
            self._start_round()

    # ------------------------------------------------------------------ turn
    @property
    def to_act(self) -> int | None:
        """Seat to act, ``None`` once the match is over."""
        return self._to_act

    def _play_phase(self) -> R.PlayPhase:
        """The play phase; only called while ``phase`` is ``"play"``."""
        p = self.playp
        assert p is not None, "called outside the play phase"
        return p

    def _decision_kind(self) -> str:
        """``"BID"`` during the auction, ``"PLAY"`` during play."""
        return BID if self.phase == "auction" else PLAY

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """Complete legal list of :attr:`to_act` (see the class docstring for
        its order). Cached per state."""
        c = self._legal_cache
        if c is not None and c[0] == self._version:
            return c[1], True
        if self.phase == "auction":
            acts = tuple([_BID_ACTIONS[b] if b else _PASS_ACTION for b in self.auction.legal_amounts()])
        else:
            p = self._play_phase()
            plays = p.legal(_play_action, _ACTION_MEMO)
            acts = (_PASS_ACTION, *plays) if p.top is not None else tuple(plays)
        self._legal_cache = (self._version, acts)
        return acts, True

    def legal_play_count(self) -> int:
        """Number of entries :meth:`legal_actions` returns, computed without
        building them (for benchmarks and bots' sampling); 0 once the match is over."""
        if self.phase == "auction":
            return 4 - self.auction.high
        if self.phase == "play":
            p = self._play_phase()
            seat = p.to_act
            assert seat is not None, "a seat acts while the phase is play"
            return R.count_legal_plays(p.hands[seat], self.players, p.top) + (p.top is not None)
        return 0

    def _validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would."""
        self._check(seat, action)

    def _check(self, seat: int, action: Action):
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn, not seat {seat}'s")
        kind = action.kind
        if self.phase == "auction":
            if kind == PASS:
                if action.amount:
                    raise IllegalAction("AUC-3", "a PASS carries no amount")
                amount = 0
            elif kind == BID:
                amount = action.amount
                if amount == 0:
                    raise IllegalAction("AUC-3", "a bid must be 1, 2 or 3 units (pass with PASS)")
            else:
                raise IllegalAction("AUC-3", f"the auction takes PASS or BID, not {kind}")
            if action.cards:
                raise IllegalAction("AUC-3", "an auction call carries no cards")
            self.auction.check(amount)
            return amount
        p = self._play_phase()
        if action.amount and kind in (PASS, PLAY):
            raise IllegalAction("PLAY-3", f"a {kind} carries no amount")
        if kind == PASS:
            if action.cards:
                raise IllegalAction("PLAY-3", "a pass carries no cards")
            return p.check(seat, ())
        if kind != PLAY:
            raise IllegalAction("PLAY-3", f"the play phase takes PLAY or PASS, not {kind}")
        if not action.cards:
            raise IllegalAction("PLAY-3", "a play must hold at least one card (use PASS to pass)")
        return p.check(seat, action.cards)

    def _apply(self, seat: int, action: Action) -> None:
        """Validate (see :meth:`validate`) then apply ``action`` by ``seat``.
        Raises :class:`IllegalAction` and leaves the state unchanged on error."""
        checked = self._check(seat, action)
        self._version += 1
        if self.phase == "auction":
            self._apply_call(seat, checked)
        elif checked is None:
            self._apply_pass(seat)
        else:
            self._apply_play(seat, tuple(R.sort_cards(action.cards)), checked)

    def _apply_call(self, seat: int, amount: int) -> None:
        a = self.auction
        a.apply(amount)
        self.emit(E.Call(seat, amount))
        if a.outcome is None:
            self._to_act = a.to_act
        elif a.outcome == "redeal":
            self.emit(E.AuctionEnd(True, -1, 0, ()))
            self._end_round(redeal=True)
        else:
            # [AUC-8]: kitty shown to all, then added to the landlord's hand
            self.kitty_shown = True
            self.emit(E.AuctionEnd(False, a.landlord, a.bid, tuple(self.kitty)))
            hands = [h[:] for h in self.hands]
            hands[a.landlord].extend(self.kitty)
            self.playp = R.PlayPhase(self.players, a.landlord, hands)
            self.hands = self.playp.hands  # one list per seat, kept by the play phase from now on
            self.phase = "play"
            self._to_act = a.landlord  # [PLAY-1]

    def _apply_pass(self, seat: int) -> None:
        p = self._play_phase()
        rec = E.Play(seat)
        self.history.append(rec)
        self.emit(rec)
        ended = p.pass_(seat)
        leader = p.to_act
        assert leader is not None, "a pass never ends the round"
        if ended:
            self.emit(E.TrickEnd(leader))
        self._to_act = leader

    def _apply_play(self, seat: int, cards: tuple[str, ...], combo: tuple) -> None:
        p = self._play_phase()
        rec = play_record(seat, cards, combo)
        self.history.append(rec)
        self.played.extend(cards)
        self.emit(rec)
        if p.play(seat, cards, combo):
            self._end_round(redeal=False)
        else:
            self._to_act = p.to_act

    def _fallback_action(self) -> Action:
        """§7.3: PASS in the auction and when there is a top; when leading,
        the first card of the hand in canonical order as a single."""
        if self.phase == "auction":
            return _PASS_ACTION
        p = self._play_phase()
        if p.top is not None:
            return _PASS_ACTION
        seat = p.to_act
        assert seat is not None, "a seat acts while the phase is play"
        return Action(PLAY, (p.hands[seat][0],))

    def trick(self) -> list[E.Play]:
        """The plays and passes of the current trick (the last entries of
        :attr:`history`); empty in the auction."""
        p = self.playp
        if self.phase == "auction" or p is None or not p.trick:
            return []
        return self.history[len(self.history) - len(p.trick):]

    def result(self) -> MatchResult:
        """Money per seat (§9), ranks by money (ties share), one
        landlord-vs-peasants :class:`RatingOutcome` per round played (redeals
        excluded). Raises ``RuntimeError`` before the match is over."""
        if self._to_act is not None:
            raise RuntimeError("doudizhu: the match is not over")
        rounds = [{"round": r.round, "redeal": r.redeal, "landlord": r.landlord, "bid": r.bid, "winner": r.winner,
                   "landlord_won": r.landlord_won, "doublings": r.doublings, "multiplier": r.multiplier,
                   "spring": r.spring, "deltas": list(r.deltas)} for r in self.results]
        return MatchResult(scores=list(self.scores), ranks=ranks_from_scores(self.scores),
                           outcomes=list(self.outcomes),
                           summary={"players": self.players, "rounds": rounds,
                                    "redeals": sum(1 for r in self.results if r.redeal)})

    # ------------------------------------------------------------------ cards
    def deck(self) -> tuple[str, ...]:
        """The pack (§2.1): 54 cards for 3 seats, two packs (108) for 4."""
        return tuple(self._deck)

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """``hand<j>`` per seat, ``kitty`` while face down (once shown it is in
        the landlord's hand), ``played`` this round."""
        zones = {f"hand{j}": tuple(h) for j, h in enumerate(self.hands)}
        if not self.kitty_shown:
            zones["kitty"] = tuple(self.kitty)
        zones["played"] = tuple(self.played)
        return zones

    # ------------------------------------------------------------------ hidden information
    def _known(self) -> list[dict[str, int]]:
        """Per seat, the multiset of its cards whose location is public: the
        marker (first bidder) and the kitty (landlord), minus what that seat
        has played of those codes this round."""
        known: list[dict[str, int]] = [{} for _ in range(self.players)]
        fb = known[self.first_bidder]
        fb[self.marker] = 1
        if self.kitty_shown:
            lk = known[self.auction.landlord]
            for c in self.kitty:
                lk[c] = lk.get(c, 0) + 1
            for play in self.history:
                k = known[play.seat]
                for c in play.cards:
                    if k.get(c, 0) > 0:
                        k[c] -= 1
        return known

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """``{"hand<j>": [...] for each other seat j, "kitty": [...] while face
        down}``: the cards ``seat`` cannot locate (canonical order)."""
        known = self._known()
        zones: dict[str, list[str]] = {}
        for j in range(self.players):
            if j == seat:
                continue
            k = dict(known[j])
            rest = []
            for c in self.hands[j]:
                if k.get(c, 0) > 0:
                    k[c] -= 1
                else:
                    rest.append(c)
            zones[f"hand{j}"] = rest
        if not self.kitty_shown:
            zones["kitty"] = list(self.kitty)
        return zones

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "DouDizhu":
        """Deep copy whose hidden places hold ``zones`` (same keys and sizes as
        :meth:`hidden_zones` of some seat). Raises ``ValueError`` otherwise."""
        seats = [j for j in range(self.players) if f"hand{j}" not in zones]
        if len(seats) != 1:
            raise ValueError("with_hidden_zones: zones must name every hand but one")
        ref = self.hidden_zones(seats[0])
        if set(ref) != set(zones) or any(len(ref[k]) != len(zones[k]) for k in ref):
            raise ValueError("with_hidden_zones: zones must have the keys and sizes of hidden_zones()")
        g = copy.deepcopy(self)
        known = g._known()
        for j in range(g.players):
            key = f"hand{j}"
            if key not in zones:
                continue
            h = list(zones[key]) + [c for c, k in known[j].items() for _ in range(k)]
            if g.playp is not None:
                g.playp.set_hand(j, h)
            else:
                g.hands[j][:] = R.sort_cards(h)
        if "kitty" in zones:
            g.kitty = R.sort_cards(zones["kitty"])
        g._legal_cache = None
        return g
