"""What faultserver.py does to an answer on the wire (see its header for the kinds): a mixin of
its request handler, and the gzip helpers. Standard library only."""

import gzip
import io
import socket
import struct
import time

FAULT_KINDS = ["500", "502", "503", "429", "reset", "truncate", "length", "corrupt", "slow", "drip", "hang",
               "stall"]
# Faults done to a file's answer (they need the body); the others replace the answer.
BODY_FAULTS = ("truncate", "length", "corrupt", "drip", "hang")


class FaultyAnswers:
    """Methods of faultserver's Handler that send answers gone wrong, or none."""

    def send_faulty(self, kind, body, head):
        """A 200 whose body goes wrong on the wire in the way `kind` names."""
        self.entry.update(fault=kind, status=200, bytes=len(body))
        if kind == "truncate":
            self.entry["bytes"] = len(body) // 2
            self.log_entry()
            self.wfile.write(head + body[: len(body) // 2])
            return self.close_now()
        if kind == "length":
            short = len(body) - max(1, len(body) // 4)
            head = head.replace(f"Content-Length: {len(body)}\r\n".encode(), f"Content-Length: {short}\r\n".encode())
            self.log_entry()
            self.wfile.write(head + body)
            return self.close_now()
        if kind == "hang":
            self.entry["bytes"] = len(body) // 2
            self.log_entry()
            self.wfile.write(head + body[: len(body) // 2])
            return self.hold()
        self.log_entry()
        self.drip(head, body)

    def drip(self, head, body):
        """The body in --drip-bytes pieces spread evenly over --drip-seconds."""
        args = self.server.world.args
        pieces = [body[i:i + args.drip_bytes] for i in range(0, len(body), args.drip_bytes)] or [b""]
        pause = args.drip_seconds / len(pieces)
        self.wfile.write(head)
        for piece in pieces:
            time.sleep(pause)
            self.wfile.write(piece)

    def close_now(self):
        """A clean close (FIN) once what was written has gone."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def hold(self):
        """Keeps the connection open and silent until the client closes it: a server that stopped
        answering (what a client's stall timeout is for). Bounded by --hang-seconds."""
        self.close_connection = True
        self.connection.settimeout(self.server.world.args.hang_seconds)
        try:
            while self.connection.recv(4096):
                pass
        except OSError:
            pass

    def reset(self):
        # SO_LINGER with a zero timeout turns close() into an RST: a real reset, not a clean FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.log_entry()
        self.connection.close()


def gzip_member(content, name):
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buffer, mtime=1700000000) as f:
        f.write(content)
    return buffer.getvalue()


def corrupted(body):
    damaged = bytearray(body)
    middle = 10 + (len(body) - 18) // 2  # inside the deflate data, past any short header
    damaged[middle] ^= 0x55
    damaged[-8] ^= 0xFF  # and the CRC-32, so even a lucky flip cannot pass
    return bytes(damaged)
