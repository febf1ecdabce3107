#!/usr/bin/env bash
# The content check's cost (docs/design.md §4): `packfs download` of TILES unique real vector
# tiles (gen_tiles.py: the Helsinki fixture's city tiles made unique, served gzip-encoded by
# nginx as download.sh serves them) under `perf record`, ROUNDS times. Prints per round the wall
# seconds, the process's CPU seconds, and the share of its CPU samples in the check (StyleModel's
# ContentCheck, VectorTileCheck and ProtobufCursor, which every fetched tile goes through before
# it is stored) beside the share in zlib and libdeflate (decoding bodies, compressing what is
# stored), with the check's CPU per tile. KEEP=1 keeps the work directory (perf.data for
# `perf report`); PERF_FLAGS adds options to `perf record` (--call-graph=fp).
# usage: content.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-20000}
rounds=${2:-3}
source "$(dirname "$0")/common.sh"
command -v perf >/dev/null || { echo "content.sh needs perf (linux-perf)" >&2; exit 1; }
bench_start content
rm -rf "$work"
mkdir -p "$work"
serve_tiles "$work" "$tiles"
trap 'kill $server 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

echo "tiles: $count (unique, z15, real vector tiles), nginx 1 worker, loopback, $(nproc) cores"
printf '%-6s %8s %8s %8s %12s %14s\n' round "wall s" "cpu s" check "zlib+deflate" "check us/tile"
for round in $(seq "$rounds"); do
  rm -f "$work/packs.db"
  start=$(date +%s.%N)
  perf record -q ${PERF_FLAGS:-} -F 2000 -o "$work/perf.data" -- \
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$packfs" download "$work/packs.db" bench "$work/world/region.json" \
    >/dev/null 2>"$work/perf.out"
  wall=$(python3 -c "import time; print(time.time() - $start)")
  stored=$(sqlite3 "$work/packs.db" "SELECT COUNT(*) FROM tiles WHERE data IS NOT NULL")
  [ "$stored" = "$count" ] || { echo "packfs stored $stored of $count tiles" >&2; exit 1; }
  # Self time per library and symbol over every thread of the run (the decode workers that run
  # the check are named "PackFS decode N"), in percent of its samples.
  perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null \
    | python3 -c '
import re, sys
check = codecs = 0.0
for line in sys.stdin:
    m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\S+\s+(.*)", line)
    if not m:
        continue
    share, library, symbol = float(m.group(1)), m.group(2), m.group(3)
    if re.search(r"ContentCheck|VectorTileCheck|ProtobufCursor|GlyphRangeCheck|ImageSignature", symbol):
        check += share
    elif re.match(r"lib(z|deflate)\.so", library):
        codecs += share
print(f"{check:.2f} {codecs:.2f}")' >"$work/shares"
  read -r user sys <"$work/cpu"
  read -r check codecs <"$work/shares"
  printf '%-6s %8.2f %8.2f %7.2f%% %11.2f%% %14.2f\n' "$round" "$wall" "$(python3 -c "print($user + $sys)")" \
    "$check" "$codecs" "$(python3 -c "print(($user + $sys) * $check / 100 / $count * 1e6)")"
done
