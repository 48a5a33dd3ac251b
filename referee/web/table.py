"""The card table one view sees, rebuilt event by event (base of the per-game renderers).

A :class:`Table` is fed the entries of one view of a match log (see
:func:`referee.web.replay.view_entries`) and produces a snapshot per step:
a flat JSON-able ``dict`` that the page's script draws without knowing the
game:

* ``round``: the round's label, e.g. ``"Round 2 of 8"``; ``phase``: e.g. ``"auction"``;
* ``caption``: ``{"seat", "text", "cards"}``, the step's decision in words;
* ``s0``, ``s1``...: one seat each, ``{"hand": [codes] or None (not visible
  to this view), "count": cards held, "tags": [role words], "score": text,
  "act": {"text", "cards", "hidden": face-down count, "win": bool} or None}``
  (``act`` is what the seat has in front of it: its bid, its card(s) of
  the current trick);
* ``piles``: ``[{"label", "cards", "hidden"}]`` (kitty, upcard, ...);
* ``info``: ``[[label, text]]`` (trump, contract, multiplier, ...);
* ``results``: ``{"cols", "rows"}`` of finished rounds; ``over``: the
  match result in words, once the match is over (each seat's name with its
  own final score, in finishing order);
* ``faults``: ``[{"text", "step", "round"}]`` in the order they happened:
  the fault in words, the step it happened at (``None`` when the table is
  not fed steps, as a human seat's page is) and its round's label;
* ``ms``: the time the step's decision took, milliseconds, when the view
  sees it (the all-seeing view, a seat's own decisions).

Per-game subclasses (``TABLE`` of ``referee/games/<game>/replay.py``) say which protobuf
message the game's events are (:attr:`Table.EVENT`), which events open a
round (:attr:`Table.ROUND_OPENERS`) and handle each event kind in a method
``on_<kind>(self, msg, to)`` (``msg`` the parsed sub-message, ``to`` the
seat the event is private to, ``None`` if public). A handler only reads the
event it is given: the table never learns more than the view's events.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable

from referee.games import UnknownGame, replay_module

SUIT_ORDER = "SHCD"  # display order of a sorted hand: black, red, black, red
JOKER_ORDER = ("BJ", "RJ")


def table_class(game: str) -> type["Table"]:
    """The renderer of ``game``, its package's ``replay.TABLE`` (found through
    :func:`referee.games.replay_module`); ``LookupError`` for a game without one."""
    try:
        return replay_module(game).TABLE
    except (UnknownGame, ModuleNotFoundError):
        raise LookupError(f"no replay renderer for game {game!r}") from None


class Table:
    """One view's table. ``header``: the log's header line; ``view``: ``"all"``,
    ``"public"`` or a seat."""

    #: the game's event message (a protobuf class with a ``kind`` oneof); the log's JSON is parsed into it
    EVENT: ClassVar[Any] = None
    #: event kinds that start a new round (shown with the step after them)
    ROUND_OPENERS: ClassVar[frozenset[str]] = frozenset()
    #: rank order for sorting a hand, low to high
    RANKS: ClassVar[str] = "23456789TJQKA"
    #: True: sort a hand by rank only (suits do not matter in the game)
    SORT_BY_RANK: ClassVar[bool] = False

    def __init__(self, header: dict[str, Any], view: Any):
        spec = header["spec"]
        self.header = header
        self.view = view
        self.n = int(spec["players"])
        self.names: list[str] = list(spec["seat_names"])
        self.params: dict[str, Any] = dict(header.get("params") or spec.get("params") or {})
        self.variant: dict[str, Any] = dict(header.get("variant") or spec.get("variant") or {})
        self.hands: list[list[str] | None] = [[] if self.knows(s) else None for s in range(self.n)]
        self.counts = [0] * self.n
        self.tags: list[list[str]] = [[] for _ in range(self.n)]
        self.scores: list[str] = ["0"] * self.n
        self.acts: list[dict[str, Any] | None] = [None] * self.n
        self.piles: list[dict[str, Any]] = []
        self.info: list[list[str]] = []
        self.results_cols: list[str] = []
        self.results_rows: list[list[str]] = []
        self.round_label = ""
        self.phase = ""
        self.caption: dict[str, Any] = {"seat": None, "text": "start", "cards": []}
        self.actor: int | None = None
        self.over: str | None = None
        #: faults in the order they happened (see the module doc), with ``seat``, ``kind`` and
        #: ``request_id`` kept to place the faults the result adds (:meth:`finish`)
        self.faults: list[dict[str, Any]] = []
        self.step = 0  # decisions begun so far: the step being built
        self._rounds: dict[int, str] = {}  # the round label of each step
        self._asked: dict[int, int] = {}  # request id -> its step
        self._unasked: dict[int, list[int]] = {}  # seat -> the steps it was not asked (away)
        self.ms: float | None = None
        self.clear_on_next_play = False
        self.bids: list[str] = []
        self._keys: dict[str, tuple[int, int]] = {}
        self._results: dict[str, Any] | None = None
        #: when a list: every move described by :meth:`say`, in order (``{"seat", "text",
        #: "cards"}``), whoever made it; the live seat page's feed of what the others just did
        self.said: list[dict[str, Any]] | None = None

    # -- what this view may know --------------------------------------------------------
    def knows(self, seat: int) -> bool:
        """True when this view sees ``seat``'s hand (all-seeing, or its own seat)."""
        return self.view == "all" or self.view == seat

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < self.n else f"seat {seat}"

    # -- feeding ------------------------------------------------------------------------
    def opens_round(self, ev: dict[str, Any]) -> bool:
        return next(iter(ev), None) in self.ROUND_OPENERS

    def apply(self, to: int | None, msg: Any) -> None:
        """Apply one event (a :attr:`EVENT` message) private to ``to`` (``None``: public)."""
        kind = msg.WhichOneof("kind")
        if kind is None:
            return
        handler = getattr(self, f"on_{kind}", None)
        if handler is not None:
            handler(getattr(msg, kind), to)

    def begin_step(self, decision: dict[str, Any]) -> None:
        self.step += 1
        self.ms = None
        self.actor = decision.get("seat")
        self.caption = {"seat": self.actor, "text": _KIND_WORDS.get(decision.get("kind", ""), "acts"),
                        "cards": []}

    def decision(self, d: dict[str, Any]) -> None:
        """A decision line; the applied action is there only when the view may see it."""
        applied = d.get("applied")
        if applied is None:
            return
        kind, cards, amount = applied.get("kind", ""), list(applied.get("cards") or []), applied.get("amount", 0)
        text = {"PASS": "passes", "BID": f"bids {amount}", "PLAY": "plays", "DECLARE": "declares",
                "DISCARD": "discards", "EXCHANGE": "gives"}.get(kind, kind.lower())
        step = self.step if self.step else None
        if step is not None:
            self._rounds[step] = self.round_label
            if d.get("request_id"):
                self._asked[d["request_id"]] = step
            elif d.get("reply") is None and not d.get("fault") and "reply" in d:
                self._unasked.setdefault(d["seat"], []).append(step)  # a disconnected seat's: an absent fault
        if d.get("fault"):
            text += f" ({d['fault']}{': ' + d['rule'] if d.get('rule') else ''}; the referee's fallback)"
            self.add_fault(d["seat"], d["fault"], d.get("rule") or "", d.get("request_id") or 0, step)
        if d.get("elapsed_ms") is not None:
            self.ms = d["elapsed_ms"]
        self.caption = {"seat": d.get("seat"), "text": text, "cards": cards}

    def add_fault(self, seat: int, kind: str, rule: str, request_id: int, step: int | None,
                  order: tuple[float, float] | None = None) -> None:
        """One fault of ``seat`` (``kind`` ``"illegal"``...) at ``step`` (``None``: the table
        is not fed steps), in the round of that step. ``order``: where it sorts among the
        faults (:meth:`finish` sorts them), by default at the step, after those before it."""
        label = self._rounds.get(step, self.round_label) if step is not None else self.round_label
        f = {"text": f"{self.name(seat)}: {kind}{' ' + rule if rule else ''}", "step": step, "round": label,
             "seat": seat, "kind": kind, "request_id": request_id,
             "order": order if order is not None else (step or 0, 0)}
        self.faults.append(f)

    def finish(self, result: dict[str, Any], faults: list[dict[str, Any]]) -> None:
        """The match is over: its result line (and fault lines written after it).

        The result line names each seat with its own final score, in finishing
        order: ``"Final: 1. heuristic (1) · 2. memory-hog (1) · 3. crash-mid-match (-2)"``
        (seats of one place together: ``"1. a (9), b (9) · 3. c (-18)"``). The
        faults the result adds to those of the decision lines are placed where
        they happened (:attr:`faults` sorted so): a fault of a request at that
        request's step, an absent seat's n-th ``absent`` fault at the n-th decision
        the referee took for it unasked, a crash just before the disconnect it
        caused (the seat's first one), a no-show at the start, any other (a
        forfeit) right after the result's fault before it."""
        ranks = result.get("ranks") or []
        scores = result.get("scores") or []
        if result.get("status") != "complete":
            self.over = f"match {result.get('status', 'aborted')}"
        else:
            parts = []
            for place in sorted(set(ranks)):
                who = [self.name(s) + (f" ({score_text(scores[s])})" if s < len(scores) else "")
                       for s in range(self.n) if s < len(ranks) and ranks[s] == place]
                parts.append(f"{place}. {', '.join(who)}")
            self.over = "Final: " + " · ".join(parts)
        if self.view == "all" or isinstance(self.view, int):
            prev: tuple[float, float] | None = None
            absent: dict[int, int] = {}
            for f in list(result.get("faults") or []) + list(faults):
                if self.view == "all" or f.get("seat") == self.view:
                    prev = self._place_fault(f, prev, absent)
            self.faults.sort(key=lambda x: x["order"])
        for s in result.get("forfeited") or []:
            if "forfeited" not in self.tags[s]:
                self.tags[s].append("forfeited")

    def _place_fault(self, f: dict[str, Any], prev: tuple[float, float] | None,
                     absent: dict[int, int]) -> tuple[float, float] | None:
        """Put a fault of the result (in the order they happened) or of a fault line among
        :attr:`faults`, unless its decision line already did; ``prev``: where the result's
        previous fault sorts, ``absent``: absent faults placed so far per seat. Returns
        where this one sorts. See :meth:`finish`."""
        seat, kind, rule, rid = f["seat"], f["kind"], f.get("rule") or "", f.get("request_id") or 0
        for x in self.faults:
            if x["seat"] == seat and x["kind"] == kind and (
                    x["request_id"] == rid if rid else kind in ("crash", "no_show")):
                return x["order"]  # the decision line's, or a crash both in the result and a fault line
        end: int | None = self.step if self.step else None
        step, order = end, None
        if rid and rid in self._asked:  # a reply to this request (a late one...)
            step = self._asked[rid]
            order = (step, 1)
        elif kind == "absent":  # the n-th decision the seat was not asked, being away
            n = absent.get(seat, 0)
            absent[seat] = n + 1
            steps = self._unasked.get(seat, [])
            if n < len(steps):
                step = steps[n]
                order = (step, 0)
        elif kind == "crash":  # just before the disconnect it caused
            gone = [x for x in self.faults if x["seat"] == seat and x["kind"] == "disconnect"]
            if gone:
                step = gone[0]["step"]
                order = (gone[0]["order"][0], gone[0]["order"][1] - 0.5)
        elif kind == "no_show":
            step = 0 if self.step else None
            order = (0, -1)
        if order is None and prev is not None and kind != "crash":  # right after the one before it
            step = int(prev[0]) if end is not None else None
            order = (prev[0], prev[1] + 0.25)
        self.add_fault(seat, kind, rule, rid, step, order)
        return self.faults[-1]["order"]

    # -- helpers for the per-game handlers ------------------------------------------------
    def new_round(self, label: str, phase: str = "") -> None:
        """Reset the per-round state: hands (empty where visible), acts, piles, info."""
        self.round_label = label
        self.phase = phase
        self.hands = [[] if self.knows(s) else None for s in range(self.n)]
        self.counts = [0] * self.n
        self.tags = [[] for _ in range(self.n)]
        self.acts = [None] * self.n
        self.piles = []
        self.info = []
        self.bids = []
        self.clear_on_next_play = False

    def bid(self, seat: int, text: str, label: str = "Auction") -> None:
        """Record one call of the auction (or declaration): in front of the seat,
        and in the round's list of calls."""
        self.put(seat, text)
        self.bids.append(f"{self.name(seat)} {text}")
        self.set_info(label, " · ".join(self.bids))

    def give(self, seat: int, cards: Iterable[str]) -> None:
        """Cards into a visible hand (ignored for a hand this view cannot see)."""
        h = self.hands[seat]
        if h is not None:
            h.extend(cards)

    def take(self, seat: int, cards: Iterable[str]) -> None:
        """Cards out of a visible hand (one copy each; a card not there is ignored)."""
        h = self.hands[seat]
        if h is None:
            return
        for c in cards:
            if c in h:
                h.remove(c)

    def say(self, seat: int, text: str, cards: Iterable[str] = (), feed: bool = True) -> None:
        """Describe the acting seat's move from an event (public detail); ``feed``
        false: for the step's caption only, not for :attr:`said` (a move made at
        almost every step, such as Tractor's "does not declare")."""
        if self.said is not None and feed:
            self.said.append({"seat": seat, "text": text, "cards": list(cards)})
        if seat == self.actor:
            self.caption = {"seat": seat, "text": text, "cards": list(cards)}

    def put(self, seat: int, text: str = "", cards: Iterable[str] = (), hidden: int = 0) -> None:
        """What ``seat`` has in front of it now (its bid, its cards of the trick)."""
        self.acts[seat] = {"text": text, "cards": list(cards), "hidden": hidden, "win": False}

    def play(self, seat: int, cards: Iterable[str], text: str = "", lead: bool = False) -> None:
        """``seat`` plays ``cards`` to the trick: clears the last trick first if it
        is over (or ``lead``), puts the cards in front of the seat, takes them
        from its hand."""
        cards = list(cards)
        if lead or self.clear_on_next_play:
            self.acts = [None] * self.n
            self.clear_on_next_play = False
        self.put(seat, text, cards)
        self.take(seat, cards)

    def trick_won(self, winner: int) -> None:
        """Mark the trick's winner; the trick stays on the table until the next play."""
        if 0 <= winner < self.n and self.acts[winner] is not None:
            self.acts[winner] = {**self.acts[winner], "win": True}
        self.clear_on_next_play = True

    def set_info(self, label: str, text: Any) -> None:
        text = str(text)
        for row in self.info:
            if row[0] == label:
                row[1] = text
                return
        self.info.append([label, text])

    def drop_info(self, label: str) -> None:
        """Remove the ``label`` row of :attr:`info`, if there is one (a fact that no longer holds)."""
        self.info = [row for row in self.info if row[0] != label]

    def set_pile(self, label: str, cards: Iterable[str] = (), hidden: int = 0) -> None:
        pile = {"label": label, "cards": list(cards), "hidden": hidden}
        for i, p in enumerate(self.piles):
            if p["label"] == label:
                self.piles[i] = pile
                return
        self.piles.append(pile)

    def sort_key(self, c: str) -> tuple[int, int]:
        k = self._keys.get(c)
        if k is None:
            k = self._keys[c] = self._sort_key(c)
        return k

    def _sort_key(self, c: str) -> tuple[int, int]:
        if c in JOKER_ORDER:
            return (9, len(self.RANKS) + JOKER_ORDER.index(c))
        r = self.RANKS.index(c[0]) if c[0] in self.RANKS else -1
        if self.SORT_BY_RANK:
            return (r, SUIT_ORDER.index(c[1]))
        return (SUIT_ORDER.index(c[1]), r)

    # -- output ---------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = {"round": self.round_label, "phase": self.phase, "caption": dict(self.caption)}
        for s in range(self.n):
            h = self.hands[s]
            snap[f"s{s}"] = {"hand": sorted(h, key=self.sort_key) if h is not None else None,
                             "count": len(h) if h is not None else max(self.counts[s], 0),
                             "tags": list(self.tags[s]), "score": self.scores[s],
                             "act": dict(self.acts[s]) if self.acts[s] else None}
        snap["piles"] = [dict(p) for p in self.piles]
        snap["info"] = [list(r) for r in self.info]
        if self.results_rows:
            if self._results is None or len(self._results["rows"]) != len(self.results_rows):
                # rows are only ever appended: one shared copy until the next round ends
                self._results = {"cols": list(self.results_cols), "rows": [list(r) for r in self.results_rows]}
            snap["results"] = self._results
        if self.over:
            snap["over"] = self.over
        if self.faults:
            snap["faults"] = [{"text": f["text"], "step": f["step"], "round": f["round"]} for f in self.faults]
        if self.ms is not None:
            snap["ms"] = self.ms
        return snap


