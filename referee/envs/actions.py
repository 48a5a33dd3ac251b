"""The fixed action index space of the training environments, and the exact
decomposition of a decision into index steps (docs/envs.md, "Actions").

Every game has one flat index space (:class:`ActionLayout`)::

    0                      PASS
    1 .. B                 BID amount a (the game's amounts, ascending)
    B+1 .. B+54            CARD c: add one copy of card code c to the selection
    B+55                   SUBMIT: play the cards selected

A decision that names cards (a play, a declaration, the kitty burial, a
President return) is made card by card: each CARD step adds one card to the
seat's *selection*, SUBMIT sends the selection as the action. After a CARD
step the selection is sent at once when it is a legal action that no
larger legal action contains (so a one-card play, a full kitty, a full
follow: one step per card, no SUBMIT). PASS and BID are whole actions.

The masks are exact: a CARD index is allowed exactly when the selection
with that card added is part of some legal action, SUBMIT exactly when the
selection is a legal action. So every legal action is reachable and no
illegal one can be sent. Where the engine lists every legal action
(``Legal.complete``), the masks come from that list (:class:`ListOracle`;
when every legal card action is one card, each CARD index is that whole action);
Tractor's three cases whose legal actions are too many to list (the kitty
burial, large leads, large follows) have their own oracles built from the
rules (the game's ``oracle``, in ``referee/games/<game>/envs.py``).

Nothing here imports PettingZoo or Gymnasium: a bot process uses it too
(:mod:`referee.policybot`).
"""

from __future__ import annotations

import copy
from typing import Protocol, Sequence

import numpy as np

from referee.cards import JOKERS, STANDARD_DECK
from referee.engine import BID, PASS, Action
from referee.games import envs_module

#: the 54 card codes of the index space and of every card vector, in this
#: order: 2C..AC, 2D..AD, 2H..AH, 2S..AS, BJ, RJ
CARD_CODES: tuple[str, ...] = STANDARD_DECK + JOKERS
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARD_CODES)}
N_CARDS = len(CARD_CODES)


class IllegalIndex(ValueError):
    """An action index the current mask forbids (or out of range)."""


def action_index(action: object) -> int:
    """``action`` as an index of the layout: a Python or numpy integer (or a
    0-d integer array). ``TypeError`` for anything else (``None``, a float,
    a bool, a string), which ``int()`` would refuse or silently truncate."""
    if type(action) is int:  # the common case, first: this is on every step
        return action
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    raise TypeError(f"an action is an integer index of the layout, not {action!r} ({type(action).__name__})")


class ActionLayout:
    """The index space of one game: PASS, the game's BID amounts (``BID_AMOUNTS``
    of ``referee/games/<game>/envs.py``), the 54 CARD indices, SUBMIT (see
    the module docstring). ``size`` indices. :class:`referee.games.UnknownGame`
    for a game that is not implemented."""

    def __init__(self, game: str):
        self.game = game
        self.bids: tuple[int, ...] = envs_module(game).BID_AMOUNTS
        self.pass_index = 0
        self.bid_base = 1
        self.card_base = 1 + len(self.bids)
        self.submit_index = self.card_base + N_CARDS
        self.size = self.submit_index + 1
        self._bid_index = {a: self.bid_base + i for i, a in enumerate(self.bids)}

    def bid_index(self, amount: int) -> int:
        """Index of ``BID amount``; ``KeyError`` for an amount without one."""
        return self._bid_index[amount]

    def card_index(self, code: str) -> int:
        """Index of the CARD step adding ``code``; ``KeyError`` for a non-code."""
        return self.card_base + CARD_INDEX[code]

    def describe(self, index: int) -> str:
        """A human-readable name of ``index`` (``"PASS"``, ``"BID 2"``, ``"CARD AS"``, ``"SUBMIT"``)."""
        if index == self.pass_index:
            return "PASS"
        if self.bid_base <= index < self.card_base:
            return f"BID {self.bids[index - self.bid_base]}"
        if self.card_base <= index < self.submit_index:
            return f"CARD {CARD_CODES[index - self.card_base]}"
        if index == self.submit_index:
            return "SUBMIT"
        raise IllegalIndex(f"{self.game}: index {index} is outside 0..{self.size - 1}")

    def steps(self, action: Action) -> list[int]:
        """The index steps that send ``action`` from an empty selection:
        ``[PASS]``, ``[BID a]``, or one CARD step per card (in the order of
        ``action.cards``) then SUBMIT. The last step may be unnecessary (the
        selection is sent without it, see the module docstring): a caller
        stops as soon as the action is sent. ``KeyError`` for a bid amount
        without an index."""
        if action.kind == PASS:
            return [self.pass_index]
        if action.kind == BID:
            return [self.bid_index(action.amount)]
        return [self.card_index(c) for c in action.cards] + [self.submit_index]


