#!/usr/bin/env python3
"""Many browsers at once, as an avatar host sees them: each opens a TLS connection, asks
the avatar URL once and keeps the connection idle between page views; a returning visitor asks again
on the connection it kept; a new visitor opens one of its own.

    bench/foxbench/idle_clients.py --addr IP --port N --host NAME --ca FILE --connections N
                          [--http2] [--returning 200] [--visitors 100] [--hold S]

1. opens N connections (200 handshakes at a time), each asking `/?s=64` once (HTTP/1.1 keep-alive,
   or HTTP/2 with --http2), and keeps them open;
2. asks again at once on the --returning oldest and newest connections (a browser's next page
   view, well within the server's keep-alive timeout) and counts the answers;
3. then --visitors new visitors one after another (for at least --hold seconds), each on a fresh
   connection: the avatar URL's 302 and the image it names (what a first page view costs), timed;
4. counts how many of the N connections are still open, and how many of the closed ones had been
   idle for less than --keepalive-timeout seconds (closed_young: closed for want of room, not time).
Prints one JSON object: opened, failed, open_after, oldest_answered and newest_answered (of
returning_of each), visitors (count, failures, p50/p99/max seconds), handshake_seconds. Bounded: every step has a deadline; only the
given address is contacted (a loopback or test-host address)."""
import argparse
import asyncio
import json
import ssl
import statistics
import sys
import time

BATCH = 200
TIMEOUT = 20


def context(ca, http2):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["h2"] if http2 else ["http/1.1"])
    return ctx


class H1:
    """One HTTP/1.1 keep-alive connection."""

    def __init__(self, reader, writer, host):
        self.reader, self.writer, self.host = reader, writer, host

    async def get(self, path):
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: image/avif,image/webp,*/*\r\n"
                          "User-Agent: idle-clients\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        length = int(headers.get("content-length", "0"))
        if length:
            await self.reader.readexactly(length)
        return status, headers

    async def closed(self):
        try:
            return await asyncio.wait_for(self.reader.read(1), 0.01) == b""
        except asyncio.TimeoutError:
            return False
        except (ConnectionError, ssl.SSLError):
            return True

    def close(self):
        self.writer.close()


class H2:
    """One HTTP/2 connection (the h2 library's state machine over asyncio streams)."""

    def __init__(self, reader, writer, host):
        import h2.config
        import h2.connection
        self.reader, self.writer, self.host = reader, writer, host
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.writer.write(self.conn.data_to_send())
        self.gone = False

    async def get(self, path):
        import h2.events
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [(":method", "GET"), (":scheme", "https"), (":authority", self.host),
                                     (":path", path), ("accept", "image/avif,image/webp,*/*")], end_stream=True)
        self.writer.write(self.conn.data_to_send())
        status, headers = None, {}
        while True:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("closed")
            for ev in self.conn.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                    headers = {k.decode(): v.decode() for k, v in ev.headers}
                    status = int(headers[":status"])
                elif isinstance(ev, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                    self.writer.write(self.conn.data_to_send())
                    return status, headers
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    raise ConnectionError("GOAWAY")
            self.writer.write(self.conn.data_to_send())

    async def closed(self):
        import h2.events
        if self.gone:
            return True
        try:
            data = await asyncio.wait_for(self.reader.read(65536), 0.01)
        except asyncio.TimeoutError:
            return False
        except (ConnectionError, ssl.SSLError):
            return True
        if not data:
            return True
        return any(isinstance(ev, h2.events.ConnectionTerminated) for ev in self.conn.receive_data(data))

    def close(self):
        self.writer.close()


async def connect(args, ctx):
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(args.addr, args.port, ssl=ctx, server_hostname=args.host), TIMEOUT)
    return (H2 if args.http2 else H1)(reader, writer, args.host)


