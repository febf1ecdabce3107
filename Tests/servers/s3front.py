#!/usr/bin/env python3
"""A front for an S3 server (moto) that fails chosen requests on purpose, for PackFS's upload tests.

Every request is logged as it arrives (--arrival-log: one JSON line {time, method, uri}), then
either answered here or forwarded to --upstream HOST:PORT as it came (Host header and all, so
the upstream checks the client's signature) and its answer passed back. Rules match a request
when MATCH occurs in its method and URI ("PUT /packs/k.pmtiles?partNumber=2&..."):

  --fail MATCH=STATUS         always answer STATUS with an S3 error body (InternalError)
  --script MATCH=KIND,...     the first matching requests get these answers in order, later ones
                              are forwarded; KIND is a status, "reset" (closed with an RST, no
                              answer) or "ok" (forwarded)
  --hold MATCH                read the request and answer nothing, ever (until the process dies)

The port (0 = chosen by the OS) is written to --port-file. With --watch-pid PID the front exits
when that process is gone. Standard library only.
"""

import argparse
import http.client
import http.server
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time

from faultserver import watch  # exits when the process that started the server is gone

HOP_BY_HOP = {"connection", "keep-alive", "expect", "transfer-encoding", "proxy-connection", "upgrade"}


class Front:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.fail = [rule.rsplit("=", 1) for rule in args.fail]
        self.script = [(match, kinds.split(",")) for match, kinds in (rule.rsplit("=", 1) for rule in args.script)]
        self.script_used = {}

    def decide(self, request):
        """"forward", "hold", "reset" or a status for `request` ("METHOD URI")."""
        with self.lock:
            for match in self.args.hold:
                if match in request:
                    return "hold"
            for match, status in self.fail:
                if match in request:
                    return status
            for match, kinds in self.script:
                if match in request:
                    used = self.script_used.get(match, 0)
                    self.script_used[match] = used + 1
                    if used < len(kinds) and kinds[used] != "ok":
                        return kinds[used]
            return "forward"

    def arrived(self, method, uri):
        if not self.args.arrival_log:
            return
        line = json.dumps({"time": time.time(), "method": method, "uri": uri})
        with self.lock, open(self.args.arrival_log, "a") as log:
            log.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_ANY(self):
        front = self.server.front
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        front.arrived(self.command, self.path)
        decision = front.decide(f"{self.command} {self.path}")
        if decision == "hold":
            threading.Event().wait()
        if decision == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if decision != "forward":
            self.answer(int(decision), b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code>"
                        b"<Message>injected by s3front.py</Message></Error>", {"Content-Type": "application/xml"})
            return
        host, port = front.args.upstream.rsplit(":", 1)
        upstream = http.client.HTTPConnection(host, int(port), timeout=60)
        try:
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    upstream.putheader(name, value)
            upstream.putheader("Content-Length", str(len(body)))
            upstream.endheaders(body)
            response = upstream.getresponse()
            content = response.read()
            headers = {k: v for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP | {"content-length"}}
            self.answer(response.status, content, headers)
        except OSError as error:
            self.answer(502, f"upstream: {error}".encode(), {"Content-Type": "text/plain"})
        finally:
            upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_ANY

    def answer(self, status, body, headers):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the S3 server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--arrival-log")
    parser.add_argument("--fail", action="append", default=[])
    parser.add_argument("--script", action="append", default=[])
    parser.add_argument("--hold", action="append", default=[])
    parser.add_argument("--watch-pid", type=int)
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.front = Front(args)
    if args.watch_pid:
        threading.Thread(target=watch, args=(args.watch_pid,), daemon=True).start()
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"PORT {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
