#!/usr/bin/env bash
# `packfs verify` against its floors (issue 29): a pack of the fixture's real tiles (Helsinki's
# gzipped vector tiles, cycled over a block of z16 tiles) imported from MBTiles, then verified
# (hash, inflation, vector tile structure, recorded hash), timed against, in the same run:
#   - large tiles (Helsinki's tiles of 4 KiB and more; LARGE tiles, default 40,000: ~900 MB):
#     md5sum over the same bytes as one file (the tiles' stored bytes, concatenated, read once
#     before so that both read from the page cache);
#   - small tiles (the land fixture's, ~400 bytes; SMALL tiles, default 500,000): sqlite3
#     reading the same rows (`instr` over each blob for a pattern no tile holds reads every byte;
#     `length(data || x'')` does not: `||` makes text, which ends at the first NUL).
# The target: verify takes at most twice its floor. PACKFS_BIN: a built packfs to use (else a
# release build). usage: fresh.sh [LARGE SMALL]
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

one large Fixtures/mbtiles/helsinki.mbtiles "$large" 4096 md5
one small Fixtures/mbtiles/land.mbtiles "$small" 0 sqlite
