#!/usr/bin/env bash
# Installs what PackFS needs on a fresh Debian machine (run as root, or with sudo):
#   setup.sh            to build and run it (the main job, scripts/demo.sh, scripts/package.sh),
#                       and the web page a `--web-base` mount shows into /usr/share/packfs/web:
#                       web/ and MapLibre GL JS (BSD-3) from PyPI's maplibre, with its licence
#   setup.sh --tests    and to test it: Mesa EGL and pymgl (MapLibre Native) for the render tests,
#                       Chromium, its driver and selenium for the web tests, the reference tile-cover and PMTiles/MBTiles readers, moto's S3
#                       server for the upload tests, strace.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(libfuse3-dev fuse3 liburing-dev libcurl4-openssl-dev libssl-dev zlib1g-dev libdeflate-dev libsqlite3-dev sqlite3 nginx-light
  pkg-config curl openssl python3-pip
  attr)  # getfattr and setfattr, which docs/mount.md uses on region files' user.packfs.* attributes
tests=false
[ "${1:-}" = --tests ] && tests=true
if $tests; then
  packages+=(libegl-mesa0 libgl1-mesa-dri  # headless rendering for the render tests (Mesa EGL, surfaceless)
    chromium chromium-driver  # the web-map test: MapLibre GL JS in headless Chromium (Tests/web)
    strace)
fi
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# MapLibre GL JS, never from a CDN: PyPI's maplibre carries maplibre-gl.js and .css (find_spec:
# importing it logs warnings). The page is assembled as the user, then installed.
python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('maplibre') is None)" || pip install -q maplibre
page=$(mktemp -d)
"$(dirname "$0")/web-assets.sh" "$page"
$SUDO install -d -m 0755 /usr/share/packfs/web
$SUDO install -m 0644 "$page"/* /usr/share/packfs/web/
rm -rf "$page"
if $tests; then
  # Independent references for the tile-cover tests.
  python3 -c "import mercantile, supermercado" 2>/dev/null || pip install -q mercantile supermercado
  # MapLibre Native for the render test (Tests/render/render_compare.py).
  python3 -c "import pymgl" 2>/dev/null || pip install -q pymgl
  # Independent readers of what `packfs export` writes, and the browser tests' driver: pmtiles,
  # pymbtiles, selenium.
  python3 -c "import pmtiles, pymbtiles, selenium" 2>/dev/null || pip install -q pmtiles pymbtiles selenium
  # An S3-compatible server for the upload tests (S3ExportTests): moto's, run as python3 -m moto.server.
  python3 -c "import moto.server, flask" 2>/dev/null || pip install -q "moto[server]"
fi
# A Debian nginx package may start a system-wide server on port 80; PackFS's tests run their own.
if command -v swift >/dev/null 2>&1; then :; elif [ -x /opt/swift/usr/bin/swift ]; then
  echo "note: add /opt/swift/usr/bin to PATH" >&2
fi
