"""Minimal bot client used by the Python sample bots.

It uses only the generated protocol stubs (``cardgames.v1``) and grpcio:
connect, send Hello, answer every DecisionRequest with ``choose(request)``,
exit when the referee says Goodbye or closes the stream.

Command line of every bot built on it::

    BOT --referee HOST:PORT [--token TOKEN] [--name NAME] [--seed N] [--tls-ca FILE]

Where the token comes from (:func:`token_from_environment`): a bot the
referee launches reads it from the inherited descriptor whose number is in
the environment variable ``REFEREE_TOKEN_FD`` (read to the end, then closed:
the token is never in the environment, which ``/proc/<pid>/environ`` shows,
nor on a command line, which every process can read); a bot connecting on
its own takes it from ``REFEREE_TOKEN`` or, run by hand, ``--token``.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
from typing import Callable, Iterator

import grpc

# A 4-player Dou Dizhu lead can list ~100k legal actions (several MB): accept up to 64 MiB.
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc

Chooser = Callable[[pb.DecisionRequest, pb.MatchStarted | None], pb.Action]


def parse_args(default_name: str, argv: list[str] | None = None,
               extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=f"{default_name}: a card-game bot for the referee")
    ap.add_argument("--referee", required=True, help="referee address HOST:PORT, or unix:PATH")
    ap.add_argument("--token", default=None,
                    help="token given by the operator (default: read from the descriptor REFEREE_TOKEN_FD "
                    "names, which is how the referee hands it to the bots it launches, else the "
                    "REFEREE_TOKEN environment variable)")
    ap.add_argument("--name", default=default_name, help="bot name shown on the leaderboard")
    ap.add_argument("--seed", type=int, default=None, help="seed of the bot's own RNG")
    ap.add_argument("--tls-ca", default=None, help="PEM file of the CA to trust (TLS referees)")
    ap.add_argument("--games", default="", help="comma-separated games played (default: all)")
    ap.add_argument("--max-matches", type=int, default=1, help="matches this connection may play at once")
    ap.add_argument("--separate-events", action="store_true",
                    help="receive each event as its own message (default: bundled into requests)")
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    if args.token is None:
        try:
            args.token = token_from_environment()
        except ValueError as e:
            ap.error(str(e))
    if not args.token:
        ap.error("no token: set REFEREE_TOKEN or pass --token")
    return args


def token_from_environment() -> str | None:
    """The bot's token: read from the descriptor named by ``REFEREE_TOKEN_FD``
    (a bot the referee launched: read to the end of file, then closed, and
    the variable removed), else ``REFEREE_TOKEN`` (a bot connecting on its
    own); ``None`` if neither is set. ``ValueError`` when the descriptor
    cannot be read (the message names it)."""
    fd = os.environ.pop("REFEREE_TOKEN_FD", None)
    if fd:
        try:
            n = int(fd)
            chunks = []
            while chunk := os.read(n, 4096):
                chunks.append(chunk)
            os.close(n)
        except (ValueError, OSError) as e:
            raise ValueError(f"REFEREE_TOKEN_FD={fd}: cannot read the token from that descriptor ({e})") from None
        return b"".join(chunks).decode().strip()
    return os.environ.get("REFEREE_TOKEN")


def run(choose: Chooser, args: argparse.Namespace, version: str = "1") -> int:
    """Play until the referee ends the connection. Returns a process exit code."""
    outbox: "queue.Queue[pb.BotMessage | None]" = queue.Queue()
    outbox.put(pb.BotMessage(hello=pb.Hello(
        bot_name=args.name, bot_version=version, token=args.token, protocol_version=1,
        games=[g for g in args.games.split(",") if g], max_concurrent_matches=args.max_matches,
        bundle_events=not args.separate_events)))

    def requests() -> Iterator[pb.BotMessage]:
        while (m := outbox.get()) is not None:
            yield m

    if args.tls_ca:
        with open(args.tls_ca, "rb") as f:
            channel = grpc.secure_channel(args.referee, grpc.ssl_channel_credentials(f.read()), options=CHANNEL_OPTIONS)
    else:
        channel = grpc.insecure_channel(args.referee, options=CHANNEL_OPTIONS)
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    matches: dict[str, pb.MatchStarted] = {}
    try:
        for msg in stub.Connect(requests()):
            which = msg.WhichOneof("msg")
            if which == "match_started":
                matches[msg.match_started.match_id] = msg.match_started
            elif which == "decision_request":
                req = msg.decision_request
                action = choose(req, matches.get(req.match_id))
                outbox.put(pb.BotMessage(action_reply=pb.ActionReply(
                    match_id=req.match_id, request_id=req.request_id, action=action)))
            elif which == "action_result" and not msg.action_result.accepted:
                r = msg.action_result
                print(f"{args.name}: request {r.request_id} rejected: {r.fault} {r.rule} {r.message}",
                      file=sys.stderr)
            elif which == "match_ended":
                matches.pop(msg.match_ended.match_id, None)
            elif which == "goodbye":
                break
            # "welcome" and "event" need no answer
    except grpc.RpcError as e:
        code = e.code()
        if code not in (grpc.StatusCode.CANCELLED,):
            print(f"{args.name}: connection ended: {code.name}: {e.details()}", file=sys.stderr)
            return 1
    finally:
        outbox.put(None)
        channel.close()
    return 0