async def open_idle(args, ctx):
    """N connections, each having asked the avatar URL once; (connections, failures)."""
    conns, failed = [], 0

    async def one():
        nonlocal failed
        try:
            c = await connect(args, ctx)
            status, _ = await asyncio.wait_for(c.get("/?s=64"), TIMEOUT)
            if status != 302:
                failed += 1
            c.used = time.monotonic()
            conns.append(c)
        except (OSError, asyncio.TimeoutError, ssl.SSLError, asyncio.IncompleteReadError):
            failed += 1

    for start in range(0, args.connections, BATCH):
        await asyncio.gather(*(one() for _ in range(min(BATCH, args.connections - start))))
    return conns, failed


async def visitor(args, ctx):
    """A new visitor: a fresh connection, the 302, the image it names; seconds, or None on failure."""
    t = time.monotonic()
    try:
        c = await connect(args, ctx)
        try:
            status, headers = await asyncio.wait_for(c.get("/?s=64"), TIMEOUT)
            location = headers.get("location", "")
            if status != 302 or not location.startswith("/"):
                return None
            status, _ = await asyncio.wait_for(c.get(location), TIMEOUT)
            return time.monotonic() - t if status == 200 else None
        finally:
            c.close()
    except (OSError, asyncio.TimeoutError, ssl.SSLError, asyncio.IncompleteReadError):
        return None


async def returning(conns):
    """Ask again on each connection (a browser's next page view); how many answered 302."""
    async def one(c):
        try:
            status, _ = await asyncio.wait_for(c.get("/?s=64&again=1"), TIMEOUT)
            c.used = time.monotonic()
            return status == 302
        except (OSError, asyncio.TimeoutError, ssl.SSLError, asyncio.IncompleteReadError):
            return False
    return sum(await asyncio.gather(*(one(c) for c in conns)))


async def main(args):
    ctx = context(args.ca, args.http2)
    t = time.monotonic()
    conns, failed = await open_idle(args, ctx)
    handshakes = time.monotonic() - t
    oldest, newest = conns[:args.returning], conns[-args.returning:]
    oldest_answered = await returning(oldest)
    newest_answered = await returning(newest)
    times = []
    hold_until = time.monotonic() + args.hold
    while len(times) < args.visitors or time.monotonic() < hold_until:
        times.append(await visitor(args, ctx))
        if len(times) >= args.visitors and time.monotonic() < hold_until:
            await asyncio.sleep(min(0.2, hold_until - time.monotonic()))
    open_after = closed_young = 0
    for c in conns:
        idle = time.monotonic() - c.used
        if await c.closed():
            closed_young += idle < args.keepalive_timeout - 2
        else:
            open_after += 1
    ok = sorted(x for x in times if x is not None)
    out = {
        "connections": args.connections, "http2": args.http2, "opened": len(conns), "failed": failed,
        "handshake_seconds": round(handshakes, 2), "open_after": open_after, "closed_young": closed_young,
        "oldest_answered": oldest_answered, "newest_answered": newest_answered, "returning_of": len(oldest),
        "visitors": len(times), "visitor_failures": len(times) - len(ok),
        "visitor_p50": round(statistics.median(ok), 4) if ok else None,
        "visitor_p99": round(ok[min(len(ok) - 1, int(len(ok) * 0.99))], 4) if ok else None,
        "visitor_max": round(ok[-1], 4) if ok else None,
    }
    if args.pause_file:
        # Hold everything open until the caller removes the file (it measures memory meanwhile).
        print(json.dumps({**out, "holding": True}), flush=True)
        deadline = time.monotonic() + 120
        import os
        while os.path.exists(args.pause_file) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
    for c in conns:
        c.close()
    return out


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--addr", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", required=True, help="name for SNI, Host and the certificate check")
    p.add_argument("--ca", required=True, help="PEM file to trust")
    p.add_argument("--connections", type=int, required=True)
    p.add_argument("--http2", action="store_true")
    p.add_argument("--returning", type=int, default=200)
    p.add_argument("--visitors", type=int, default=100)
    p.add_argument("--hold", type=float, default=0, help="seconds of new visitors after opening")
    p.add_argument("--keepalive-timeout", type=float, default=65,
                   help="the server's keep-alive timeout, seconds (closed_young counts closures before it)")
    p.add_argument("--pause-file", help="before closing, wait while this file exists (at most 120 s)")
    return p.parse_args(argv)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(parse(sys.argv[1:])))))
