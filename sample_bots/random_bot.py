#!/usr/bin/env python3
"""Random bot: picks uniformly among the legal actions it is sent. Plays every game.

    python sample_bots/random_bot.py --referee 127.0.0.1:50051 --token T [--seed 1]
    (launched by the referee: the token comes on the descriptor REFEREE_TOKEN_FD names instead)
"""

from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sample_bots import botlib  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = botlib.parse_args("random", argv)
    rng = random.Random(args.seed)
    return botlib.run(lambda req, _started: rng.choice(list(req.legal_actions)), args)


if __name__ == "__main__":
    sys.exit(main())
