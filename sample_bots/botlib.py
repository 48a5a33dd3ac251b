"""Minimal bot client used by the Python sample bots.

It uses only the generated protocol stubs (``cardgames.v1``) and grpcio:
connect, send Hello, answer every DecisionRequest with ``choose(request)``,
exit when the referee says Goodbye or closes the stream - or, with
``--reconnect SECONDS``, connect again when the connection was lost or the
referee went away (docs/protocol.md, "Reconnecting after a dropped connection").

Command line of every bot built on it::

    BOT --referee HOST:PORT [--token TOKEN] [--name NAME] [--seed N] [--tls-ca FILE]
        [--games G1,G2] [--max-matches K] [--separate-events] [--reconnect SECONDS]

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
import time
from typing import Callable, Iterator

import grpc

# A 4-player Dou Dizhu lead can list ~100k legal actions (several MB): accept up to 64 MiB.
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc

Chooser = Callable[[pb.DecisionRequest, pb.MatchStarted | None], pb.Action]

# --reconnect: wait this long before the first new attempt, doubling up to the second figure (seconds)
FIRST_RETRY_S, MAX_RETRY_S = 0.5, 10.0
# Status codes a new connection may cure: the referee is unreachable or went away (UNAVAILABLE,
# CANCELLED when its server stopped), or still holds this token's dropped connection (ALREADY_EXISTS).
# Never retried: a bad token, a refused Hello, any other refusal.
RETRY_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.ALREADY_EXISTS)


def parse_args(default_name: str, argv: list[str] | None = None,
               extra: Callable[[argparse.ArgumentParser], None] | None = None,
               prog: str | None = None, description: str | None = None,
               parser: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.Namespace:
    """The bot's command line (``argv``, default ``sys.argv[1:]``): the options
    above, and those ``extra`` adds. ``prog``: the command's name in usage
    and errors (default: the script's); ``description`` the help's first
    lines; ``parser`` the parser's class (its ``error`` says how errors are
    told). Exits 2 with a usage message for a bad command line or no token."""
    ap = parser(prog=prog, description=description or f"{default_name}: a card-game bot for the referee")
    ap.add_argument("--referee", required=True, help="referee address HOST:PORT, or unix:PATH")
    ap.add_argument("--token", default=None,
                    help="token given by the operator, for a quick test by hand only: the process list shows it "
                    "(default: read from the descriptor REFEREE_TOKEN_FD names, which is how the referee hands it "
                    "to the bots it launches, else the REFEREE_TOKEN environment variable)")
    ap.add_argument("--name", default=default_name, help="bot name shown on the leaderboard")
    ap.add_argument("--seed", type=int, default=None, help="seed of the bot's own RNG")
    ap.add_argument("--tls-ca", default=None, help="PEM file of the CA to trust (TLS referees)")
    ap.add_argument("--games", default="", help="comma-separated games played (default: all)")
    ap.add_argument("--max-matches", type=int, default=1, help="matches this connection may play at once")
    ap.add_argument("--separate-events", action="store_true",
                    help="receive each event as its own message (default: bundled into requests)")
    ap.add_argument("--reconnect", type=float, default=0, metavar="SECONDS",
                    help="when the connection is lost or the referee restarts, connect again (same token) "
                    "for up to SECONDS, then exit 1 (default: 0, exit when the connection ends)")
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    # a bot the referee launched (token on REFEREE_TOKEN_FD) writes stderr to a file the referee
    # keeps, not to a person: it does not announce its first connection (see _connect_and_play)
    args.launched = args.token is None and bool(os.environ.get("REFEREE_TOKEN_FD"))
    if args.token is None:
        try:
            args.token = token_from_environment()
        except ValueError as e:
            ap.error(str(e))
    if not args.token:
        ap.error("no token: set the environment variable REFEREE_TOKEN (a bot the referee launches "
                 "gets its token on the descriptor REFEREE_TOKEN_FD names)")
    if args.reconnect < 0:
        ap.error("--reconnect SECONDS must be 0 (off) or more")
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
    """Play until the referee ends the connection. Returns a process exit code.

    On stderr, a bot run by hand (not ``args.launched``) says
    ``NAME: connected to ADDR; waiting for matches`` when first welcomed.

    With ``args.reconnect`` > 0 (seconds), a connection lost, a referee that
    cannot be reached or a Goodbye saying the referee shuts down is followed
    by new connections with the same Hello, ``FIRST_RETRY_S`` apart doubling
    up to ``MAX_RETRY_S``, until one is welcomed; after ``args.reconnect``
    seconds without a welcome the bot gives up: exit code 1."""
    patience = getattr(args, "reconnect", 0) or 0
    lost_at: float | None = None  # time.monotonic() when the connection was lost; None while connected
    delay = FIRST_RETRY_S
    was_welcomed = False  # an earlier connection was welcomed: a new welcome is a return
    try:
        while True:
            code, why, welcomed = _connect_and_play(choose, args, version, reconnecting=was_welcomed)
            was_welcomed = was_welcomed or welcomed
            if why is None or patience <= 0:
                if why is not None and code != 0:
                    print(f"{args.name}: connection ended: {why}", file=sys.stderr)
                return code
            if welcomed or lost_at is None:
                what = "lost the referee" if welcomed else "cannot reach the referee"
                print(f"{args.name}: {what} at {args.referee} ({why}); reconnecting for up to "
                      f"{patience:g} s", file=sys.stderr)
                lost_at, delay = time.monotonic(), FIRST_RETRY_S
            left = lost_at + patience - time.monotonic()
            if left <= 0:
                print(f"{args.name}: could not reconnect to {args.referee} within {patience:g} s "
                      f"(last attempt: {why}); giving up", file=sys.stderr)
                return 1
            time.sleep(min(delay, left))
            delay = min(2 * delay, MAX_RETRY_S)
    except KeyboardInterrupt:
        return 130


def _rejection(r: pb.ActionResult) -> str:
    """The stderr line (without the name) for an answer the referee did not
    apply: ``request N rejected: FAULT RULE MESSAGE`` (empty parts left out),
    or, for a reply naming a match this connection no longer sits in
    (``unknown_request`` without a ``match_id``: the match ended, for
    instance aborted by a referee shutting down, while the reply was on its
    way), that the reply came after its match ended."""
    if r.fault == "unknown_request" and not r.match_id:
        return f"reply to request {r.request_id} came after its match ended; the referee ignored it"
    return f"request {r.request_id} rejected: " + " ".join(part for part in (r.fault, r.rule, r.message) if part)


def _connect_and_play(choose: Chooser, args: argparse.Namespace, version: str,
                      reconnecting: bool) -> tuple[int, str | None, bool]:
    """One connection: Hello, then play until it ends. Returns (exit code,
    why a new connection may help or ``None`` when it would not, whether the
    referee welcomed this connection). ``reconnecting``: an earlier connection
    was welcomed (this welcome is reported as a return)."""
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
    welcomed = False
    try:
        for msg in stub.Connect(requests()):
            which = msg.WhichOneof("msg")
            if which == "welcome":
                welcomed = True
                if reconnecting:
                    print(f"{args.name}: reconnected to {args.referee}", file=sys.stderr)
                elif not getattr(args, "launched", False):
                    print(f"{args.name}: connected to {args.referee}; waiting for matches", file=sys.stderr)
            elif which == "match_started":
                matches[msg.match_started.match_id] = msg.match_started
            elif which == "decision_request":
                req = msg.decision_request
                action = choose(req, matches.get(req.match_id))
                outbox.put(pb.BotMessage(action_reply=pb.ActionReply(
                    match_id=req.match_id, request_id=req.request_id, action=action)))
            elif which == "action_result" and not msg.action_result.accepted:
                print(f"{args.name}: {_rejection(msg.action_result)}", file=sys.stderr)
            elif which == "match_ended":
                matches.pop(msg.match_ended.match_id, None)
            elif which == "goodbye":
                reason = msg.goodbye.reason
                return 0, (f"Goodbye: {reason}" if reason == "referee shutting down" else None), welcomed
            # "event" needs no answer
        return 0, "the stream ended without the referee's Goodbye", welcomed
    except grpc.RpcError as e:
        code = e.code()
        why = f"{code.name}: {e.details()}"
        if code in RETRY_CODES:
            return (0 if code is grpc.StatusCode.CANCELLED else 1), why, welcomed
        print(f"{args.name}: connection ended: {why}", file=sys.stderr)
        return 1, None, welcomed
    finally:
        outbox.put(None)
        channel.close()
