"""Cutthroat Canadian Smear on the table: auction, pitch and trump, tricks, high/low/jack/game.

The replay viewer's renderer of the game (``TABLE``, a
:class:`referee.web.table.Table`), found through :func:`referee.games.replay_module`.
"""

from __future__ import annotations

from cardgames.v1 import smear_pb2 as pb
from referee.web.table import Table, _num, suit_text


class SmearTable(Table):
    EVENT = pb.SmearEvent
    ROUND_OPENERS = frozenset({"round_start"})

    def __init__(self, header, view):
        super().__init__(header, view)
        self.results_cols = ["round", "bidder", "bid", "trump", "high", "low", "jack", "game", *self.names]
        self.bidder = -1

    def on_round_start(self, m, to):
        self.new_round(f"Round {m.round}", "auction")
        self.counts = list(m.hand_sizes)
        self.scores = [str(x) for x in m.scores]
        self.tags[m.dealer] = ["dealer"]
        self.bidder = -1

    def on_deal(self, m, to):
        if to is not None and self.knows(to):
            self.hands[to] = list(m.hand)

    def on_call(self, m, to):
        self.bid(m.seat, "pass" if m.bid == 0 else f"bid {m.bid}")
        self.say(m.seat, "passes" if m.bid == 0 else f"bids {m.bid}")

    def on_auction_end(self, m, to):
        if m.passed_out:
            self.set_info("Auction", "passed out")
            return
        self.phase = "play"
        self.bidder = m.bidder
        self.tags[m.bidder] = self.tags[m.bidder] + ["bidder"]
        self.set_info("Bid", f"{self.name(m.bidder)}: {m.bid}")
        self.clear_on_next_play = True

    def on_play(self, m, to):
        self.play(m.seat, [m.card])
        self.counts[m.seat] -= 1
        self.say(m.seat, "plays", [m.card])

    def on_trump(self, m, to):
        self.set_info("Trump", suit_text(m.suit))

    def on_trick_end(self, m, to):
        self.trick_won(m.winner)

    def on_round_end(self, m, to):
        self.phase = "round over"
        self.scores = [str(x) for x in m.scores]
        it = m.items

        def who(seat: int, card: str = "") -> str:
            return "-" if seat < 0 else self.name(seat) + (f" ({card})" if card else "")

        made = "made it" if m.made else "set"
        if m.passed_out:
            self.set_info("Result", "passed out")
        else:
            self.set_info("Result", f"{self.name(m.bidder)} bid {m.bid}: {made}")
        if m.passed_out:  # no bid, no play: no items (the message's are unset, not seat 0's)
            self.results_rows.append([str(m.round), "passed out", "-", "-", "-", "-", "-", "-",
                                      *(_num(d) for d in m.deltas)])
            return
        self.results_rows.append([str(m.round), who(m.bidder), str(m.bid), suit_text(m.trump, "-"),
                                  who(it.high, it.high_card), who(it.low, it.low_card), who(it.jack), who(it.game),
                                  *(_num(d) for d in m.deltas)])

    def on_match_end(self, m, to):
        self.phase = "match over"
        self.scores = [str(x) for x in m.scores]


TABLE = SmearTable
