#!/usr/bin/env bash
# pmtiles:// sources (issue 22, item 1): the same region downloaded from one PMTiles archive by
# range requests and from a z/x/y tree of its tiles, both served by nginx on loopback (the tree's
# tiles pre-gzipped, so both send the same bytes). Prints, for each: requests, bytes sent against
# the tiles' own bytes (the gzip members the archive holds), tiles per request, and the
# download's wall time, with the archive's time as a ratio of the tree's.
#   1. the fixture world: central Helsinki, zooms 0-14 (bright-pmtiles.json against bright.json;
#      the openmaptiles source's 19 tiles);
#   2. a generated archive of an OUTER x OUTER block of z14 tiles and their parents (default 256:
#      87,650 tiles, 250 MiB) holding a region of INNER x INNER z14 tiles (default 96: 12,491
#      tiles of zooms 0-14, 36 MiB), as a country's archive holds a region; then its z14 alone.
# Needs root for nothing; python3 with pmtiles (setup.sh --tests). usage: pmtiles.sh [OUTER INNER]
set -euo pipefail
outer=${1:-256} inner=${2:-96}
source "$(dirname "$0")/common.sh"
bench_start pmtiles
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
servers=()
trap 'for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

# serve NAME WORLD: nginx-world.sh on a free port serving WORLD (pre-gzipped); sets $base.
serve() {
  local port; port=$2
  Tests/servers/nginx-world.sh --dir "$work/$1" --port "$port" --world "$3" --pregzip --die-with-parent \
    >"$work/$1.out" 2>&1 &
  servers+=($!)
  base=http://127.0.0.1:$port
  for _ in $(seq 200); do curl -sf -o /dev/null "$base/styles/$4" && return; sleep 0.1; done
  echo "nginx did not start: $(cat "$work/$1.out")" >&2; exit 1
}

# fetch NAME REGION PATTERN: downloads REGION into a new database and prints "seconds requests
# bytes" for the requests whose path matches the regular expression PATTERN (nginx's log).
fetch() {
  local log=$work/$4/access.log before start end
  before=$(wc -l <"$log")
  start=$(date +%s.%N)
  "$packfs" download "$work/$1.db" pack "$2" >/dev/null 2>&1
  end=$(date +%s.%N)
  curl -s -o /dev/null "$base/_settled/$1"
  for _ in $(seq 100); do grep -q "_settled/$1" "$log" && break; sleep 0.05; done
  tail -n +$((before + 1)) "$log" | python3 -c '
import json, re, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
hits = [r for r in rows if re.search(sys.argv[1], r["uri"])]
sent = sum(r["bytes"] for r in hits)
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.3f} {len(hits)} {sent}")' "$3" "$start" "$end"
}

line() {  # line LABEL TILES OWN_BYTES "SECONDS REQUESTS BYTES"
  read -r seconds requests bytes <<<"$4"
  python3 -c '
import sys
label, tiles, own, seconds, requests, sent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
print(f"  {label:<22} {requests:>7} requests  {tiles / max(requests, 1):7.1f} tiles/request  {sent / 2**20:8.2f} MiB = {sent / own:5.3f}x the tiles bytes  {seconds:7.2f} s")' \
    "$1" "$2" "$3" "$seconds" "$requests" "$bytes"
}

echo "1. fixture world: central Helsinki, zooms 0-14, source openmaptiles (19 tiles)"
port=$(free_port)
serve fixture "$port" "$PWD/Fixtures/world" bright.json
for style in bright bright-pmtiles; do
  echo "{\"style\": \"$base/styles/$style.json\", \"bounds\": [24.93, 60.16, 24.96, 60.18], \"minzoom\": 0, \"maxzoom\": 14}" \
    >"$work/$style.region"
done
own=$(python3 Tests/interchange/pmtiles_read.py Fixtures/world/tiles/helsinki.pmtiles | python3 -c '
import base64, json, sys; print(sum(len(base64.b64decode(v)) for v in json.load(sys.stdin)["tiles"].values()))')
zxy=$(fetch fixture-zxy "$work/bright.region" '^/tiles/helsinki/' fixture)
archive=$(fetch fixture-archive "$work/bright-pmtiles.region" '^/tiles/helsinki\.pmtiles$' fixture)
line "z/x/y tree" 19 "$own" "$zxy"
line "archive (all)" 19 "$own" "$archive"

echo "2. generated: an archive of a ${outer}x${outer} block of z14 tiles and parents, a ${inner}x${inner} region inside"
port=$(free_port)
python3 scripts/bench/gen_archive.py "$work/world" "http://127.0.0.1:$port" "$outer" "$inner" >"$work/sizes.json"
read -r archive_tiles archive_bytes tiles bytes tiles14 bytes14 < <(python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))
print(s["archive_tiles"], s["archive_bytes"], s["tiles"], s["bytes"], s["tiles_z14"], s["bytes_z14"])' "$work/sizes.json")
echo "  archive: $archive_tiles tiles, $((archive_bytes >> 20)) MiB; region: $tiles tiles of zooms 0-14, $((bytes >> 20)) MiB"
serve generated "$port" "$work/world" zxy.json
zxy=$(fetch zxy "$work/world/zxy-z0.region" '^/zxy/' generated)
archive=$(fetch archive "$work/world/archive-z0.region" '^/archive\.pmtiles$' generated)
archive14=$(fetch archive14 "$work/world/archive-z14.region" '^/archive\.pmtiles$' generated)
line "z/x/y tree" "$tiles" "$bytes" "$zxy"
line "archive (all)" "$tiles" "$bytes" "$archive"
line "archive, z14 alone" "$tiles14" "$bytes14" "$archive14"
python3 -c 'import sys; print(f"  time, archive / z/x/y tree: {float(sys.argv[2]) / float(sys.argv[1]):.2f}")' \
  "$(cut -d' ' -f1 <<<"$zxy")" "$(cut -d' ' -f1 <<<"$archive")"