_KIND_WORDS = {"BID": "to bid", "PLAY": "to play", "DECLARE": "may declare", "DISCARD": "buries the kitty",
               "EXCHANGE": "to exchange"}


SUIT_WORDS = {"S": "\u2660 spades", "H": "\u2665 hearts", "D": "\u2666 diamonds", "C": "\u2663 clubs"}


def suit_text(suit: str, none: str = "no trump") -> str:
    """A suit letter in words with its symbol (``"H"`` -> ``"♥ hearts"``)."""
    return SUIT_WORDS.get(suit, suit) if suit else none


def score_text(x: Any) -> str:
    """A score (a running total: a seat's score, a final score) as text: whole
    points as an integer, with no ``.0`` and no ``+`` (``61.0`` -> ``"61"``,
    ``"-16"`` -> ``"-16"``); anything else as it is."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, str):
        try:
            return str(int(x))
        except ValueError:
            return x
    return str(x)


def _num(x: Any) -> str:
    """A change of score (a round's delta) as text: integral floats without
    ``.0``, signed (``2.0`` -> ``"+2"``, ``0`` -> ``"0"``)."""
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, str):
        try:
            x = int(x)
        except ValueError:
            return x
    return f"{x:+d}" if isinstance(x, int) and x != 0 else str(x)
