#!/usr/bin/env bash
# Download benchmark: `packfs download` of a generated region of N unique tiles (default 20,000)
# from nginx on loopback (pre-gzipped tiles, gzip_static, as tile servers serve MBTiles blobs),
# against `curl --parallel --parallel-max 20` fetching the same URL list to files, in the same run.
# Prints tiles per second for both and the ratio, and each one's peak memory (maximum resident
# set); then the size of the database each round left against an MBTiles file of the same tiles
# built without PackFS (gen_mbtiles.py). With PACKFS_BENCH_RESULTS=FILE (all.sh), also appends
# each round's figures to FILE. usage: download.sh [TILES] [ROUNDS]
#
# File creation is slow on an ext4 without a journal (this project's machines) for about six
# minutes after many files were deleted nearby: the inode allocator skips every recently
# deleted inode, one lookup each (curl's 20,000 files took 4-8 s instead of 1.4 s). So nothing
# is deleted before the last round (the work directory goes at exit), and a run that starts
# within six minutes of the last one's cleanup says that its curl figures are inflated.
set -euo pipefail
tiles=${1:-20000}
rounds=${2:-3}
source "$(dirname "$0")/common.sh"
bench_start download
stamp=/tmp/packfs-bench-download.cleaned
if [ -d "$work" ]; then rm -rf "$work" && touch "$stamp"; fi  # left by an interrupted run
if [ -f "$stamp" ] && [ $(( $(date +%s) - $(stat -c %Y "$stamp") )) -lt 360 ]; then
  echo "warning: the last run's files were deleted $(( $(date +%s) - $(stat -c %Y "$stamp") )) s ago;" \
    "curl's file creation is slowed for about 6 minutes after that (ext4 without a journal)" >&2
fi
mkdir -p "$work"
serve_tiles "$work" "$tiles"
trap 'kill $server 2>/dev/null || true; rm -rf "$work"; touch "$stamp"' EXIT

rate() { python3 -c "print(f'{$1/$2:8.0f}')"; }
# measure COMMAND...: runs COMMAND (output discarded) and prints its wall seconds and its peak
# resident set in KiB (the timer starts and stops around the command alone).
measure() {
  python3 -c 'import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
echo "tiles: $count (unique, z15), nginx 1 worker, loopback, $(nproc) cores"
printf '%-6s %9s %11s %9s %11s %7s %10s %8s %6s\n' round "packfs s" "packfs t/s" "curl s" "curl t/s" ratio \
  "packfs MB" "curl MB" memory
record "# download_tiles" "$count"
db_bytes=()
for round in $(seq "$rounds"); do
  rm -f "$work/packs.db"
  sync  # both start with no dirty pages from the previous round
  read -r p pm < <(measure "$packfs" download "$work/packs.db" bench "$work/world/region.json")
  stored=$(sqlite3 "$work/packs.db" "SELECT COUNT(*) FROM tiles WHERE data IS NOT NULL")
  [ "$stored" = "$count" ] || { echo "packfs stored $stored of $count tiles" >&2; exit 1; }
  # A fresh directory per round, kept until the end: deleting a round's files slowed the next
  # round's file creation 3-8x (recently deleted inodes, see above).
  mkdir -p "$work/r$round/out"
  sync
  read -r c cm < <(cd "$work/r$round" && measure curl -s --parallel --parallel-max 20 -K "$work/world/urls.txt")
  fetched=$(find "$work/r$round/out" -type f | wc -l)
  [ "$fetched" = "$count" ] || { echo "curl fetched $fetched of $count tiles" >&2; exit 1; }
  printf '%-6s %9.2f %11s %9.2f %11s %7.2f %10.1f %8.1f %6.1f\n' "$round" "$p" "$(rate "$count" "$p")" "$c" \
    "$(rate "$count" "$c")" "$(python3 -c "print($c/$p)")" "$(python3 -c "print($pm/1024)")" \
    "$(python3 -c "print($cm/1024)")" "$(python3 -c "print($pm/$cm)")"
  record download.packfs_s "$p"; record download.curl_s "$c"; record download.ratio "$(python3 -c "print($c/$p)")"
  record download.packfs_mb "$(python3 -c "print($pm/1024)")"; record download.curl_mb "$(python3 -c "print($cm/1024)")"
  db_bytes+=("$(stat -c %s "$work/packs.db")")
done
# The database as a download leaves it (not vacuumed), against the MBTiles file, built after the
# timed rounds so that its writes slow none of them.
mbtiles=$(python3 scripts/bench/gen_mbtiles.py "$work/world" "$work/bench.mbtiles")
echo "database / MBTiles of the same tiles (gzipped as served, VACUUMed: $(python3 -c "print(f'{$mbtiles/1e6:.1f}')") MB):"
for i in "${!db_bytes[@]}"; do
  ratio=$(python3 -c "print(${db_bytes[i]}/$mbtiles)")
  record download.db_mbtiles "$ratio"
  python3 -c "print(f'  round $((i + 1)): {${db_bytes[i]}/1e6:.1f} MB, {$ratio:.3f}')"
done
echo "ratio = curl seconds / packfs seconds (above 1: PackFS is faster). PackFS also inflates, re-frames and stores every tile in SQLite."
echo "MB: peak resident set; memory = packfs MB / curl MB."
