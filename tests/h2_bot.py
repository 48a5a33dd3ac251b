#!/usr/bin/env python3
"""A hostile bot that speaks gRPC by hand over raw HTTP/2 (the ``h2`` package
on a plain socket) and, after its Hello, never grants flow-control window:
it answers pings and settings (so keepalive never drops it) but never sends
WINDOW_UPDATE, so the referee's writes to it stall once the window it
announced (``--window`` bytes, per stream) is used up.

    python tests/h2_bot.py --referee 127.0.0.1:PORT|unix:PATH [--token T] [--window BYTES]
                           [--name NAME] [--seconds S] [--streams N [--renew S] | --resets N]

``--streams N``: instead, open N streams that never send a Hello and hold
them (with ``--renew S``: every S seconds, reset them all and open N new
ones, so that they never reach the referee's Hello timeout); ``--resets N``:
open and at once reset (RST_STREAM) N streams, one after the other, then
hold the connection.

The token comes from ``--token``, else the descriptor named by
``REFEREE_TOKEN_FD`` (as the referee hands it to bots it launches), else the
``REFEREE_TOKEN`` environment variable. Prints one line per
thing it sees on stdout: ``headers``, ``message <kind>`` (each complete gRPC
message it could read within its window), ``reset <code>``, ``trailers
<grpc-status>``, ``closed``; exits 0 when the referee ends the stream or the
connection, or after ``--seconds`` (default 120).
"""

from __future__ import annotations

import argparse
import os
import socket
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cardgames.v1 import referee_pb2 as pb  # noqa: E402

PATH = "/cardgames.v1.RefereeService/Connect"


def grpc_frame(msg: pb.BotMessage) -> bytes:
    """gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length, bytes."""
    body = msg.SerializeToString()
    return struct.pack(">BI", 0, len(body)) + body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--referee", required=True)
    ap.add_argument("--token", default=None)
    ap.add_argument("--name", default="h2-nonreader")
    ap.add_argument("--window", type=int, default=256, help="stream flow-control window announced (bytes)")
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--streams", type=int, default=0, help="open N streams without a Hello instead")
    ap.add_argument("--resets", type=int, default=0, help="open and reset N streams instead")
    ap.add_argument("--renew", type=float, default=0.0, help="with --streams: renew them every S seconds")
    args = ap.parse_args(argv)
    if args.token is None:
        from sample_bots.botlib import token_from_environment

        args.token = token_from_environment() or ""
    if args.referee.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(5)
        sock.connect(args.referee[len("unix:"):])
    else:
        host, _, port = args.referee.rpartition(":")
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=5)
    sock.settimeout(0.2)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.local_settings = h2.settings.Settings(client=True, initial_values={
        h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: args.window,
        h2.settings.SettingCodes.ENABLE_PUSH: 0,
    })
    conn.initiate_connection()
    headers = [(":method", "POST"), (":scheme", "http"), (":path", PATH), (":authority", args.referee),
               ("content-type", "application/grpc"), ("te", "trailers")]
    held: list[int] = []

    def open_streams() -> bool:
        """Open the streams of --streams/--resets; False if the referee closed the connection."""
        for sid in held:  # --renew: the previous ones go first
            try:
                conn.reset_stream(sid)
            except h2.exceptions.H2Error:  # already ended by the referee
                pass
        held.clear()
        for i in range(args.streams or args.resets):
            sid = conn.get_next_available_stream_id()
            try:
                conn.send_headers(sid, headers)
            except h2.exceptions.TooManyStreamsError:  # the referee's max_concurrent_streams: at the cap
                break
            if args.resets:
                conn.reset_stream(sid)
            else:
                held.append(sid)
            try:
                sock.sendall(conn.data_to_send())
            except OSError:
                print(f"closed by the referee after {i} streams", flush=True)
                return False
        print(f"opened {args.streams or args.resets}", flush=True)
        return True

    renew_at = float("inf")
    if args.streams or args.resets:
        if not open_streams():
            return 0
        if args.renew > 0:
            renew_at = time.monotonic() + args.renew
    else:
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, headers)
        conn.send_data(sid, grpc_frame(pb.BotMessage(hello=pb.Hello(
            bot_name=args.name, token=args.token, protocol_version=1))))
        sock.sendall(conn.data_to_send())
    buf = b""
    deadline = time.monotonic() + args.seconds
    out = sys.stdout
    while time.monotonic() < deadline:
        if time.monotonic() >= renew_at:
            if not open_streams():
                return 0
            renew_at = time.monotonic() + args.renew
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            data = b""
        if not data:
            print("closed", file=out, flush=True)
            return 0
        try:
            events = conn.receive_data(data)
        except h2.exceptions.ProtocolError:  # the referee went away (GOAWAY, then more frames)
            print("closed", file=out, flush=True)
            return 0
        for ev in events:
            if isinstance(ev, h2.events.ResponseReceived):
                status = dict(ev.headers).get("grpc-status")  # a trailers-only response: refused
                print("headers" if status is None else f"trailers {status}", file=out, flush=True)
            elif isinstance(ev, h2.events.DataReceived):
                buf += ev.data  # never acknowledged: no WINDOW_UPDATE goes out
                while len(buf) >= 5:
                    n = struct.unpack(">I", buf[1:5])[0]
                    if len(buf) < 5 + n:
                        break
                    m = pb.RefereeMessage.FromString(buf[5:5 + n])
                    buf = buf[5 + n:]
                    print(f"message {m.WhichOneof('msg')}", file=out, flush=True)
            elif isinstance(ev, h2.events.TrailersReceived):
                status = dict(ev.headers).get("grpc-status", "?")
                print(f"trailers {status}", file=out, flush=True)
            elif isinstance(ev, h2.events.StreamReset):
                print(f"reset {ev.error_code}", file=out, flush=True)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                print("closed", file=out, flush=True)
                return 0
        pending = conn.data_to_send()  # ping and settings acknowledgements
        if pending:
            try:
                sock.sendall(pending)
            except OSError:
                print("closed", file=out, flush=True)
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