def instances(cards: Sequence[str]) -> frozenset[int]:
    """A multiset of codes as a set of card *instances*: ``2 * index + copy``
    (``AH AH`` -> the instances 0 and 1 of AH), so that multiset inclusion is
    set inclusion."""
    seen: dict[str, int] = {}
    out = []
    for c in cards:
        k = seen.get(c, 0)
        seen[c] = k + 1
        out.append(2 * CARD_INDEX[c] + k)
    return frozenset(out)


class Oracle(Protocol):
    """What a card decision needs to know of its legal actions.

    ``selection`` is the multiset selected so far, as code -> count."""

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        """The codes whose addition keeps the selection part of a legal action."""

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        """True if the selection (``size`` cards) is a legal action."""

    def closed(self, selection: dict[str, int], size: int) -> bool:
        """True if no legal action strictly contains the (legal) selection."""


class ListOracle:
    """The oracle of a complete legal list: a card is addable when some
    listed action contains the selection plus that card."""

    __slots__ = ("_cands", "_sel", "_exact")

    def __init__(self, card_actions: Sequence[Action]):
        self._cands: list[frozenset[int]] = list({instances(a.cards) for a in card_actions})
        self._sel: frozenset[int] = frozenset()

    def __copy__(self) -> "ListOracle":
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        o = ListOracle(())
        o._cands, o._sel = self._cands, self._sel
        return o

    def _narrow(self, selection: dict[str, int]) -> None:
        sel = frozenset(2 * CARD_INDEX[c] + k for c, n in selection.items() for k in range(n))
        if sel != self._sel:
            self._cands = [a for a in self._cands if sel <= a]
            self._sel = sel

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        self._narrow(selection)
        sel = self._sel
        out: set[int] = set()
        for a in self._cands:
            out |= a
        return {CARD_CODES[i >> 1] for i in out - sel}

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        self._narrow(selection)
        return size > 0 and self._sel in self._cands

    def closed(self, selection: dict[str, int], size: int) -> bool:
        self._narrow(selection)
        return all(len(a) == size for a in self._cands)


