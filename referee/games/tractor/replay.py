"""Tractor (4 players, two decks) on the table: the deal with declarations,
the kitty taken and buried, tricks, points and levels.

The replay viewer's renderer of the game (``TABLE``, a
:class:`referee.web.table.Table`), found through :func:`referee.games.replay_module`.
"""

from __future__ import annotations

from cardgames.v1 import tractor_pb2 as pb
from referee.web.table import Table, suit_text

KITTY = 8  # cards in the kitty (spec: 108 cards, 25 each, 8 left)
#: a declaration's kind (``TractorDeclaration.kind``) in words
DECLARATION_WORDS = {"single": "single", "pair": "pair", "joker_pair": "joker pair"}


def trump_text(suit: str) -> str:
    """A trump suit of the events in words: ``"S"`` -> ``"♠ spades"``, ``"NT"``
    (a joker pair's declaration) -> ``"no trump"``, ``""`` (none yet) -> ``"none"``."""
    if suit == "NT":
        return "no trump"
    return suit_text(suit, "none")


def declaration_text(kind: str) -> str:
    """A declaration's kind in words (``"joker_pair"`` -> ``"joker pair"``)."""
    return DECLARATION_WORDS.get(kind, kind.replace("_", " "))


class TractorTable(Table):
    EVENT = pb.TractorEvent
    ROUND_OPENERS = frozenset({"round_start"})
    RANKS = "23456789TJQKA"

    def __init__(self, header, view):
        super().__init__(header, view)
        self.first_drawer = 0
        self.dealt = 0
        self.failed_throw: tuple[int, int] | None = None  # (seat, cards tried) of a failed throw
        self.results_cols = ["round", "declarers", "trump", "defender points", "kitty", "levels up", "levels"]

    def _team(self, t: int) -> str:
        return f"{self.name(t)} & {self.name(t + 2)}" if 0 <= t < 2 and self.n == 4 else f"team {t}"

    def _levels(self, levels) -> None:
        levels = list(levels)
        if len(levels) == 2:
            self.scores = [f"level {levels[s % 2]}" for s in range(self.n)]
            self.set_info("Levels", f"{self._team(0)}: {levels[0]} · {self._team(1)}: {levels[1]}")

    def _deal_counts(self) -> None:
        """Cards dealt so far, in turn from the first drawer: the count of a hand
        this view cannot see."""
        for s in range(self.n):
            k = (s - self.first_drawer) % self.n
            self.counts[s] = 0 if self.dealt <= k else (self.dealt - k + self.n - 1) // self.n

    def on_round_start(self, m, to):
        self.new_round(f"Round {m.round_number}" + (f" (deal {m.deal_number})" if m.deal_number > 1 else ""),
                       "deal and declare")
        self.first_drawer = m.first_drawer
        self.dealt = 0
        self._levels(m.levels)
        self.set_info("Trump rank", m.trump_rank)
        if m.declarer_team >= 0:
            self.set_info("Declarers", self._team(m.declarer_team))
        if m.starter >= 0:
            self.tags[m.starter] = ["starter"]

    def on_card_dealt(self, m, to):
        self.give(m.seat, [m.card])
        self.dealt = max(self.dealt, m.index + 1)
        self._deal_counts()

    def on_declare_pass(self, m, to):
        self.dealt = max(self.dealt, m.cards_dealt)
        self._deal_counts()
        self.say(m.seat, "does not declare", feed=False)

    def on_declaration(self, m, to):
        self.dealt = max(self.dealt, m.cards_dealt)
        self._deal_counts()
        word = "reinforces" if m.reinforcement else "declares"
        trump, kind = trump_text(m.trump_suit), declaration_text(m.kind)
        self.put(m.seat, f"{word} {trump}", m.cards)
        self.bids.append(f"{self.name(m.seat)} {kind} {' '.join(m.cards)}")
        self.set_info("Declarations", " · ".join(self.bids))
        self.say(m.seat, f"{word} {kind} for trump {trump}" if m.trump_suit != "NT" else f"{word} {kind}: {trump}",
                 m.cards)
        self.set_info("Trump suit", trump)

    def on_declaration_closed(self, m, to):
        self.phase = "kitty"
        self.dealt = self.n * ((108 - KITTY) // self.n)
        self._deal_counts()
        self.set_info("Trump suit", trump_text(m.trump_suit))
        if m.declarer_team >= 0:
            self.set_info("Declarers", self._team(m.declarer_team))
            for s in range(self.n):
                self.tags[s] = ["declarer"] if s % 2 == m.declarer_team else ["defender"]
        if m.starter >= 0:
            self.tags[m.starter] = ["starter", "declarer"]
        self.acts = [None] * self.n

    def on_kitty_flip(self, m, to):
        self.set_pile("Kitty (flipped)", m.flipped)
        if m.trump_suit:
            self.set_info("Trump suit", trump_text(m.trump_suit))

    def on_kitty_taken(self, m, to):
        if to is None:
            self.counts[m.seat] += KITTY
            self.say(m.seat, "takes the kitty")
        elif self.knows(to):
            self.give(m.seat, m.cards)

    def on_kitty_buried(self, m, to):
        if to is None:
            self.counts[m.seat] -= KITTY
            if not self.knows(m.seat):
                self.put(m.seat, "buries the kitty", hidden=KITTY)
                self.set_pile("Kitty", hidden=KITTY)
            self.say(m.seat, "buries the kitty")
            self.phase = "play"
        elif self.knows(to):
            self.take(m.seat, m.cards)
            self.put(m.seat, "buries", m.cards)
            self.set_pile("Kitty", m.cards)
            self.say(m.seat, "buries", m.cards)
        self.clear_on_next_play = True

    def on_throw_failure(self, m, to):
        self.failed_throw = (m.seat, len(m.attempted))
        self.set_info("Failed throw", f"{self.name(m.seat)} tried {' '.join(m.attempted)}, "
                      f"must play {' '.join(m.forced)} (penalty {m.penalty})")

    def on_play(self, m, to):
        p = m.play
        failed = getattr(self, "failed_throw", None)
        text = f"throw failed (tried {failed[1]} cards)" if failed and failed[0] == p.seat else ""
        self.failed_throw = None
        self.play(p.seat, p.cards, text, lead=m.lead)
        self.counts[p.seat] -= len(p.cards)
        self.say(p.seat, text or ("leads" if m.lead else "plays"), p.cards)

    def on_trick_end(self, m, to):
        self.trick_won(m.winner)
        self.set_info("Defender points", m.defender_points)

    def on_round_end(self, m, to):
        self.phase = "round over"
        self.set_pile("Kitty", m.kitty)
        self._levels(m.levels)
        self.set_info("Defender points", m.defender_points)
        self.results_rows.append([str(m.round_number), self._team(m.declarer_team), trump_text(m.trump_suit),
                                  str(m.defender_points), " ".join(m.kitty), str(m.levels_up),
                                  " / ".join(m.levels)])

    def on_match_end(self, m, to):
        self.phase = "match over"
        self._levels(m.levels)


TABLE = TractorTable
