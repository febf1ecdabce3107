#!/usr/bin/env bash
# Fresh and provable packs (issue 29), on packs made from the fixture's real tiles, each figure
# against a floor or a baseline measured in the same run. Parts (FRESH_PARTS, default all):
#   verify    `packfs verify` of an imported pack (hash, inflation, vector tile structure,
#             recorded hash) against its floors: large tiles (Helsinki's of 4 KiB and more; LARGE,
#             default 40,000: ~900 MB) against md5sum over the same bytes as one file (read once
#             before, so both read from the page cache); small tiles (the land fixture's, ~400
#             bytes; SMALL, default 500,000) against sqlite3 reading the same rows (`instr` over
#             each blob for a pattern no tile holds reads every byte). Target: at most twice the floor.
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
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-fresh}
source "$(dirname "$0")/common.sh"
if [ -n "${PACKFS_BIN:-}" ]; then packfs=$PACKFS_BIN; cd "$(dirname "${BASH_SOURCE[0]}")/../.."; else build_packfs; fi
rm -rf "$work" && mkdir -p "$work"

scan="SELECT count(*), sum(instr(data, x'ff00ff00ff00')) FROM tiles"

# one NAME FIXTURE COUNT MIN FLOOR: builds and imports the pack, times verify and FLOOR (md5 or sqlite).
one() {
  local name=$1 db=$work/$1.db bytes
  bytes=$(python3 scripts/bench/gen_fresh.py "$2" "$work/$1.mbtiles" "$3" "$4")
  "$packfs" import "$db" "$work/$1.mbtiles" --name "$1" >/dev/null
  rm -f "$work/$1.mbtiles"
  local rows="SELECT data FROM tiles t JOIN region_tiles rt ON rt.tile_id = t.id ORDER BY t.id"
  if [ "$5" = md5 ]; then
    python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); f=open(sys.argv[2],'wb')
for (d,) in db.execute(sys.argv[3]): f.write(d)" "$db" "$work/$1.bytes" "$rows"
    cat "$work/$1.bytes" >/dev/null
    timed floor md5sum "$work/$1.bytes" >/dev/null
  else
    sqlite3 "$db" "$scan" >/dev/null
    timed floor sqlite3 "$db" "$scan" >/dev/null
  fi
  cat "$db" >/dev/null
  timed verify "$packfs" verify "$db" "$1" >"$work/$1.out"
  local ratio; ratio=$(python3 -c "print(f'{$verify / $floor:.2f}')")
  echo "$1: $3 tiles, $bytes bytes; verify ${verify} s, $5 floor ${floor} s: verify/floor $ratio (target <= 2)"
  record "fresh_${1}_verify_s" "$verify"
  record "fresh_${1}_floor_s" "$floor"
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