class Decision:
    """One pending decision of one seat, taken index step by index step.

    ``kind``: the decision kind (``"PLAY"``...); ``legal``: the engine's legal
    actions (``Legal.actions``); ``oracle``: for the card actions, or ``None``
    to build a :class:`ListOracle` from ``legal`` (then ``legal`` must be
    complete). :meth:`mask` is the int8 mask of the layout's indices,
    :meth:`push` takes one step."""

    __slots__ = ("layout", "kind", "card_kind", "whole", "oracle", "selection", "size", "_mask")

    def __init__(self, layout: ActionLayout, kind: str, legal: Sequence[Action], oracle: Oracle | None = None):
        self.layout = layout
        self.kind = kind
        self.whole: dict[int, Action] = {}  # index -> the action it sends at once (PASS, BID, a lone card)
        cards: list[Action] = []
        card_kind = None
        for a in legal:
            if a.cards:
                cards.append(a)
                card_kind = a.kind
            elif a.kind == PASS:
                self.whole[layout.pass_index] = a
            elif a.kind == BID:
                self.whole[layout.bid_index(a.amount)] = a
            else:
                raise ValueError(f"{layout.game}: a {a.kind} action without cards has no index")
        self.card_kind = card_kind if card_kind is not None else kind
        if oracle is None and cards and all(len(a.cards) == 1 for a in cards):
            for a in cards:  # one card is a whole action: its CARD index sends it (no selection, no oracle)
                self.whole[layout.card_index(a.cards[0])] = a
            cards = []
        self.oracle: Oracle | None = oracle if oracle is not None or not cards else ListOracle(cards)
        self.selection: dict[str, int] = {}
        self.size = 0
        self._mask: np.ndarray | None = None

    def copy(self) -> "Decision":
        """An independent copy (to explore steps without taking them here):
        the legal actions are shared, the selection is not."""
        d = Decision(self.layout, self.kind, ())  # then every attribute is replaced
        d.layout, d.kind, d.card_kind, d.whole = self.layout, self.kind, self.card_kind, self.whole
        d.oracle = copy.copy(self.oracle)
        d.selection, d.size, d._mask = dict(self.selection), self.size, self._mask
        return d

    def mask(self) -> np.ndarray:
        """The allowed indices now (int8, 1 = allowed; a fresh copy)."""
        if self._mask is None:
            lay = self.layout
            allowed = list(self.whole) if self.size == 0 else []
            if self.oracle is not None:
                base = lay.card_base
                allowed += [base + CARD_INDEX[c] for c in self.oracle.addable(self.selection, self.size)]
                if self.oracle.submittable(self.selection, self.size):
                    allowed.append(lay.submit_index)
            m = np.zeros(lay.size, dtype=np.int8)
            for i in allowed:  # a few entries: faster than numpy's fancy indexing with a list
                m[i] = 1
            self._mask = m
        return self._mask.copy()

    def selection_cards(self) -> tuple[str, ...]:
        """The cards selected so far, in card-code order."""
        sel = self.selection
        return tuple(c for c in sorted(sel, key=CARD_INDEX.__getitem__) for _ in range(sel[c]))

    def push(self, index: int, seat: int | None = None) -> Action | None:
        """Take step ``index`` (an ``int``) for ``seat`` (named in errors):
        returns the action to send once the decision is complete (PASS, a
        BID, SUBMIT, or a CARD step completing the selection), else ``None``.
        Raises :class:`IllegalIndex` for an index out of the layout's range
        or the mask forbids (the message gives the range, or the allowed
        indices)."""
        lay = self.layout
        if self._mask is None:
            self.mask()
        assert self._mask is not None
        if not 0 <= index < lay.size:
            raise IllegalIndex(f"{lay.game}: index {index} is outside the action space 0..{lay.size - 1}")
        if not self._mask[index]:
            raise IllegalIndex(self._refusal(index, seat))
        if index in self.whole and self.size == 0:
            return self.whole[index]
        if index == lay.submit_index:
            return self._action()
        code = CARD_CODES[index - lay.card_base]
        self.selection[code] = self.selection.get(code, 0) + 1
        self.size += 1
        self._mask = None
        assert self.oracle is not None
        if self.oracle.submittable(self.selection, self.size) and self.oracle.closed(self.selection, self.size):
            return self._action()
        return None

    def _refusal(self, index: int, seat: int | None, shown: int = 8) -> str:
        """Why ``index`` is refused: its name and, described, up to ``shown`` allowed indices."""
        lay = self.layout
        who = f"seat {seat}: " if seat is not None else ""
        mask = self._mask
        assert mask is not None, "push() computes the mask before refusing"
        allowed = [lay.describe(int(i)) for i in np.flatnonzero(mask)]
        more = f" (and {len(allowed) - shown} more)" if len(allowed) > shown else ""
        return (f"{lay.game}: {who}{lay.describe(index)} (index {index}) is not allowed now; allowed now: "
                f"{', '.join(allowed[:shown])}{more}")

    def _action(self) -> Action:
        return Action(self.card_kind, self.selection_cards())
