"""High Card on the replay viewer's table. Its event message is built here
from a descriptor, standing in for the stubs a ``.proto`` file would give."""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from referee.web.table import Table

_F = descriptor_pb2.FieldDescriptorProto


def _event_class():
    f = descriptor_pb2.FileDescriptorProto(name="toy_test.proto", package="toytest", syntax="proto3")
    fields = {"RoundStart": [("round", _F.TYPE_INT32), ("leader", _F.TYPE_INT32)],
              "Deal": [("seat", _F.TYPE_INT32), ("hand", _F.TYPE_STRING, _F.LABEL_REPEATED)],
              "Play": [("seat", _F.TYPE_INT32), ("card", _F.TYPE_STRING)],
              "RoundEnd": [("round", _F.TYPE_INT32), ("winner", _F.TYPE_INT32),
                           ("scores", _F.TYPE_INT32, _F.LABEL_REPEATED)]}
    for name, fs in fields.items():
        m = f.message_type.add(name=name)
        for i, (fname, ftype, *label) in enumerate(fs, 1):
            m.field.add(name=fname, number=i, type=ftype, label=label[0] if label else _F.LABEL_OPTIONAL)
    ev = f.message_type.add(name="ToyEvent")
    ev.oneof_decl.add(name="kind")
    for i, (fname, tname) in enumerate([("round_start", "RoundStart"), ("deal", "Deal"), ("play", "Play"),
                                        ("round_end", "RoundEnd")], 1):
        ev.field.add(name=fname, number=i, type=_F.TYPE_MESSAGE, type_name=f".toytest.{tname}",
                     label=_F.LABEL_OPTIONAL, oneof_index=0)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("toytest.ToyEvent"))


class HighCardTable(Table):
    EVENT = _event_class()
    ROUND_OPENERS = frozenset({"round_start"})

    def __init__(self, header, view):
        super().__init__(header, view)
        self.results_cols = ["round", "winner"]

    def on_round_start(self, m, to):
        self.new_round(f"Round {m.round}", "play")
        self.counts = [2] * self.n

    def on_deal(self, m, to):
        if to is not None and self.knows(to):
            self.hands[to] = list(m.hand)

    def on_play(self, m, to):
        self.play(m.seat, [m.card])
        self.counts[m.seat] -= 1
        self.say(m.seat, "plays", [m.card])

    def on_round_end(self, m, to):
        self.trick_won(m.winner)
        self.scores = [str(int(x)) for x in m.scores]
        self.results_rows.append([str(m.round), self.name(m.winner)])


TABLE = HighCardTable
