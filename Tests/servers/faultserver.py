#!/usr/bin/env python3
"""A static tile server that misbehaves on purpose, for PackFS's HTTP tests.

Serves a world folder (Fixtures/world) over HTTP/1.1 with keep-alive, replacing "{base}" in .json
files by its own base URL, and injects real faults at per-kind rates (--rate-KIND, a fraction of
requests; the rates add up to at most 1):

  500 / 502 / 503     an error status (with a body, connection kept alive)
  429                 Too Many Requests with Retry-After: --retry-after seconds
  reset               the connection is closed with an RST (SO_LINGER 0), no answer at all
  truncate            Content-Length promises the whole body, half is sent, then the socket closes
  length              a wrong Content-Length: a quarter short of the body; the whole body is sent,
                      then the socket closes (a client reading by the header gets a cut body)
  corrupt             a gzip body with a flipped byte (only when the answer is gzipped)
  slow                --slow-seconds of sleep, then a normal answer
  drip                the head, then the body --drip-bytes at a time, spread over --drip-seconds
                      (slow, but never silent for long: it completes)
  hang                the head and half the body, then nothing; the connection stays open until
                      the client closes it (or --hang-seconds pass)
  stall               the request is read and nothing is ever sent; the connection stays open
                      as for hang

Which fault (if any) a request gets is decided from (seed, path, how many times that path was
asked before), never from arrival order, so a run with the same seed and request set injects the
same faults whatever the client's concurrency.

Changing the origin while it runs: with --overlay DIR, a file under DIR is served in place of the
root's file of the same path (read at each request, so a test changes what the origin serves by
writing or removing files there). GET /_control/hold?prefix=P holds every request whose path starts
with P (several prefixes may be held) until GET /_control/release: it arrives (arrival log), then
waits, then is answered as usual; a test so keeps a client provably mid-way.

Other switches: --gzip (gzip bodies for clients sending Accept-Encoding: gzip; the member carries
an FNAME field), --etag-mode stable|request|generation (GET /_control/bump starts a new
generation), --fail-path PATH=STATUS (always that status), --script PATH=KIND,KIND,... (the first
requests for PATH get these answers, in order; KIND is a fault name, a status or "ok"),
--redirect PATH=LOCATION (302; "{base}" allowed in LOCATION, which may name another host, port
or scheme), --cache-control VALUE.

A single `Range: bytes=A-B` (or `bytes=A-`) is answered 206 with those bytes and Content-Range,
never gzipped (the faults apply to the part as to a whole body); an If-Match naming another
version than the file's ETag is answered 412.

Access log: one JSON object per request on --log: time, method, uri, status (0 when no answer),
fault, if_none_match, accept_encoding, range, connection (a per-connection number), bytes. It is written
as the answer leaves (for hang and stall: when the server starts holding the connection);
--arrival-log PATH also writes {time, method, uri, connection} as each request arrives, so a test
sees a request the server is still sitting on (a slow answer, a stall).
The port (0 = chosen by the OS; --port to choose it, e.g. to come back on the same one) is
printed as "PORT n" on stdout and written to --port-file.
With --watch-pid PID the server exits when that process is gone (no orphans after a crashed test).

Standard library only; the faults on the wire are in faultkinds.py beside it.
"""

import argparse
import email.utils
import hashlib
import http.server
import itertools
import json
import os
import re
import random
import socket
import socketserver
import sys
import threading
import time
import urllib.parse

from faultkinds import BODY_FAULTS, FAULT_KINDS, FaultyAnswers, corrupted, gzip_member

CONTENT_TYPES = {
    ".json": "application/json",
    ".pbf": "application/x-protobuf",
    ".mvt": "application/vnd.mapbox-vector-tile",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".webp": "image/webp",
}


