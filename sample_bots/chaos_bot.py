#!/usr/bin/env python3
"""Chaos bot: misbehaves on purpose, for fault-injection tests.

    python sample_bots/chaos_bot.py --mode MODE --referee ADDRESS   (token: REFEREE_TOKEN_FD, REFEREE_TOKEN or --token)

Modes (every loop is bounded, so a mode cannot run forever even outside the sandbox):

crash-at-start    exits with status 3 before connecting
crash-mid-match   plays 5 random legal actions, then exits with status 4
hang              connects, never answers (sleeps at most 10 minutes)
slow              answers each request 100 ms after its deadline
illegal           answers every request with an action that is not legal
garbage           connects, and once seated sends bytes that are not a protobuf message
wrong-request-id  answers with a request id it was never sent
flood             answers each request once correctly plus 50 bogus replies
memory-hog        allocates memory before it connects, until its memory limit stops it
fork-bomb         forks up to 200 sleeping children, then hangs
stdout-spam       writes up to 1 GiB to stdout (the file-size limit stops it)
wrong-match       answers with another match id
double-answer     answers every request twice
reserve-8g        reserves 8 GiB of address space without touching it, then plays randomly
                  (as a JVM, Go or .NET runtime does: must play under the default limits)
cpu-burn          burns CPU for twice its decision time before every answer
stdout-error      writes an error to stdout (as a JVM does) and exits with status 1
connect-out       tries a TCP connection to 127.0.0.1:--target-port, says on stderr
                  whether it got through, then plays randomly
write-workdir     writes a 1 MiB file to its working directory, reads it back, then plays randomly
token-thief       plays randomly while it scans /proc/*/cmdline, /proc/*/environ and every
                  /proc/*/fd/* it can open for tokens of other seats, and tries each one at
                  its own address and at every --referee address on another command line;
                  looks for its match's log (by name, next to its working directory, and
                  through /proc/*/fd); reports a JSON line on stderr
"""

from __future__ import annotations

import json
import mmap
import os
import queue
import random
import re
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import grpc  # noqa: E402

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc  # noqa: E402
from sample_bots import botlib  # noqa: E402

MODES = ("crash-at-start", "crash-mid-match", "hang", "slow", "illegal", "garbage", "wrong-request-id", "flood",
         "memory-hog", "fork-bomb", "stdout-spam", "wrong-match", "double-answer", "reserve-8g", "cpu-burn",
         "stdout-error", "connect-out", "token-thief", "write-workdir")


def illegal_action(req: pb.DecisionRequest) -> pb.Action:
    """An action that is certainly not among ``req.legal_actions``: five aces of
    spades (no deck has five), or a bid of 999."""
    legal = {(a.kind, tuple(sorted(a.cards)), a.amount) for a in req.legal_actions}
    for cand in (pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["AS"] * 5),
                 pb.Action(kind=pb.ACTION_KIND_BID, amount=999)):
        if (cand.kind, tuple(sorted(cand.cards)), cand.amount) not in legal:
            return cand
    return pb.Action(kind=pb.ACTION_KIND_EXCHANGE, cards=["AS"] * 5)


def garbage(args) -> int:
    """Send a valid Hello, then, once seated (its MatchStarted read; at most
    30 s), raw bytes that do not decode as a BotMessage."""
    channel = grpc.insecure_channel(args.referee, options=botlib.CHANNEL_OPTIONS)
    hello = pb.BotMessage(hello=pb.Hello(bot_name=args.name, token=args.token, protocol_version=1)).SerializeToString()
    seated = threading.Event()

    def gen():
        yield hello
        seated.wait(30)
        yield b"\xff\xfe\xfd garbage \x00\x01" * 10
        time.sleep(5)

    call = channel.stream_stream("/cardgames.v1.RefereeService/Connect", request_serializer=lambda b: b,
                                 response_deserializer=lambda b: b)
    try:
        for raw in call(gen()):
            if pb.RefereeMessage.FromString(raw).WhichOneof("msg") == "match_started":
                seated.set()
    except grpc.RpcError as e:
        print(f"garbage: stream ended {e.code().name}", file=sys.stderr)
    return 0


