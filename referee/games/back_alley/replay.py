"""Back Alley on the table: upcard and trump, bids and contracts, tricks per team, points.

The replay viewer's renderer of the game (``TABLE``, a
:class:`referee.web.table.Table`), found through :func:`referee.games.replay_module`.
"""

from __future__ import annotations

from cardgames.v1 import back_alley_pb2 as pb
from referee.web.table import Table, _num, suit_text
from referee.words import plural


#: a joker laid out in the joker exchange, in words
JOKER_WORDS = {"RJ": "the red joker", "BJ": "the black joker"}


class BackAlleyTable(Table):
    EVENT = pb.BackAlleyEvent
    ROUND_OPENERS = frozenset({"round_start"})

    def __init__(self, header, view):
        super().__init__(header, view)
        self.results_cols = ["round", "cards", "contracts", "tricks", "points", "totals"]

    def _team(self, t: int) -> str:
        return f"{self.name(t)} & {self.name(t + 2)}" if 0 <= t < 2 and self.n == 4 else f"team {t}"

    def _contracts(self, contracts) -> str:
        parts = []
        for c in contracts:
            what = f"board {c.board_level}" if c.board else f"{c.tricks} {plural(c.tricks, 'trick')}"
            parts.append(f"{self._team(c.team)}: {what}")
        return "; ".join(parts) or "none"

    def on_round_start(self, m, to):
        self.new_round(f"Round {m.round_index} ({m.hand_size} {plural(m.hand_size, 'card')})", "bidding")
        self.counts = [m.hand_size] * self.n
        self.tags[m.dealer] = ["dealer"]
        if m.upcard:
            self.set_pile("Upcard", [m.upcard])
        self.set_info("Trump", suit_text(m.trump))

    def on_deal(self, m, to):
        if to is not None and self.knows(to):
            self.hands[to] = list(m.cards)

    def on_exchange(self, m, to):
        self.set_info("Joker exchange", f"{self.name(m.seat)} lays out {JOKER_WORDS.get(m.joker, 'a joker')}")

    def on_draw(self, m, to):
        if to is not None and self.knows(to):
            self.give(m.seat, [m.card])

    def on_bid(self, m, to):
        kind = pb.BackAlleyBidKind.Name(m.kind)
        if kind.endswith("PASS"):
            text = "pass"
        elif kind.endswith("BOARD"):
            text = f"board {m.board_level}"
        else:
            text = f"bid {m.tricks}"
        self.bid(m.seat, text, "Bids")
        self.say(m.seat, "passes" if text == "pass" else f"bids {text.removeprefix('bid ')}")

    def on_bidding_end(self, m, to):
        self.phase = "passed out" if m.passed_out else "play"
        self.set_info("Contracts", "passed out" if m.passed_out else self._contracts(m.contracts))
        self.clear_on_next_play = True

    def on_play(self, m, to):
        self.play(m.seat, [m.card])
        self.counts[m.seat] -= 1
        self.say(m.seat, "leads" if m.position == 0 else "plays", [m.card])

    def on_trick_end(self, m, to):
        self.trick_won(m.winner)
        self.set_info("Tricks", f"{self._team(0)}: {m.team_tricks[0] if m.team_tricks else 0} · "
                      f"{self._team(1)}: {m.team_tricks[1] if len(m.team_tricks) > 1 else 0}")

    def on_round_end(self, m, to):
        self.phase = "round over"
        totals = list(m.totals) + [0] * (2 - len(m.totals))
        self.scores = [str(totals[s % 2]) for s in range(self.n)]
        self.results_rows.append([str(m.round_index), str(m.hand_size),
                                  "passed out" if m.passed_out else self._contracts(m.contracts),
                                  " / ".join(str(t) for t in m.team_tricks),
                                  " / ".join(_num(p) if p else "0" for p in m.points),
                                  " / ".join(str(t) for t in totals)])

    def on_match_end(self, m, to):
        self.phase = "match over"
        totals = list(m.totals) + [0] * (2 - len(m.totals))
        self.scores = [str(totals[s % 2]) for s in range(self.n)]


TABLE = BackAlleyTable