class World:
    """Shared state: configuration, per-path request counts, ETag generation, the log."""

    def __init__(self, args):
        self.args = args
        self.root = os.path.abspath(args.root)
        self.base = ""
        self.lock = threading.Lock()
        self.counts = {}
        self.generation = 1
        self.request_serial = itertools.count(1)
        self.connection_serial = itertools.count(1)
        self.log_file = open(args.log, "a", buffering=1) if args.log else None
        self.arrival_file = open(args.arrival_log, "a", buffering=1) if args.arrival_log else None
        self.fail_paths = dict(parse_pair(p) for p in args.fail_path)
        self.redirects = dict(parse_pair(p) for p in args.redirect)
        self.scripts = {k: v.split(",") for k, v in (parse_pair(s) for s in args.script)}
        self.rates = [(kind, getattr(args, "rate_" + kind)) for kind in FAULT_KINDS]
        self.overlay = os.path.abspath(args.overlay) if args.overlay else None
        self.holding = threading.Condition()
        self.held_prefixes = []
        if sum(rate for _, rate in self.rates) > 1.0:
            raise SystemExit("fault rates add up to more than 1")

    def next_index(self, path):
        with self.lock:
            n = self.counts.get(path, 0)
            self.counts[path] = n + 1
            return n

    def decide(self, path):
        """The answer kind for this request: a fault name, a status string, or "ok"."""
        n = self.next_index(path)
        if path in self.fail_paths:
            return self.fail_paths[path]
        script = self.scripts.get(path)
        if script and n < len(script):
            return script[n]
        draw = random.Random(f"{self.args.seed}:{path}:{n}").random()
        for kind, rate in self.rates:
            if draw < rate:
                return kind
            draw -= rate
        return "ok"

    def log(self, entry):
        if self.log_file is None:
            return
        line = json.dumps(entry)
        with self.lock:
            self.log_file.write(line + "\n")

    def log_arrival(self, entry):
        if self.arrival_file is None:
            return
        line = json.dumps({k: entry[k] for k in ("time", "method", "uri", "connection")})
        with self.lock:
            self.arrival_file.write(line + "\n")

    def wait_if_held(self, path):
        """Blocks while a held prefix covers `path` (until /_control/release)."""
        with self.holding:
            while any(path.startswith(prefix) for prefix in self.held_prefixes):
                self.holding.wait()

    def hold(self, prefix):
        with self.holding:
            self.held_prefixes.append(prefix)

    def release(self):
        with self.holding:
            self.held_prefixes = []
            self.holding.notify_all()

    def file_for(self, relative):
        """The overlay's file for a relative path when it has one, else the root's; None outside both."""
        for base in ([self.overlay] if self.overlay else []) + [self.root]:
            full = os.path.normpath(os.path.join(base, relative))
            if full.startswith(base + os.sep) and os.path.isfile(full):
                return full
        return None

    def load(self, path):
        """(content, mtime) for a URL path, or None when there is no such file."""
        full = self.file_for(urllib.parse.unquote(path).lstrip("/"))
        if full is None:
            return None
        with open(full, "rb") as f:
            content = f.read()
        if full.endswith(".json"):
            content = content.replace(b"{base}", self.base.encode())
        return content, os.path.getmtime(full)

    def etag(self, content):
        digest = hashlib.sha1(content).hexdigest()[:16]
        mode = self.args.etag_mode
        if mode == "generation":
            return f'"g{self.generation}-{digest}"'
        if mode == "request":
            return f'"r{next(self.request_serial)}-{digest}"'
        return f'"{digest}"'


def parse_pair(text):
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"expected PATH=VALUE, got {text!r}")
    return key, value