def main() -> int:
    def extra(ap) -> None:
        ap.add_argument("--mode", required=True, choices=MODES)
        ap.add_argument("--target-port", type=int, default=0, help="connect-out: the port to try on 127.0.0.1")

    args = botlib.parse_args("chaos", None, extra)
    args.name = f"chaos-{args.mode}" if args.name == "chaos" else args.name
    rng = random.Random(args.seed)
    mode = args.mode
    if mode == "crash-at-start":
        print("chaos: crashing at start", file=sys.stderr)
        return 3
    if mode == "garbage":
        return garbage(args)
    if mode == "stdout-error":
        print("Error occurred during initialization of VM", flush=True)
        print("Could not allocate metaspace: 1073741824 bytes", flush=True)
        return 1
    if mode == "reserve-8g":
        reserved = mmap.mmap(-1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
        print(f"chaos: reserved {len(reserved) >> 30} GiB of address space", file=sys.stderr, flush=True)
    if mode == "write-workdir":
        data = os.urandom(1 << 20)
        with open("scratch.bin", "wb") as f:
            f.write(data)
        with open("scratch.bin", "rb") as f:
            assert f.read() == data
        print(f"chaos: wrote and read back {os.path.abspath('scratch.bin')}", file=sys.stderr, flush=True)
    if mode == "connect-out":
        try:
            socket.create_connection(("127.0.0.1", args.target_port), timeout=5).close()
            print("chaos: connect-out got through", file=sys.stderr, flush=True)
        except OSError as e:
            print(f"chaos: connect-out blocked: {e}", file=sys.stderr, flush=True)

    if mode == "memory-hog":
        hog = []
        for _ in range(4096):  # at most 4096 x 64 MiB
            hog.append(bytearray(64 * 1024 * 1024))
        return 0
    if mode == "fork-bomb":
        kids = 0
        for _ in range(200):
            try:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                kids += 1
            except OSError:
                break
        print(f"chaos: forked {kids} children", file=sys.stderr)
        time.sleep(600)
        return 0
    if mode == "stdout-spam":
        line = b"spam " * 200 + b"\n"
        for _ in range(1024 * 1024 * 1024 // len(line)):
            sys.stdout.buffer.write(line)
        return 0
    if mode == "hang":
        # connect so the seat is occupied, then never answer
        channel, stream, q = _connect(args)
        try:
            deadline = time.monotonic() + 600
            for _ in stream:
                if time.monotonic() > deadline:
                    break
        except grpc.RpcError:
            pass
        finally:
            q.put(None)
            channel.close()
        return 0

    count = [0]

    def choose(req: pb.DecisionRequest, _started) -> pb.Action:
        count[0] += 1
        if mode == "crash-mid-match" and count[0] > 5:
            print("chaos: crashing mid-match", file=sys.stderr)
            os._exit(4)
        if mode == "slow":
            time.sleep((req.time_left_ms + req.bank_left_ms) / 1000 + 0.1)
        if mode == "token-thief" and count[0] == 1:
            _steal_tokens(args)  # every seat is connected once a request comes: their bots are running
        if mode == "cpu-burn":
            t = time.process_time()
            while time.process_time() - t < 2 * (req.time_left_ms + req.bank_left_ms) / 1000:
                pass
        if mode == "illegal":
            return illegal_action(req)
        return rng.choice(list(req.legal_actions))

    if mode in ("wrong-request-id", "flood", "wrong-match", "double-answer"):
        return _misaddressed(args, rng)
    return botlib.run(choose, args)


def _steal_tokens(args) -> None:
    """token-thief: read every /proc/*/cmdline and /proc/*/environ it can, and
    every /proc/*/fd/* it can open (at most 64 KiB of each; a socket cannot be
    opened), try every 32-hex-digit string found (but its own token) in a
    Hello of its own at its own address and at every other ``--referee``
    address it saw, and look for its match's log: any file it can read, by
    name beside its working directory or through /proc/*/fd, that holds its
    match id in a header line. Reports ``{"readable", "fds", "found",
    "tried", "welcomed", "seated", "tokens", "log_seen"}`` on stderr."""
    hexrun = re.compile(rb"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")
    match_id = os.path.basename(os.getcwd()).split(".seat")[0].encode()
    found: set[str] = set()
    addresses = {args.referee}
    readable = fds = 0
    log_seen = False

    def scan(data: bytes) -> None:
        nonlocal log_seen
        found.update(m.decode() for m in hexrun.findall(data))
        if b'"type":"header"' in data and match_id in data:
            log_seen = True

    for pid in filter(str.isdigit, os.listdir("/proc")):
        for name in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if data and pid != str(os.getpid()):
                readable += 1
            scan(data)
            if name == "cmdline":
                argv = data.split(b"\0")
                addresses.update(argv[i + 1].decode(errors="replace") for i, a in enumerate(argv[:-1])
                                 if a == b"--referee")
        if pid == str(os.getpid()):
            continue
        try:
            entries = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in entries:
            try:
                h = os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK)
            except OSError:  # a socket (ENXIO), or not ours to open
                continue
            try:
                fds += 1
                scan(os.pread(h, 65536, 0) if os.path.isfile(f"/proc/self/fd/{h}") else os.read(h, 65536))
            except OSError:
                pass
            finally:
                os.close(h)
    try:
        beside = os.listdir("..")  # (under the referee's uid, its working directory is in the log directory)
    except OSError:
        beside = []
    for path in beside:
        try:
            with open(os.path.join("..", path), "rb") as f:
                scan(f.read(65536))
        except OSError:
            pass
    found.discard(args.token)
    welcomed = seated = tried = 0
    for tok in sorted(found):
        for addr in sorted(addresses):
            tried += 1
            channel = grpc.insecure_channel(addr, options=botlib.CHANNEL_OPTIONS)
            q: "queue.Queue[pb.BotMessage | None]" = queue.Queue()
            q.put(pb.BotMessage(hello=pb.Hello(bot_name="thief", token=tok, protocol_version=1)))

            def gen():
                while (m := q.get()) is not None:
                    yield m

            try:
                for msg in referee_pb2_grpc.RefereeServiceStub(channel).Connect(gen(), timeout=2):
                    kind = msg.WhichOneof("msg")
                    welcomed += kind == "welcome"
                    if kind in ("match_started", "decision_request"):
                        seated += 1
                        break
            except grpc.RpcError:
                pass
            finally:
                q.put(None)
                channel.close()
    print("token-thief: " + json.dumps({"readable": readable, "fds": fds, "found": len(found), "tried": tried,
                                        "welcomed": welcomed, "seated": seated, "tokens": sorted(found),
                                        "log_seen": log_seen}), file=sys.stderr, flush=True)


def _connect(args):
    """Open the stream and queue a Hello: ``(channel, response stream, outbox queue)``;
    put ``None`` in the queue to half-close."""
    channel = grpc.insecure_channel(args.referee, options=botlib.CHANNEL_OPTIONS)
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    q: "queue.Queue[pb.BotMessage | None]" = queue.Queue()
    q.put(pb.BotMessage(hello=pb.Hello(bot_name=args.name, token=args.token, protocol_version=1)))

    def gen():
        while (m := q.get()) is not None:
            yield m

    return channel, stub.Connect(gen()), q


def _misaddressed(args, rng: random.Random) -> int:
    """Modes that answer with wrong addressing, or too often."""
    channel, stream, q = _connect(args)

    def reply(match_id: str, rid: int, action: pb.Action) -> None:
        q.put(pb.BotMessage(action_reply=pb.ActionReply(match_id=match_id, request_id=rid, action=action)))

    try:
        for msg in stream:
            if msg.WhichOneof("msg") == "goodbye":
                break
            if msg.WhichOneof("msg") != "decision_request":
                continue
            req = msg.decision_request
            act = rng.choice(list(req.legal_actions))
            if args.mode == "wrong-request-id":
                reply(req.match_id, req.request_id + 100_000, act)
            elif args.mode == "wrong-match":
                reply(req.match_id + "-other", req.request_id, act)
            elif args.mode == "double-answer":
                reply(req.match_id, req.request_id, act)
                reply(req.match_id, req.request_id, act)
            else:  # flood
                reply(req.match_id, req.request_id, act)
                for i in range(50):
                    reply(req.match_id, 10_000_000 + i, act)
    except grpc.RpcError as e:
        print(f"chaos: stream ended {e.code().name}", file=sys.stderr)
    finally:
        q.put(None)
        channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
