#!/usr/bin/env python3
"""Heuristic bot: a per-game strategy (sample_bots/heuristics/<game>.py);
falls back to a random legal action for a game without one.

    python sample_bots/heuristic_bot.py --referee 127.0.0.1:50051 --token T
    (launched by the referee: the token comes on the descriptor REFEREE_TOKEN_FD names instead)
"""

from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sample_bots import botlib  # noqa: E402
from sample_bots.heuristics import chooser  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = botlib.parse_args("heuristic", argv)
    rng = random.Random(args.seed)

    def choose(req, started):
        game = started.game if started is not None else req.observation.WhichOneof("game")
        fn = chooser(game)
        return fn(req) if fn is not None else rng.choice(list(req.legal_actions))

    return botlib.run(choose, args)


if __name__ == "__main__":
    sys.exit(main())
