#!/usr/bin/env bash
# Download benchmark: `packfs download` of a generated region of N unique tiles (default 20,000)
# from nginx on loopback (pre-gzipped tiles, gzip_static, as tile servers serve MBTiles blobs),
# against `curl --parallel --parallel-max 20` fetching the same URL list to files, in the same run.
# Prints tiles per second for both and the ratio. usage: download.sh [TILES] [ROUNDS]
#
# File creation is slow on an ext4 without a journal (this project's machines) for about six
# minutes after many files were deleted nearby: the inode allocator skips every recently
# deleted inode, one lookup each (curl's 20,000 files took 4-8 s instead of 1.4 s). So nothing
# is deleted before the last round (the work directory goes at exit), and a run that starts
# within six minutes of the last one's cleanup says that its curl figures are inflated.
set -euo pipefail
tiles=${1:-20000}
rounds=${2:-3}
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-download}
source "$(dirname "$0")/common.sh"
build_packfs
stamp=/tmp/packfs-bench-download.cleaned
if [ -d "$work" ]; then rm -rf "$work" && touch "$stamp"; fi  # left by an interrupted run
if [ -f "$stamp" ] && [ $(( $(date +%s) - $(stat -c %Y "$stamp") )) -lt 360 ]; then
  echo "warning: the last run's files were deleted $(( $(date +%s) - $(stat -c %Y "$stamp") )) s ago;" \
    "curl's file creation is slowed for about 6 minutes after that (ext4 without a journal)" >&2
fi
mkdir -p "$work"
serve_tiles "$work" "$tiles"
trap 'kill $server 2>/dev/null || true; rm -rf "$work"; touch "$stamp"' EXIT

now() { date +%s.%N; }
rate() { python3 -c "print(f'{$1/$2:8.0f}')"; }
echo "tiles: $count (unique, z15), nginx 1 worker, loopback, $(nproc) cores"
printf '%-6s %10s %12s %10s %12s %8s\n' round "packfs s" "packfs t/s" "curl s" "curl t/s" ratio
for round in $(seq "$rounds"); do
  rm -f "$work/packs.db"
  sync  # both start with no dirty pages from the previous round
  t0=$(now)
  "$packfs" download "$work/packs.db" bench "$work/world/region.json" 2>/dev/null
  t1=$(now)
  stored=$(sqlite3 "$work/packs.db" "SELECT COUNT(*) FROM tiles WHERE data IS NOT NULL")
  [ "$stored" = "$count" ] || { echo "packfs stored $stored of $count tiles" >&2; exit 1; }
  # A fresh directory per round, kept until the end: deleting a round's files slowed the next
  # round's file creation 3-8x (recently deleted inodes, see above).
  mkdir -p "$work/r$round/out"
  sync
  t2=$(now)
  (cd "$work/r$round" && curl -s --parallel --parallel-max 20 -K "$work/world/urls.txt" 2>/dev/null)
  t3=$(now)
  fetched=$(find "$work/r$round/out" -type f | wc -l)
  [ "$fetched" = "$count" ] || { echo "curl fetched $fetched of $count tiles" >&2; exit 1; }
  p=$(python3 -c "print($t1-$t0)"); c=$(python3 -c "print($t3-$t2)")
  printf '%-6s %10.2f %12s %10.2f %12s %8.2f\n' "$round" "$p" "$(rate "$count" "$p")" "$c" "$(rate "$count" "$c")" \
    "$(python3 -c "print($c/$p)")"
done
echo "ratio = curl seconds / packfs seconds (above 1: PackFS is faster). PackFS also inflates, re-frames and stores every tile in SQLite."
