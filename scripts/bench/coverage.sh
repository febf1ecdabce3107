#!/usr/bin/env bash
# Coverage benchmark: a pack of about N tiles (default 1,000,000: a disc around Helsinki at zooms
# 0-14, one z14 tile in a thousand missing, each tile one of the fixture world's real vector
# tiles; gen_coverage_pack.py) and the time of a cold read of packs/big/coverage.geojson through
# the mount: a fresh mount, page cache, dentries and inodes dropped, then `cat` (lookups, getattr,
# open, read: the daemon draws the document from the pack's kept runs). Target: 50 ms. Also
# prints the document's size and shape, the plans of its queries, and what PackFS's triggers
# (packfs_pack_runs among them) cost the insertion of the pack's memberships against a file
# without them (an app's). Needs root (drop_caches) and FUSE. usage: coverage.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-1000000}
rounds=${2:-5}
source "$(dirname "$0")/common.sh"
bench_start coverage
fresh_mount_dir
trap 'fusermount3 -u "$work/mnt" 2>/dev/null || true' EXIT

# The same pack twice: into a file with PackFS's bookkeeping (its first write makes it), and
# into a file as an app leaves it, for the triggers' cost.
"$packfs" reset "$work/app.db" >/dev/null
read -r _ app_seconds < <(python3 scripts/bench/gen_coverage_pack.py "$work/app.db" "$tiles")
rm -f "$work/app.db"
"$packfs" reset "$work/packs.db" >/dev/null
"$packfs" cache "$work/packs.db" limit 50M >/dev/null
read -r count seconds < <(python3 scripts/bench/gen_coverage_pack.py "$work/packs.db" "$tiles")
echo "pack: $count tiles; memberships inserted in $seconds s with PackFS's triggers, $app_seconds s without"
record "# coverage tiles" "$count"

mount_db "$work/packs.db" "$work/mnt"
cat "$work/mnt/packs/big/coverage.geojson" >"$work/coverage.geojson"
unmount_db "$work/packs.db" "$work/mnt"
python3 - "$work/coverage.geojson" <<'PY'
import json, os, sys
document = json.load(open(sys.argv[1]))
top = document["features"][-1]
polygons = top["geometry"]["coordinates"]
print("document: %d bytes, %d features; z%d: %d tiles, %d polygons, %d holes, %d positions" % (
    os.path.getsize(sys.argv[1]), len(document["features"]), top["properties"]["zoom"], top["properties"]["tiles"],
    len(polygons), sum(len(p) - 1 for p in polygons), sum(len(r) for p in polygons for r in p)))
PY
echo "query plans:"
for sql in "SELECT 1 FROM packfs_pack_counts WHERE region_id = 1 AND counting = 0" \
  "SELECT z, x, min_y, max_y FROM packfs_pack_runs WHERE region_id = 1 AND url_template = 'http://bench.invalid/helsinki/{z}/{x}/{y}.pbf' AND pixel_ratio = 1 ORDER BY z, x, min_y"; do
  echo "  $sql"
  sqlite3 "$work/packs.db" "EXPLAIN QUERY PLAN $sql" | sed 's/^/    /'
done
echo "runs kept: $(sqlite3 "$work/packs.db" "SELECT COUNT(*) FROM packfs_pack_runs")"

# cold_read: a fresh mount, caches dropped, one `cat` of the file, timed.
cold_read() { cat "$work/mnt/packs/big/coverage.geojson" >/dev/null; }
figures=()
for round in $(seq "$rounds"); do
  mount_db "$work/packs.db" "$work/mnt"
  drop_caches
  timed seconds cold_read
  unmount_db "$work/packs.db" "$work/mnt"
  ms=$(awk -v s="$seconds" 'BEGIN { printf "%.1f", s * 1000 }')
  figures+=("$ms")
  record "coverage/cold_ms" "$ms"
  echo "round $round: cold read of coverage.geojson $ms ms"
done
printf '%s\n' "${figures[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "cold read: median %s ms (min %s, max %s) over %d rounds; target 50 ms\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
