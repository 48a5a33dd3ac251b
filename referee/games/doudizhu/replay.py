"""Dou Dizhu (3 and 4 players) on the table: auction, kitty, landlord, plays, payments.

The replay viewer's renderer of the game (``TABLE``, a
:class:`referee.web.table.Table`), found through :func:`referee.games.replay_module`.
"""

from __future__ import annotations

from cardgames.v1 import doudizhu_pb2 as pb
from referee.web.table import Table, _num, score_text


class DouDizhuTable(Table):
    EVENT = pb.DouDizhuEvent
    ROUND_OPENERS = frozenset({"round_start"})
    RANKS = "3456789TJQKA2"
    SORT_BY_RANK = True

    def __init__(self, header, view):
        super().__init__(header, view)
        self.rounds = self.params.get("rounds")
        self.results_cols = ["round", "landlord", "bid", "×", *self.names]
        self.bombs = 0
        #: the round being shown was redealt (everybody passed)
        self.redealt = False

    def on_round_start(self, m, to):
        total = f" of {self.rounds}" if self.rounds else ""
        self.new_round(f"Round {m.round}{total}", "auction")
        self.counts = list(m.hand_sizes)
        self.bombs = 0
        self.redealt = False
        if m.marker:
            self.set_pile("Marker", [m.marker])

    def on_deal(self, m, to):
        if to is not None and self.knows(to):
            self.hands[to] = list(m.hand)

    def on_call(self, m, to):
        text = "pass" if m.amount == 0 else f"bid {m.amount}"
        self.bid(m.seat, text)
        self.say(m.seat, "passes" if m.amount == 0 else f"bids {m.amount}")

    def on_auction_end(self, m, to):
        if m.redeal:
            self.phase = "redeal"
            self.redealt = True
            self.set_info("Auction", "everybody passed: redeal")
            return
        self.phase = "play"
        ll = m.landlord
        for s in range(self.n):
            self.tags[s] = ["landlord"] if s == ll else ["peasant"]
        self.set_pile("Kitty", list(m.kitty))
        self.give(ll, m.kitty)
        self.counts[ll] += len(m.kitty)
        self.set_info("Landlord", f"{self.name(ll)} at {m.bid}")
        self.clear_on_next_play = True

    def on_play(self, m, to):
        cards = list(m.cards)
        if cards:
            kind = m.combination.replace("_", " ")
            if m.combination in ("bomb", "rocket"):
                self.bombs += 1
                self.set_info("Bombs and rockets", self.bombs)
            self.play(m.seat, cards, kind)
            self.counts[m.seat] -= len(cards)
            self.say(m.seat, f"plays {kind}".strip(), cards)
        else:
            self.play(m.seat, [], "pass")
            self.say(m.seat, "passes")

    def on_trick_end(self, m, to):
        self.trick_won(m.leader)

    def on_round_end(self, m, to):
        self.phase = "round over"
        self.scores = [score_text(int(x)) for x in m.scores]
        if m.redeal:  # a round of its own, with no landlord and no money moved
            self.set_info("Result", "no landlord, no money moved")
            self.results_rows.append([str(m.round), "everybody passed", "\u2014", "\u2014",
                                      *(_num(int(d)) for d in m.deltas)])
            return
        who = "landlord wins" if m.landlord_won else "peasants win"
        self.set_info("Result", f"{self.name(m.winner)} went out: {who}, ×{m.multiplier}"
                      + (" (spring)" if m.spring else ""))
        self.results_rows.append([str(m.round), self.name(m.landlord), str(m.bid), str(m.multiplier),
                                  *(_num(int(d)) for d in m.deltas)])

    def on_match_end(self, m, to):
        self.phase = "match over"
        self.scores = [score_text(int(x)) for x in m.scores]
        if self.redealt:  # the last round was all passes: no deal follows
            self.set_info("Auction", "everybody passed")


TABLE = DouDizhuTable
