#!/usr/bin/env bash
# Fresh and provable packs (issue 29), on packs made from the fixture's real tiles, each figure
# against a floor or a baseline measured in the same run. Parts (FRESH_PARTS, default all):
#   verify    `packfs verify` of an imported pack (hash, inflation, vector tile structure,
#             recorded hash) against its floors: large tiles (Helsinki's of 4 KiB and more; LARGE,
#             default 40,000: ~900 MB) against md5sum over the same bytes as one file (read once
#             before, so both read from the page cache); small tiles (the land fixture's, ~400
#             bytes; SMALL, default 500,000) against sqlite3 reading the same rows (`instr` over
#             each blob for a pattern no tile holds reads every byte). Target: at most twice the floor.
#             Beside it, the work floor: what verify cannot skip (the read in its order, the MD5,
#             the inflation of every tile), each part measured alone, overlapped on the cores.
#   patch     a pack of TILES (default 1,000,000) land tiles on a mount: a patch changing 1% and
#             one changing 100% of its tiles (martin's format, made by fresh_patch.py) copied to
#             packs/fresh.patch: apply time, and the slowest read of another pack's tiles
#             (O_DIRECT, so every read reaches the daemon) meanwhile, against the slowest read of
#             the same reader without a patch.
#   touch     the same changes made on the origin (nginx on loopback serving the pack's directory
#             export) and brought in by `packfs refresh`: requests and time, against the patch.
#   coverage  cat packs/fresh/coverage.geojson, cold (first read after the mount), for the pack
#             of TILES tiles.
# PACKFS_BIN: a built packfs to use (else a release build).
# usage: fresh.sh [LARGE SMALL]
set -euo pipefail
large=${1:-40000} small=${2:-500000}
source "$(dirname "$0")/common.sh"
bench_start fresh
rm -rf "$work" && mkdir -p "$work"

scan="SELECT count(*), sum(instr(data, x'ff00ff00ff00')) FROM tiles"
# The rows verify reads, in its order (the tiles index by z, x, y, each a member of the pack):
# `max` loads every blob and compares only up to the first differing byte.
ordered="SELECT count(*), length(max(data)) FROM (SELECT data FROM tiles t
  WHERE url_template = (SELECT url_template FROM tiles LIMIT 1) AND pixel_ratio = 1 AND data IS NOT NULL
    AND EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = (SELECT id FROM regions) AND rt.tile_id = t.id)
  ORDER BY z, x, y)"
cores=$(nproc)
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -o "$work/inflate_floor" scripts/bench/inflate_floor.c $(pkg-config --cflags --libs sqlite3 libdeflate)

# one NAME FIXTURE COUNT MIN FLOOR: builds and imports the pack, times verify against the
# issue's floor (FLOOR: md5sum of the bytes, or sqlite3 reading every byte of the rows), and
# against the work verify cannot skip, each part measured alone: the read of the rows in
# verify's order, MD5 of the bytes (md5sum; one stream, so one core), and the inflation of every
# tile (libdeflate, inflate_floor.c). On this machine's cores the parts overlap at best, so the
# work floor is the largest of them or their sum over the cores, whichever is more.
one() {
  local name=$1 db=$work/$1.db bytes
  bytes=$(python3 scripts/bench/gen_fresh.py "$2" "$work/$1.mbtiles" "$3" "$4")
  "$packfs" import "$db" "$work/$1.mbtiles" --name "$1" >/dev/null
  rm -f "$work/$1.mbtiles"
  local rows="SELECT data FROM tiles t JOIN region_tiles rt ON rt.tile_id = t.id ORDER BY t.id"
  python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); f=open(sys.argv[2],'wb')
for (d,) in db.execute(sys.argv[3]): f.write(d)" "$db" "$work/$1.bytes" "$rows"
  cat "$work/$1.bytes" "$db" >/dev/null
  timed md5 md5sum "$work/$1.bytes" >/dev/null
  rm -f "$work/$1.bytes"
  timed scanned sqlite3 "$db" "$scan" >/dev/null
  timed read sqlite3 "$db" "$ordered" >/dev/null
  local inflate; inflate=$("$work/inflate_floor" "$db" | cut -d' ' -f1)
  timed verify "$packfs" verify "$db" "$1" >"$work/$1.out"
  local floor=$md5; [ "$5" = md5 ] || floor=$scanned
  python3 - "$1" "$3" "$bytes" "$verify" "$5" "$floor" "$read" "$md5" "$inflate" "$cores" <<'PY'
import sys
name, tiles, size, verify, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
floor, read, md5, inflate, cores = map(float, sys.argv[6:])
work = max(read, md5, inflate / cores, (read + md5 + inflate) / cores)
print(f"{name}: {tiles} tiles, {size} bytes; verify {verify:.3f} s, {kind} floor {floor:.3f} s: "
      f"verify/floor {verify / floor:.2f} (target <= 2)")
print(f"  work floor on {cores:.0f} cores {work:.3f} s (ordered read {read:.3f}, md5 {md5:.3f}, "
      f"inflate {inflate:.3f}): verify/work floor {verify / work:.2f}, "
      f"{kind} floor x2 / work floor {2 * floor / work:.2f} (below 1: the target is beyond the work floor)")
PY
  record "fresh_${1}_verify_s" "$verify"
  record "fresh_${1}_floor_s" "$floor"
  record "fresh_${1}_work_floor_parts" "$read/$md5/$inflate"
}

parts=${FRESH_PARTS:-verify patch touch coverage}
tiles=${TILES:-1000000}
has() { [[ " $parts " == *" $1 "* ]]; }

if has verify; then
  one large Fixtures/mbtiles/helsinki.mbtiles "$large" 4096 md5
  one small Fixtures/mbtiles/land.mbtiles "$small" 0 sqlite
fi
if has patch || has touch || has coverage; then
  source "$(dirname "$0")/fresh_parts.sh"
  make_packs
  has coverage && coverage_part
  has patch && patch_part
  has touch && touch_part
fi
