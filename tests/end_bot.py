#!/usr/bin/env python3
"""A well-behaved bot that reports the end of its match: plays random legal
actions and prints one line per message kind it reads (``welcome``,
``match_started``, ``match_ended``, ``goodbye``; requests are counted, not
printed) on stderr; after ``goodbye`` it takes ``--linger`` seconds to shut
down (as a bot flushing its own logs would), prints ``exiting`` and exits 0.

    python tests/end_bot.py --referee ADDRESS [--linger S]   (token: REFEREE_TOKEN_FD or REFEREE_TOKEN)
"""

from __future__ import annotations

import os
import queue
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import grpc  # noqa: E402

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc  # noqa: E402
from sample_bots.botlib import token_from_environment  # noqa: E402


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--referee", required=True)
    ap.add_argument("--linger", type=float, default=0.5)
    args = ap.parse_args()
    rng = random.Random(0)
    out: "queue.Queue[pb.BotMessage | None]" = queue.Queue()
    out.put(pb.BotMessage(hello=pb.Hello(bot_name="end-bot", token=token_from_environment() or "", protocol_version=1)))

    def requests():
        while (m := out.get()) is not None:
            yield m

    channel = grpc.insecure_channel(args.referee)
    try:
        for msg in referee_pb2_grpc.RefereeServiceStub(channel).Connect(requests()):
            kind = msg.WhichOneof("msg")
            if kind == "decision_request":
                r = msg.decision_request
                out.put(pb.BotMessage(action_reply=pb.ActionReply(
                    match_id=r.match_id, request_id=r.request_id, action=rng.choice(list(r.legal_actions)))))
                continue
            if kind in ("event", "action_result"):
                continue
            print(kind, file=sys.stderr, flush=True)
            if kind == "goodbye":
                break
    finally:
        out.put(None)
        channel.close()
    time.sleep(args.linger)
    print("exiting", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
