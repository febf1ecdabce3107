#!/usr/bin/env bash
# Makes docs/pack.png, the README's picture: the Helsinki pack downloaded from the bundled sample
# tile server into a fresh mount, then drawn by MapLibre Native (pymgl, headless) from the mount's
# packs/helsinki/style.json, which names only file:// paths in the mount.
#
# usage: scripts/render-readme-picture.sh [OUT.png]     (default docs/pack.png)
#   PACKFS_BIN=path/to/packfs   use that binary instead of building a release one
# Needs what scripts/setup.sh --tests installs (pymgl, Mesa EGL), root and /dev/fuse.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-docs/pack.png}")"
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
if [ -z "${PACKFS_BIN:-}" ]; then
  swift build -c release --product packfs
  PACKFS_BIN="$(swift build -c release --show-bin-path)/packfs"
fi
work=$(mktemp -d /tmp/packfs-picture.XXXXXX)
mnt="$work/mnt"
mkdir -p "$mnt"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
Tests/servers/nginx-world.sh --dir "$work/server" --port "$port" --die-with-parent >"$work/server.log" 2>&1 &
server=$!
cleanup() { fusermount3 -u "$mnt" 2>/dev/null || true; kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# Waits up to $1 seconds for the command that follows to succeed.
within() {
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "timed out: $*" >&2; return 1; }
    sleep 0.1
  done
}
within 30 curl -sf -o /dev/null "http://127.0.0.1:$port/styles/bright.json"
"$PACKFS_BIN" mount "$work/packs.db" "$mnt"
printf '{"style": "http://127.0.0.1:%s/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}\n' \
  "$port" >"$mnt/packs/helsinki.region"
within 120 grep -q '"state":"complete"' "$mnt/packs/helsinki/progress.json"

EGL_PLATFORM=surfaceless python3 - "file://$mnt/packs/helsinki/style.json" "$out" <<'PYTHON'
import struct, sys, zlib
sys.path.insert(0, "Tests/render")
import pymgl
from render_compare import HEIGHT, WIDTH, render

style, out = sys.argv[1], sys.argv[2]
rgba = render(pymgl, style, ("readme", 15.0, 24.944, 60.171))
rgb = bytes(b for i in range(0, len(rgba), 4) for b in rgba[i:i + 3])  # the map is opaque


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


# Each row with the PNG filter that leaves the smallest sum of bytes (the usual heuristic).
stride, rows, previous = WIDTH * 3, [], bytes(WIDTH * 3)
for y in range(HEIGHT):
    row = rgb[y * stride:(y + 1) * stride]
    left = lambda i: row[i - 3] if i >= 3 else 0
    upleft = lambda i: previous[i - 3] if i >= 3 else 0
    candidates = [
        bytes(row),
        bytes((row[i] - left(i)) & 255 for i in range(stride)),
        bytes((row[i] - previous[i]) & 255 for i in range(stride)),
        bytes((row[i] - (left(i) + previous[i]) // 2) & 255 for i in range(stride)),
        bytes((row[i] - paeth(left(i), previous[i], upleft(i))) & 255 for i in range(stride)),
    ]
    kind = min(range(5), key=lambda k: sum(b if b < 128 else 256 - b for b in candidates[k]))
    rows.append(bytes([kind]) + candidates[kind])
    previous = row


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


with open(out, "wb") as handle:
    handle.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
                 + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))
print(f"{out}: {WIDTH}x{HEIGHT}, zoom 15 over central Helsinki, drawn from the mount")
PYTHON
