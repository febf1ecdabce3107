#!/usr/bin/env bash
# Download benchmark: `packfs download` of a generated region of N unique tiles (default 20,000)
# from nginx on loopback (pre-gzipped tiles, gzip_static, as tile servers serve MBTiles blobs),
# against `curl --parallel --parallel-max 20` fetching the same URL list to files, in the same run.
# Prints tiles per second for both and the ratio. usage: download.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-20000}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-download}
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

cd "$root"
swift build -c release --product packfs >/dev/null
packfs="$(swift build -c release --show-bin-path)/packfs"
rm -rf "$work" && mkdir -p "$work"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
count=$(python3 scripts/bench/gen_tiles.py "$work/world" "http://127.0.0.1:$port" "$tiles")
Tests/servers/nginx-world.sh --dir "$work/nginx" --port "$port" --world "$work/world" --die-with-parent \
  >"$work/nginx.out" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/styles/bench.json" >/dev/null && break; sleep 0.1; done

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
  # A fresh directory per round: reusing a deleted one slowed later rounds' file creation.
  mkdir -p "$work/r$round/out"
  sync
  t2=$(now)
  (cd "$work/r$round" && curl -s --parallel --parallel-max 20 -K "$work/world/urls.txt" 2>/dev/null)
  t3=$(now)
  fetched=$(find "$work/r$round/out" -type f | wc -l)
  [ "$fetched" = "$count" ] || { echo "curl fetched $fetched of $count tiles" >&2; exit 1; }
  rm -rf "$work/r$round"
  p=$(python3 -c "print($t1-$t0)"); c=$(python3 -c "print($t3-$t2)")
  printf '%-6s %10.2f %12s %10.2f %12s %8.2f\n' "$round" "$p" "$(rate "$count" "$p")" "$c" "$(rate "$count" "$c")" \
    "$(python3 -c "print($c/$p)")"
done
echo "ratio = curl seconds / packfs seconds (above 1: PackFS is faster). PackFS also inflates, re-frames and stores every tile in SQLite."
