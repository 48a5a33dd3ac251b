"""The play phase of one round: tricks, passes, skips, going out (spec 6.1-6.9).

:class:`RoundPlay` is the reference procedure of spec 6.9 as a small state
machine on plain data. The match engine (:class:`.game.PresidentGame`) owns
one per round and turns what it reports into events; the conformance query
``play_sequence`` drives one directly.
"""

from __future__ import annotations

from bisect import insort
from itertools import combinations
from typing import Any, Sequence

from .events import Play
from .rules import CARD_ORDER, RANK_OF, Rules, Top


class RoundPlay:
    """State of the play phase of one round (spec 6).

    Attributes (all plain data):

    * ``hands``: list indexed by seat of lists of card codes (shared with the
      match engine, mutated in place);
    * ``finished``: seats that went out, first out first (complete, all ``n``
      seats, once the round is over);
    * ``top``: ``None`` or ``(count, effective rank)``; ``last``: the seat
      that made the top (``-1`` when there is no top);
    * ``passed``: seats that passed or were auto-passed since the top was played;
    * ``to_act``: the seat to act, ``None`` once the round is over;
    * ``revolution``: the state R (spec 3.2, 6.3 step 3);
    * ``trick``: the actions of the current trick as :class:`.events.Play`
      records (``cards == ()`` for a pass, ``auto`` true for an automatic
      pass, spec 6.5; ``top``, ``revolution`` and ``hand_size`` as after the
      action);
    * ``played``: every card played this round, in card order (spec 3.3).

    After each :meth:`act`, ``ev_*`` attributes describe what happened, for
    the engine's events: ``ev_entries`` (the one or two trick records the
    action produced: the action, then an automatic pass if it caused a skip),
    ``ev_trick_end`` (``(last_player, next_leader)`` or ``None``) and
    ``ev_round_over``.
    """

    __slots__ = ("rules", "n", "hands", "finished", "top", "last", "passed", "to_act", "revolution",
                 "active", "trick", "leader", "played", "over", "groups", "ev_entries", "ev_trick_end", "ev_round_over")

    def __init__(self, rules: Rules, hands: list[list[str]], leader: int,
                 finished: Sequence[int] = (), revolution: bool = False):
        """Start the play of a round at a trick led by ``leader`` (spec 6.9 ``start_trick``).

        ``hands`` is used in place; ``finished`` lists seats already out (their
        hands must be empty); ``revolution`` is the initial state R.
        """
        self.rules = rules
        self.n = len(hands)
        self.hands = hands
        self.finished = list(finished)
        self.revolution = revolution
        self.active = sum(1 for h in hands if h)
        self.played: list[str] = []
        self.over = False
        self.groups: list[dict[str, Any] | None] = [None] * self.n
        self.ev_entries: list[Play] = []
        self.ev_trick_end: tuple[int, int] | None = None
        self.ev_round_over = False
        if self.active <= 1:
            self._end_round()
        else:
            self._start_trick(leader)

    # -- helpers -----------------------------------------------------------------
    def _start_trick(self, leader: int) -> None:
        self.top: Top = None
        self.last = -1
        self.passed: list[int] = []
        self.trick: list[Play] = []
        self.leader = leader
        self.to_act: int | None = leader

    def next_active(self, x: int) -> int:
        """First seat among x+1, x+2, ... (mod n) that holds a card (spec 6.9)."""
        hands, n = self.hands, self.n
        s = (x + 1) % n
        while not hands[s]:
            s = (s + 1) % n
        return s

    def _end_round(self) -> None:
        for s in range(self.n):
            if self.hands[s] and s not in self.finished:
                self.finished.append(s)
        # spec 12.9: top is null and nobody acts once the round is over. The
        # spec does not say what the revolution state reads then (section 7
        # discards it for the next round); we leave it as the last play made
        # it, so a round-ending four of a kind still shows its flip. The seed
        # text says nothing on this; the next round starts at false (6.8).
        self.top = None
        self.last = -1
        self.passed = []
        self.trick = []
        self.leader = -1
        self.to_act = None
        self.over = True
        self.ev_round_over = True

    # -- spec 6.2 ------------------------------------------------------------------
    def check(self, seat: int, cards: Sequence[str] | None) -> str | None:
        """Legality of ``cards`` (``None`` = pass) for ``seat`` now (spec 6.2):
        ``None`` if legal, else the reason. Does not check whose turn it is."""
        return self.rules.check_action(self.hands[seat], self.top, cards, self.revolution)

    def legal(self) -> list[tuple[str, ...] | None]:
        """Every legal action of :attr:`to_act`: ``None`` for a pass (first, when
        allowed), then every legal play as a tuple of cards, by rank (normal
        order), count, then card combination in card order. Complete (spec 6.1, 6.2)."""
        seat = self.to_act
        if seat is None:
            return []
        top = self.top
        out: list[tuple[str, ...] | None] = [] if top is None else [None]
        groups = self.groups[seat]
        if groups is None:
            groups = self.groups[seat] = rank_groups(self.hands[seat])
        allowed = self.rules.allowed_counts(top, self.revolution)
        for r, (cards, subsets) in groups.items():
            k = len(cards)
            for c in allowed[r]:
                if c > k:
                    break
                out.extend(subsets[c])
        return out

    def clone(self, hands: list[list[str]]) -> "RoundPlay":
        """A copy of this state playing on ``hands`` (the copied match's hand
        lists); caches are not copied."""
        c = RoundPlay.__new__(RoundPlay)
        for k in RoundPlay.__slots__:
            v = getattr(self, k)
            setattr(c, k, v[:] if isinstance(v, list) else v)
        c.hands = hands
        c.groups = [None] * self.n
        return c

    def invalidate(self) -> None:
        """Forget cached per-hand data (call after changing ``hands`` from outside)."""
        self.groups = [None] * self.n

    # -- spec 6.3-6.7, 6.9 ---------------------------------------------------------
    def act(self, seat: int, cards: Sequence[str] | None) -> None:
        """Apply a legal action of the seat to act (spec 6.9 ``act``).

        ``cards`` is ``None`` for a pass. The caller has checked the turn and
        legality (:meth:`check`); no validation happens here.
        """
        self.ev_trick_end = None
        self.ev_round_over = False
        hands = self.hands
        if cards is None:
            entry = Play(seat, (), False, False, self.top, self.revolution, len(hands[seat]), 0)
            self.passed.append(seat)
            self.trick.append(entry)
            self.ev_entries = [entry]
            cursor = seat
        else:
            cards = tuple(cards)
            hand = hands[seat]
            for code in cards:
                hand.remove(code)
            played = self.played
            for code in cards:
                insort(played, code, key=CARD_ORDER.__getitem__)
            c, r = len(cards), RANK_OF[cards[0]]
            groups = self.groups[seat]
            if groups is not None:  # keep the cached rank groups in step: only rank r changed
                rest = tuple([x for x in groups[r][0] if x not in cards])
                if rest:
                    groups[r] = _group_entry(rest)
                else:
                    del groups[r]
            top, self.revolution, skip, transparent = self.rules.effect(c, r, self.top, self.revolution)
            self.top = top
            self.last = seat
            self.passed = []
            place = 0
            if not hand:
                self.finished.append(seat)
                self.active -= 1
                place = len(self.finished)
            entry = Play(seat, cards, False, transparent, top, self.revolution, len(hand), place)
            self.trick.append(entry)
            self.ev_entries = [entry]
            if self.active <= 1:  # spec 6.7: before any skip or end-of-trick processing
                self._end_round()
                return
            cursor = seat
            if skip:
                q = self.next_active(seat)
                self.passed.append(q)
                entry = Play(q, (), True, False, top, self.revolution, len(hands[q]), 0)
                self.trick.append(entry)
                self.ev_entries.append(entry)
                cursor = q
        trick_over, nxt = self.trick_status(cursor)
        if trick_over:
            self.ev_trick_end = (self.last, nxt)
            self._start_trick(nxt)
        else:
            self.to_act = nxt

    def trick_status(self, cursor: int) -> tuple[bool, int]:
        """End-of-trick check after an action (spec 6.6, 6.9): ``(True, new
        leader)`` when every active seat other than the last player has passed
        since the top was played, else ``(False, first active seat after
        cursor)``; ``cursor`` is the seat that acted last (the auto-passed seat
        after a skip). Needs at least two active seats."""
        last, hands = self.last, self.hands
        if len(self.passed) >= self.active - (1 if hands[last] else 0):
            return True, (last if hands[last] else self.next_active(last))
        return False, self.next_active(cursor)


def _group_entry(cards: tuple[str, ...]) -> tuple[tuple[str, ...], list[list[tuple[str, ...]]]]:
    subsets: list[list[tuple[str, ...]]] = [[], [(x,) for x in cards]]
    for c in range(2, len(cards) + 1):
        subsets.append(list(combinations(cards, c)))
    return cards, subsets


def rank_groups(hand: Sequence[str]) -> dict[str, tuple[tuple[str, ...], list[list[tuple[str, ...]]]]]:
    """The hand split by rank (spec 6.1), ranks in the normal order: ``{rank:
    (cards, subsets)}`` where ``cards`` is in card order and ``subsets[c]``
    lists every combination of ``c`` of those cards (``subsets[0]`` is empty)."""
    groups: dict[str, list[str]] = {}
    for code in sorted(hand, key=CARD_ORDER.__getitem__):
        r = RANK_OF[code]
        g = groups.get(r)
        if g is None:
            groups[r] = [code]
        else:
            g.append(code)
    return {r: _group_entry(tuple(cards)) for r, cards in groups.items()}
