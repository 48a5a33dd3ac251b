"""The Dou Dizhu match engine (shared/rules/doudizhu.md, ruleset ``doudizhu/1``).

See :class:`DouDizhu`. The rules themselves (classification, beating,
enumeration, auction, play phase, payments) live in
:mod:`referee.games.doudizhu.rules`.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from cardgames.v1 import doudizhu_pb2 as dpb
from referee.engine import (BID, PASS, PLAY, Action, Event, Game, IllegalAction, MatchResult, RatingOutcome,
                            ranks_from_scores)
from referee.games import _wire as W
from referee.games.doudizhu import rules as R

_PASS_ACTION = Action(PASS)
_OBS_FROM = dpb.DouDizhuObservation.FromString
#: encoded ``seat`` field per seat (seat 0 is the default, so empty)
_SEAT_BYTES = [dpb.DouDizhuObservation(seat=s).SerializeToString() for s in range(4)]
#: encoded one-entry repeated-string fields per card code (a repeated string field
#: encodes as the concatenation of its entries)
_HAND_B = {c: dpb.DouDizhuObservation(hand=[c]).SerializeToString() for c in R.CANON_CODES}
_TOP_B = {c: dpb.DouDizhuObservation(top=[c]).SerializeToString() for c in R.CANON_CODES}
_PLAYED_B = {c: dpb.DouDizhuObservation(played=[c]).SerializeToString() for c in R.CANON_CODES}
#: field keys of the length-delimited ``history`` (22) and ``trick`` (14) entries
_HISTORY_KEY = bytes([22 << 3 | 2, 1])
_TRICK_KEY = bytes([14 << 3 | 2])
#: encoded ``DouDizhuPlay`` parts (fields seat=1, cards=2, then type/rank/length 3-5, so an
#: entry is their concatenation in that order)
_PLAY_SEAT_B = [dpb.DouDizhuPlay(seat=s).SerializeToString() for s in range(4)]
_PLAY_CARD_B = {c: dpb.DouDizhuPlay(cards=[c]).SerializeToString() for c in R.CANON_CODES}
_COMBO_B: dict[tuple, bytes] = {}
_EVENT_FROM = dpb.DouDizhuEvent.FromString
_EVENT_PLAY_KEY = bytes([4 << 3 | 2])  # DouDizhuEvent.play
#: encoded call events by (seat, amount) and trick_end events by leader (a few entries each)
_CALL_EV: dict[tuple[int, int], bytes] = {}
_TRICK_END_EV: dict[int, bytes] = {}
#: encoded per-state scalars, by (phase, high bid, top seat, passes, doublings)
_DYN_MEMO: dict[tuple, bytes] = {}
#: key and length of the packed ``hand_sizes`` field (6) for n seats
_HAND_SIZES_KEY = {n: bytes([6 << 3 | 2, n]) for n in (3, 4)}


#: protobuf varint of a length
_len_prefix = W.varint
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

    **Events** (``DouDizhuEvent``): per round a public ``deal`` (no hand)
    then a private ``deal`` to each seat with its hand; public ``call`` per
    auction action; public ``auction_end`` (landlord, bid and kitty, or
    redeal); public ``play`` per play or pass; public ``trick_end``; public
    ``round_end`` (also after a redeal); public ``match_end``. Event
    protobufs are built lazily in :meth:`pop_events` so the engine's hot
    path stays protobuf-free.

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
        self.n = players
        self._spring_on = bool(self.variant["spring"])
        self._deck = R.deck(players)
        self.round = 0
        self.scores = [0] * players
        self.outcomes: list[RatingOutcome] = []
        self.results: list[tuple] = []  # per round: (round, winner, landlord_won, m, spring, deltas, scores, redeal, landlord, bid, d)
        self._raw: list[tuple] = []  # pending events, (to, kind, data...), materialised by pop_events
        self._version = 0
        self._legal_cache: tuple[int, tuple[list[Action], bool]] | None = None
        self._reset_obs_caches()
        self._start_round()

    def _reset_obs_caches(self) -> None:
        self._obs_cache: list | None = None  # see _public_lists_bytes
        self._shared_cache: tuple | None = None  # see _shared_bytes
        self._static_cache: tuple | None = None  # see _static_bytes
        self._played_cache: list | None = None  # see _played_bytes
        self._hand_cache: list = [None] * self.n  # see _hand_bytes
        self._last_play: tuple | None = None  # see pop_events

    # ------------------------------------------------------------------ rounds
    def _start_round(self) -> None:
        """[DEAL-1]..[DEAL-3]: shuffle, deal, pick the marker, open the auction."""
        n = self.n
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
        self.history: list[tuple[int, tuple[str, ...], tuple | None]] = []
        self.played: list[str] = []
        self._to_act: int | None = self.first_bidder
        self._raw.append((None, "deal", self.round, self.marker, self.first_bidder, (H,) * n, None))
        for s in range(n):
            self._raw.append((s, "deal", self.round, self.marker, self.first_bidder, (H,) * n, tuple(self.hands[s])))

    def _end_round(self, redeal: bool) -> None:
        n = self.n
        if redeal:
            deltas, m, spring, winner, lw, landlord, bid, d = [0] * n, 1, False, -1, False, -1, 0, 0
        else:
            p = self.playp
            deltas, m, spring = p.multiplier_and_deltas(self.auction.bid, self._spring_on)
            winner, lw, landlord, bid, d = p.winner, p.landlord_won, p.landlord, self.auction.bid, p.doublings
            self.hands = p.hands
            peasants = [s for s in range(n) if s != landlord]
            self.outcomes.append(RatingOutcome([[landlord], peasants], [0, 1] if lw else [1, 0]))
        for s in range(n):
            self.scores[s] += deltas[s]
        rec = (self.round, winner, lw, m, spring, tuple(deltas), tuple(self.scores), redeal, landlord, bid, d)
        self.results.append(rec)
        self._raw.append((None, "round_end") + rec)
        if self.round >= self.params["rounds"]:
            self.phase = "over"
            self._to_act = None
            self._raw.append((None, "match_end", tuple(self.scores), tuple(ranks_from_scores(self.scores))))
        else:
            self._start_round()

    # ------------------------------------------------------------------ turn
    @property
    def to_act(self) -> int | None:
        """Seat to act, ``None`` once the match is over."""
        return self._to_act

    def decision_kind(self) -> str:
        """``"BID"`` during the auction, ``"PLAY"`` during play. Raises
        ``RuntimeError`` once the match is over."""
        if self.phase == "auction":
            return BID
        if self.phase == "play":
            return PLAY
        raise RuntimeError("doudizhu: the match is over; no decision is pending")

    def legal_actions(self) -> tuple[list[Action], bool]:
        """Complete legal list of :attr:`to_act` (see the class docstring for
        its order); ``([], True)`` once the match is over. Cached per state."""
        c = self._legal_cache
        if c is not None and c[0] == self._version:
            return list(c[1][0]), True  # a copy: callers may reorder their list
        if self.phase == "auction":
            acts = [_BID_ACTIONS[b] if b else _PASS_ACTION for b in self.auction.legal_amounts()]
        elif self.phase == "play":
            p = self.playp
            plays = p.legal(_play_action, _ACTION_MEMO)
            if p.top is not None:
                acts = [_PASS_ACTION]
                acts.extend(plays)
            else:
                acts = plays
        else:
            acts = []
        self._legal_cache = (self._version, (acts, True))
        return list(acts), True

    def legal_play_count(self) -> int:
        """Number of entries :meth:`legal_actions` returns, computed without
        building them (for benchmarks and bots' sampling)."""
        if self.phase == "auction":
            return 4 - self.auction.high
        if self.phase == "play":
            p = self.playp
            return R.count_legal_plays(p.hands[p.to_act], self.n, p.top) + (p.top is not None)
        return 0

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` exactly when :meth:`apply` would."""
        self._check(seat, action)

    def _check(self, seat: int, action: Action):
        if self._to_act is None:
            raise IllegalAction("TURN", "the match is over")
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
        p = self.playp
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

    def apply(self, seat: int, action: Action) -> None:
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
        self._raw.append((None, "call", seat, amount))
        if a.outcome is None:
            self._to_act = a.to_act
        elif a.outcome == "redeal":
            self._raw.append((None, "auction_end", True, -1, 0, ()))
            self._end_round(redeal=True)
        else:
            # [AUC-8]: kitty shown to all, then added to the landlord's hand
            self.kitty_shown = True
            self._raw.append((None, "auction_end", False, a.landlord, a.bid, tuple(self.kitty)))
            hands = [h[:] for h in self.hands]
            hands[a.landlord].extend(self.kitty)
            self.playp = R.PlayPhase(self.n, a.landlord, hands)
            self.hands = self.playp.hands
            self.phase = "play"
            self._to_act = a.landlord  # [PLAY-1]

    def _apply_pass(self, seat: int) -> None:
        p = self.playp
        h = self.history
        h.append((seat, (), None))
        self._raw.append((None, "play", seat, (), None, self.round, len(h) - 1))
        if p.pass_(seat):
            self._raw.append((None, "trick_end", p.to_act))
        self._to_act = p.to_act

    def _apply_play(self, seat: int, cards: tuple[str, ...], combo: tuple) -> None:
        p = self.playp
        h = self.history
        h.append((seat, cards, combo))
        self.played.extend(cards)
        self._raw.append((None, "play", seat, cards, combo, self.round, len(h) - 1))
        hand = self.hands[seat]
        hc = self._hand_cache[seat]
        if p.play(seat, cards, combo):
            self._end_round(redeal=False)
        else:
            self._to_act = p.to_act
            if hc is not None and hc[0] is hand and hc[1] == len(hand) + len(cards):
                # keep the seat's hand encoding in step (see _hand_bytes): drop the played cards'
                # entries (a fixed 4-byte pattern each, which cannot straddle two entries)
                b = hc[2]
                for c in cards:
                    b = b.replace(_HAND_B[c], b"", 1)
                self._hand_cache[seat] = (hand, len(hand), b)

    def fallback_action(self) -> Action:
        """§7.3: PASS in the auction and when there is a top; when leading,
        the first card of the hand in canonical order as a single."""
        if self.phase == "auction":
            return _PASS_ACTION
        if self.phase == "play":
            p = self.playp
            if p.top is not None:
                return _PASS_ACTION
            return Action(PLAY, (p.hands[p.to_act][0],))
        raise RuntimeError("doudizhu: the match is over; no decision is pending")

    # ------------------------------------------------------------------ events
    def pop_events(self) -> list[Event]:
        """Events since the last call, as ``DouDizhuEvent`` protobufs (built here)."""
        raw, self._raw = self._raw, []
        out = self._events
        self._events = []
        for r in raw:
            if r[1] == "play":
                # (None, "play", seat, cards, combo, round, history index): the encoded play is
                # kept for the observation's history entry (see _public_lists_bytes)
                m = _play_bytes(r[2], r[3], r[4])
                self._last_play = (r[5], r[6], m)
                out.append(Event(encoded=_EVENT_PLAY_KEY + _len_prefix(len(m)) + m, parse=_EVENT_FROM))
            else:
                out.append(_event(r))
        return out

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dpb.DouDizhuObservation:
        """The seat's ``DouDizhuObservation`` (§10): its own hand plus the public state.

        Parsed from cached encodings: the part shared by every seat is built
        once per state (:meth:`_shared_bytes`), the seat's hand is re-encoded
        only when it changes, so an observation costs about the same late in
        a round as early."""
        return _OBS_FROM(self._shared_bytes() + self._hand_bytes(seat) + _SEAT_BYTES[seat])

    def observation_bytes(self, seat: int) -> bytes:
        """:meth:`observation` encoded (the bytes it parses)."""
        return self._shared_bytes() + self._hand_bytes(seat) + _SEAT_BYTES[seat]

    def _hand_bytes(self, seat: int) -> bytes:
        """Encoded ``hand`` of ``seat`` (hands only shrink in place within a round,
        or are replaced: keyed by the list and its length; :meth:`_apply_play`
        drops a play's cards from the cached encoding)."""
        h = self.hands[seat]
        c = self._hand_cache
        hit = c[seat]
        if hit is not None and hit[0] is h and hit[1] == len(h):
            return hit[2]
        b = b"".join(map(_HAND_B.__getitem__, h))
        c[seat] = (h, len(h), b)
        return b

    def _static_bytes(self, p: R.PlayPhase | None) -> bytes:
        """Encoded fields fixed within a round phase: players, round, rounds,
        scores, marker, first bidder, spring, landlord, bid, kitty and the
        results of the finished rounds."""
        key = (self.round, p is not None, len(self.results))
        c = self._static_cache
        if c is not None and c[0] == key:
            return c[1]
        o = dpb.DouDizhuObservation(
            players=self.n, round=self.round, rounds=self.params["rounds"], scores=self.scores,
            marker=self.marker, first_bidder=self.first_bidder, spring=self._spring_on, landlord=-1)
        if p is not None:
            o.landlord = p.landlord
            o.bid = self.auction.bid
            o.kitty.extend(self.kitty)
        if self.results:
            o.results.extend(_round_end_pb(r) for r in self.results)
        b = o.SerializeToString()
        self._static_cache = (key, b)
        return b

    def _played_bytes(self) -> bytes:
        """Encoded ``played`` of this round, extended incrementally."""
        pl = self.played
        c = self._played_cache
        if c is None or c[0] is not pl:
            c = self._played_cache = [pl, 0, b""]
        if c[1] < len(pl):
            c[2] += b"".join(map(_PLAYED_B.__getitem__, pl[c[1]:]))
            c[1] = len(pl)
        return c[2]

    def _shared_bytes(self) -> bytes:
        """Encoded observation fields common to every seat, once per state."""
        c = self._shared_cache
        if c is not None and c[0] == self._version:
            return c[1]
        p = self.playp if self.phase != "auction" else None
        if p is not None:
            key = (self.phase, self.auction.high, p.top_seat, p.passes, p.doublings)
        else:
            key = (self.phase, self.auction.high, -1, 0, 0)
        dyn = _DYN_MEMO.get(key)
        if dyn is None:
            dyn = _DYN_MEMO[key] = dpb.DouDizhuObservation(
                phase=key[0], high_bid=key[1], top_seat=key[2], passes=key[3], doublings=key[4],
                multiplier=1 << key[4]).SerializeToString()
        # hand_sizes: packed, n one-byte varints (every size < 128)
        parts = [self._static_bytes(p), dyn, _HAND_SIZES_KEY[self.n], bytes(map(len, self.hands))]
        if p is not None:
            parts += map(_TOP_B.__getitem__, p.top_cards)
            parts.append(self._played_bytes())
            parts += self._public_lists_bytes(len(p.trick))
        else:
            parts += self._public_lists_bytes(0)
        b = b"".join(parts)
        self._shared_cache = (self._version, b)
        return b

    def _public_lists_bytes(self, trick_len: int) -> list[bytes]:
        """Serialised ``calls``, ``history`` and ``trick`` (its last ``trick_len``
        history entries) fields of this round, extended incrementally, as parts
        to concatenate."""
        c = self._obs_cache
        if c is None or c[0] != self.round:
            # (round, calls encoded, calls bytes, history entries as trick bytes, history bytes)
            c = [self.round, 0, b"", [], b""]
            self._obs_cache = c
        calls = self.auction.calls
        if c[1] < len(calls):
            c[2] += dpb.DouDizhuObservation(
                calls=[dpb.DouDizhuCall(seat=s, amount=a) for s, a in calls[c[1]:]]).SerializeToString()
            c[1] = len(calls)
        entries = c[3]
        if len(entries) < len(self.history):
            hist = c[4]
            last = self._last_play  # (round, history index, encoding) of the last play event built
            for i, (s, cards, cb) in enumerate(self.history[len(entries):], len(entries)):
                if last is not None and last[1] == i and last[0] == self.round:
                    m = last[2]
                else:
                    m = _play_bytes(s, cards, cb)
                m = _len_prefix(len(m)) + m
                hist += _HISTORY_KEY + m
                entries.append(_TRICK_KEY + m)
            c[4] = hist
        if trick_len:
            return [c[2], c[4], *entries[len(entries) - trick_len:]]
        return [c[2], c[4]]

    def result(self) -> MatchResult:
        """Money per seat (§9), ranks by money (ties share), one
        landlord-vs-peasants :class:`RatingOutcome` per round played (redeals
        excluded). Raises ``RuntimeError`` before the match is over."""
        if self._to_act is not None:
            raise RuntimeError("doudizhu: the match is not over")
        rounds = [{"round": r[0], "redeal": r[7], "landlord": r[8], "bid": r[9], "winner": r[1],
                   "landlord_won": r[2], "doublings": r[10], "multiplier": r[3], "spring": r[4],
                   "deltas": list(r[5])} for r in self.results]
        return MatchResult(scores=list(self.scores), ranks=ranks_from_scores(self.scores),
                           outcomes=list(self.outcomes),
                           summary={"players": self.n, "rounds": rounds,
                                    "redeals": sum(1 for r in self.results if r[7])})

    # ------------------------------------------------------------------ hidden information
    def _known(self) -> list[dict[str, int]]:
        """Per seat, the multiset of its cards whose location is public: the
        marker (first bidder) and the kitty (landlord), minus what that seat
        has played of those codes this round."""
        known: list[dict[str, int]] = [{} for _ in range(self.n)]
        fb = known[self.first_bidder]
        fb[self.marker] = 1
        if self.kitty_shown:
            lk = known[self.auction.landlord]
            for c in self.kitty:
                lk[c] = lk.get(c, 0) + 1
            for s, cards, _ in self.history:
                k = known[s]
                for c in cards:
                    if k.get(c, 0) > 0:
                        k[c] -= 1
        return known

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """``{"hand<j>": [...] for each other seat j, "kitty": [...] while face
        down}``: the cards ``seat`` cannot locate (canonical order)."""
        known = self._known()
        zones: dict[str, list[str]] = {}
        for j in range(self.n):
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
        seats = [j for j in range(self.n) if f"hand{j}" not in zones]
        if len(seats) != 1:
            raise ValueError("with_hidden_zones: zones must name every hand but one")
        ref = self.hidden_zones(seats[0])
        if set(ref) != set(zones) or any(len(ref[k]) != len(zones[k]) for k in ref):
            raise ValueError("with_hidden_zones: zones must have the keys and sizes of hidden_zones()")
        g = copy.deepcopy(self)
        known = g._known()
        for j in range(g.n):
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
        g._reset_obs_caches()
        return g


# ---------------------------------------------------------------------- protobuf builders

def _play_pb(seat: int, cards: tuple[str, ...], combo: tuple | None) -> dpb.DouDizhuPlay:
    if combo is None:
        return dpb.DouDizhuPlay(seat=seat)
    return dpb.DouDizhuPlay(seat=seat, cards=cards, type=combo[0], rank=R.RANK_NAMES[combo[1]], length=combo[2])


def _play_bytes(seat: int, cards: tuple[str, ...], combo: tuple | None) -> bytes:
    """``_play_pb(seat, cards, combo).SerializeToString()`` from precomputed parts."""
    if combo is None:
        return _PLAY_SEAT_B[seat]
    cb = _COMBO_B.get(combo)
    if cb is None:
        cb = _COMBO_B[combo] = dpb.DouDizhuPlay(
            type=combo[0], rank=R.RANK_NAMES[combo[1]], length=combo[2]).SerializeToString()
    return _PLAY_SEAT_B[seat] + b"".join(map(_PLAY_CARD_B.__getitem__, cards)) + cb


def _round_end_pb(rec: tuple) -> dpb.DouDizhuRoundEnd:
    rnd, winner, lw, m, spring, deltas, scores, redeal, landlord, bid, d = rec
    return dpb.DouDizhuRoundEnd(round=rnd, winner=winner, landlord_won=lw, multiplier=m, spring=spring,
                                deltas=deltas, scores=scores, redeal=redeal, landlord=landlord, bid=bid,
                                doublings=d)


def _event_bytes(r: tuple) -> bytes | None:
    """The encoded ``DouDizhuEvent`` of a raw event of the frequent kinds
    (play, call, trick end; the latter two memoised), else ``None``."""
    kind = r[1]
    if kind == "play":
        m = _play_bytes(r[2], r[3], r[4])
        return _EVENT_PLAY_KEY + _len_prefix(len(m)) + m
    if kind == "call":
        b = _CALL_EV.get(r[2:4])
        if b is None:
            b = _CALL_EV[r[2:4]] = dpb.DouDizhuEvent(
                call=dpb.DouDizhuCall(seat=r[2], amount=r[3])).SerializeToString()
        return b
    if kind == "trick_end":
        b = _TRICK_END_EV.get(r[2])
        if b is None:
            b = _TRICK_END_EV[r[2]] = dpb.DouDizhuEvent(
                trick_end=dpb.DouDizhuTrickEnd(leader=r[2])).SerializeToString()
        return b
    return None


def _event(r: tuple) -> Event:
    """The :class:`Event` of a raw event (see :meth:`DouDizhu.pop_events`): carrying
    its encoding for the kinds :func:`_event_bytes` has, else the message."""
    b = _event_bytes(r)
    if b is not None:
        return Event(None, r[0], encoded=b, parse=_EVENT_FROM)
    return Event(_event_pb(r), r[0])


def _event_pb(r: tuple) -> dpb.DouDizhuEvent:
    """The ``DouDizhuEvent`` of a raw event of the kinds :func:`_event_bytes` has not."""
    kind = r[1]
    if kind == "deal":
        _, _, rnd, marker, fb, sizes, hand = r
        return dpb.DouDizhuEvent(deal=dpb.DouDizhuDeal(round=rnd, marker=marker, first_bidder=fb, hand_sizes=sizes,
                                                       hand=hand or (), seat=-1 if r[0] is None else r[0]))
    if kind == "auction_end":
        _, _, redeal, landlord, bid, kitty = r
        return dpb.DouDizhuEvent(auction_end=dpb.DouDizhuAuctionEnd(redeal=redeal, landlord=landlord, bid=bid,
                                                                    kitty=kitty))
    if kind == "round_end":
        return dpb.DouDizhuEvent(round_end=_round_end_pb(r[2:]))
    if kind == "match_end":
        return dpb.DouDizhuEvent(match_end=dpb.DouDizhuMatchEnd(scores=r[2], ranks=r[3]))
    raise ValueError(f"unknown event kind {kind!r}")
