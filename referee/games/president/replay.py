"""President on the table: roles, the card exchange, plays and passes, finishing order.

The replay viewer's renderer of the game (``TABLE``, a
:class:`referee.web.table.Table`), found through :func:`referee.games.replay_module`.
"""

from __future__ import annotations

from cardgames.v1 import president_pb2 as pb
from referee.web.table import Table, _num, score_text

ROLE_WORDS = {"president": "president", "vice_president": "vice-president", "vice_scum": "vice-scum",
              "scum": "scum", "citizen": "citizen"}


class PresidentTable(Table):
    EVENT = pb.PresidentEvent
    ROUND_OPENERS = frozenset({"round_start"})
    RANKS = "3456789TJQKA2"
    SORT_BY_RANK = True

    def __init__(self, header, view):
        super().__init__(header, view)
        self.results_cols = ["round", "finishing order", *self.names]

    def on_round_start(self, m, to):
        self.new_round(f"Round {m.round}", "exchange" if any(m.roles) else "play")
        self.counts = list(m.hand_sizes)
        for s, role in enumerate(m.roles):
            if role:
                self.tags[s] = [ROLE_WORDS.get(role, role)]
        self.set_info("Leader", self.name(m.leader))

    def on_deal(self, m, to):
        if to is not None and self.knows(to):
            self.hands[to] = list(m.hand)

    def on_transfer(self, m, to):
        word = "gives" if m.kind == "gift" else "returns"
        if to is None:
            self.counts[m.from_seat] -= m.count
            self.counts[m.to_seat] += m.count
            if not (self.knows(m.from_seat) or self.knows(m.to_seat)):
                self.put(m.from_seat, f"{word} {m.count} to {self.name(m.to_seat)}", hidden=m.count)
                self.say(m.from_seat, f"{word} {m.count} card(s) to {self.name(m.to_seat)}")
            return
        # a private copy goes to the giver and to the receiver: apply each side once
        if to == m.from_seat or self.view == to:
            if to == m.from_seat:
                self.take(m.from_seat, m.cards)
            if to == m.to_seat:
                self.give(m.to_seat, m.cards)
            self.put(m.from_seat, f"{word} to {self.name(m.to_seat)}", m.cards)
            self.say(m.from_seat, f"{word} to {self.name(m.to_seat)}", m.cards)
        elif to == m.to_seat:
            self.give(m.to_seat, m.cards)

    def on_exchange_end(self, m, to):
        self.phase = "play"
        self.counts = list(m.hand_sizes)
        self.set_info("Leader", self.name(m.leader))
        self.clear_on_next_play = True

    def on_play(self, m, to):
        cards = list(m.cards)
        if cards:
            self.play(m.seat, cards, "revolution!" if m.revolution else "")
            self.say(m.seat, "plays", cards)
        else:
            self.play(m.seat, [], "pass")
            self.say(m.seat, "passes")
        self.counts[m.seat] = m.hand_size
        if m.place:
            self.tags[m.seat] = [t for t in self.tags[m.seat] if not t.startswith("out")] + [f"out #{m.place}"]

    def on_trick_end(self, m, to):
        self.trick_won(m.last_player)
        self.set_info("Leader", self.name(m.leader))  # of the next trick: the one just won is over

    def on_round_end(self, m, to):
        self.phase = "round over"
        self.drop_info("Leader")  # no trick to lead until the next deal names its leader
        self.scores = [score_text(x) for x in m.totals]
        for s, role in enumerate(m.roles):
            self.tags[s] = [ROLE_WORDS.get(role, role)]
        self.results_rows.append([str(m.round), " > ".join(self.name(s) for s in m.order),
                                  *(_num(d) for d in m.deltas)])

    def on_match_end(self, m, to):
        self.phase = "match over"
        self.scores = [score_text(x) for x in m.totals]


TABLE = PresidentTable