class Handler(FaultyAnswers, http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultserver/1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connection_id = next(self.server.world.connection_serial)

    def log_message(self, format, *args):
        pass

    def do_HEAD(self):
        self.serve(send_body=False)

    def do_GET(self):
        self.serve(send_body=True)

    def serve(self, send_body):
        world = self.server.world
        path = urllib.parse.urlsplit(self.path).path
        self.entry = {
            "time": time.time(), "method": self.command, "uri": path, "status": 0, "fault": None,
            "if_none_match": self.headers.get("If-None-Match", ""),
            "accept_encoding": self.headers.get("Accept-Encoding", ""),
            "connection": self.connection_id, "bytes": 0, "range": self.headers.get("Range", ""),
        }
        self.logged = False
        world.log_arrival(self.entry)
        try:
            if path.startswith("/_control/"):
                self.control(path)
            else:
                world.wait_if_held(path)
                self.answer(path, world.decide(path), send_body)
        finally:
            self.log_entry()

    def log_entry(self):
        """Logs the request once, before its answer leaves: a client that has its answer can
        read the log line."""
        if not self.logged:
            self.logged = True
            self.server.world.log(self.entry)

    def control(self, path):
        world = self.server.world
        if path == "/_control/bump":
            with world.lock:
                world.generation += 1
        elif path == "/_control/hold":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            for prefix in query.get("prefix", []):
                world.hold(prefix)
        elif path == "/_control/release":
            world.release()
        self.send_simple(200, json.dumps({"generation": world.generation}).encode(), "application/json")

    def answer(self, path, kind, send_body):
        world = self.server.world
        if kind in FAULT_KINDS and kind not in BODY_FAULTS:
            self.entry["fault"] = kind
        if kind == "reset":
            return self.reset()
        if kind == "stall":
            self.log_entry()
            return self.hold()
        if kind == "429":
            return self.send_simple(429, b"slow down\n", "text/plain",
                                    {"Retry-After": str(world.args.retry_after)})
        if kind.isdigit() and kind != "200":
            return self.send_simple(int(kind), f"status {kind}\n".encode(), "text/plain")
        if path in world.redirects:
            location = world.redirects[path].replace("{base}", world.base)
            return self.send_simple(302, b"moved\n", "text/plain", {"Location": location})
        if kind == "slow":
            time.sleep(world.args.slow_seconds)
        self.send_file(path, kind, send_body)

    def send_file(self, path, kind, send_body):
        world = self.server.world
        loaded = world.load(path)
        if loaded is None:
            return self.send_simple(404, b"not found\n", "text/plain")
        content, mtime = loaded
        etag = world.etag(content)
        headers = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
        if world.args.cache_control:
            headers["Cache-Control"] = world.args.cache_control
        if self.not_modified(etag, mtime):
            return self.send_simple(304, b"", None, headers)
        if not self.matches(etag):
            return self.send_simple(412, b"precondition failed\n", "text/plain")
        status, body = 200, content
        wanted = self.byte_range(len(content))
        if wanted is not None:
            start, end = wanted
            status, body = 206, content[start:end + 1]
            headers["Content-Range"] = f"bytes {start}-{end}/{len(content)}"
        elif world.args.gzip and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip_member(content, os.path.basename(path))
            headers["Content-Encoding"] = "gzip"
            headers["Vary"] = "Accept-Encoding"
            if kind == "corrupt":
                self.entry["fault"] = "corrupt"
                body = corrupted(body)
        content_type = CONTENT_TYPES.get(os.path.splitext(path)[1], "application/octet-stream")
        if send_body and kind in ("truncate", "length", "drip", "hang"):
            return self.send_faulty(kind, body, self.head_bytes(status, content_type, len(body), headers))
        self.send_simple(status, body, content_type, headers, send_body)

    def byte_range(self, size):
        """(first, last) of a single `Range: bytes=a-b` or `bytes=a-` within the file; None
        without one (or for forms this server does not serve: suffixes, several ranges)."""
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", "").strip())
        if match is None or int(match.group(1)) >= size:
            return None
        last = int(match.group(2)) if match.group(2) else size - 1
        return int(match.group(1)), min(last, size - 1)

    def matches(self, etag):
        """If-Match: the request is for this version of the file (or any, `*`)."""
        wanted = self.headers.get("If-Match")
        return wanted is None or any(t.strip() in ("*", etag) for t in wanted.split(","))

    def not_modified(self, etag, mtime):
        candidates = self.headers.get("If-None-Match")
        if candidates is not None:
            tags = [t.strip() for t in candidates.split(",")]
            return "*" in tags or etag in tags or ("W/" + etag) in tags
        since = self.headers.get("If-Modified-Since")
        if since and self.server.world.args.etag_mode == "stable":
            parsed = email.utils.parsedate_to_datetime(since)
            return parsed is not None and int(mtime) <= parsed.timestamp()
        return False

    def head_bytes(self, status, content_type, length, headers):
        lines = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}",
                 f"Server: {self.server_version}", f"Date: {self.date_time_string()}",
                 f"Content-Length: {length}"]
        if content_type:
            lines.append(f"Content-Type: {content_type}")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def send_simple(self, status, body, content_type, headers=None, send_body=True):
        # One write for head and body: two small writes meet Nagle and delayed ACKs (40 ms).
        head = self.head_bytes(status, content_type, len(body), headers)
        self.entry["status"] = status
        self.entry["bytes"] = len(body) if send_body else 0
        self.log_entry()
        self.wfile.write(head + (body if send_body and status != 304 else b""))


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # the default 5 drops SYNs when 20 clients connect at once

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)  # no getfqdn(): no DNS on startup
        self.server_name, self.server_port = self.server_address[:2]


def watch(pid):
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="folder to serve (Fixtures/world)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--log", help="access log, JSON lines")
    parser.add_argument("--arrival-log", help="one JSON line per request as it arrives")
    parser.add_argument("--seed", type=int, default=1)
    for kind in FAULT_KINDS:
        parser.add_argument(f"--rate-{kind}", dest=f"rate_{kind}", type=float, default=0.0)
    parser.add_argument("--retry-after", type=int, default=1)
    parser.add_argument("--slow-seconds", type=float, default=0.2)
    parser.add_argument("--drip-seconds", type=float, default=1.0, help="how long a dripped body takes")
    parser.add_argument("--drip-bytes", type=int, default=64, help="bytes per write of a dripped body")
    parser.add_argument("--hang-seconds", type=float, default=300, help="the longest a hang or stall holds on")
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--etag-mode", choices=["stable", "request", "generation"], default="stable")
    parser.add_argument("--fail-path", action="append", default=[])
    parser.add_argument("--script", action="append", default=[])
    parser.add_argument("--redirect", action="append", default=[])
    parser.add_argument("--cache-control")
    parser.add_argument("--overlay", help="a folder whose files replace the root's of the same path")
    parser.add_argument("--watch-pid", type=int)
    args = parser.parse_args()

    world = World(args)
    server = Server((args.host, args.port), Handler)
    server.world = world
    port = server.server_address[1]
    world.base = f"http://{args.host}:{port}"
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"PORT {port}", flush=True)
    if args.watch_pid:
        threading.Thread(target=watch, args=(args.watch_pid,), daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
