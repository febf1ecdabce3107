#!/usr/bin/env bash
# Downloading a country (issue 20, item 7): a region of N tiles (default 10,000,000: a square block
# of z16 tiles) written as a region file into a mount, from nginx on loopback, whose every tile
# URL answers the same small body (so that the server holds one file, not N); PackFS stores each
# tile as its own row all the same. While it downloads, every 0.5 s: `cat progress.json` timed,
# and the daemon's resident set. At 90% of the tiles the daemon is killed (SIGKILL); then the
# database is mounted again, and the time from that mount to the first request for a tile not
# stored yet (nginx's log, millisecond times) is the resume's figure, with the whole resume until
# the pack is complete; the same for a copy of the killed database without its resume point (the
# baseline: how the code before resume points resumed). Prints: the download's rate, the daemon's
# peak memory (VmHWM) before the kill and in each resume, progress.json's median and slowest
# read, and the resume's times against the baseline's.
# With PACKFS_BENCH_RESULTS=FILE (all.sh's convention), also appends country.* figures to FILE.
# Needs root (FUSE). usage: country.sh [TILES]
# `country.sh hash [TILES]` is the other part: a pack of real vector tiles from the download's last
# answer to complete and its hash, verify and export against their floor (country_hash.sh).
set -euo pipefail
[ "${1:-}" != hash ] || { shift; exec "$(dirname "$0")/country_hash.sh" "$@"; }
tiles=${1:-10000000}
[[ $tiles =~ ^[0-9]+$ ]] && [ "$tiles" -ge 1000 ] || { echo "usage: country.sh [TILES] (1000 at least)" >&2; exit 2; }
source "$(dirname "$0")/common.sh"
bench_start country
fusermount3 -u "$work/mnt" 2>/dev/null || true
rm -rf "$work" && mkdir -p "$work/mnt" "$work/www/tiles" "$work/tmp"
work=$(cd "$work" && pwd)
db=$work/country.db mnt=$work/mnt

# The server: a style, its TileJSON and one tile body for every /tiles/ path.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
# A vector tile the downloader's content check accepts: one layer, named, version 2.
printf '\x1a\x3b\x0a\x37bench tile body, the same for every tile of the country\x78\x02' >"$work/www/tile.pbf"
cat >"$work/www/style.json" <<EOF
{"version": 8, "sources": {"country": {"type": "vector", "url": "$base/tiles.json"}}, "layers": []}
EOF
cat >"$work/www/tiles.json" <<EOF
{"tilejson": "3.0.0", "tiles": ["$base/tiles/{z}/{x}/{y}.pbf"], "minzoom": 0, "maxzoom": 16}
EOF
source Tests/servers/nginx-conf.sh
cat >"$work/nginx.conf" <<EOF
$(nginx_head "$work" 1 4096)
http {
    log_format times '\$msec \$status \$request_uri';
    access_log $work/access.log times buffer=64k flush=100ms;
$(nginx_temp_paths "$work/tmp")
    keepalive_requests 100000000;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        location /tiles/ { default_type application/x-protobuf; try_files /tile.pbf =404; }
        location / { default_type application/json; }
    }
}
EOF
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf" &
server=$!
trap 'fusermount3 -u "$mnt" 2>/dev/null || true; kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "$base/style.json" >/dev/null && break; sleep 0.1; done

# The region: a square block of z16 tiles south-east of Helsinki, at least $tiles of them (bounds
# just inside the block's edges, as gen_tiles.py makes them).
region=$(python3 - "$tiles" "$base" <<'EOF'
import math, sys
count, base = int(sys.argv[1]), sys.argv[2]
z, side = 16, math.ceil(math.sqrt(count))
n = 2 ** z
x0, y0 = int((20.0 + 180) / 360 * n), 18000
lon = lambda x: x / n * 360 - 180
lat = lambda y: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))
e = 1e-9
print('{"style_url":"%s/style.json","min_zoom":16.0,"max_zoom":16.0,"pixel_ratio":1.0,'
      '"include_ideographs":false,"bounds":[%.12f,%.12f,%.12f,%.12f]}'
      % (base, lat(y0 + side) + e, lon(x0) + e, lat(y0) - e, lon(x0 + side) - e))
EOF
)
planned=$(python3 -c "import math; print(math.ceil(math.sqrt($tiles)) ** 2)")
progress=$mnt/packs/country/progress.json
completed() { grep -o '"completed_tiles":[0-9]*' "$progress" 2>/dev/null | cut -d: -f2 || echo 0; }
state() { grep -o '"state":"[a-z]*"' "$progress" 2>/dev/null | cut -d'"' -f4 || true; }
# sample: one timed read of progress.json to progress.ms ("MS PHASE WHEN", WHEN in ms since the
# epoch), and the daemon's VmRSS (KiB) to $rss (the baseline's daemon is left out of both figures:
# it is the code path this benchmark shows replaced).
rss=$work/rss phase=download
sample() {
  local started=$EPOCHREALTIME
  cat "$progress" >/dev/null 2>&1 || true
  local us=$(( 10#${EPOCHREALTIME//[.,]/} - 10#${started//[.,]/} ))
  echo "$((us / 1000)).$(printf '%03d' $((us % 1000))) $phase $(( 10#${started//[.,]/} / 1000 ))" >>"$work/progress.ms"
  awk '/^VmRSS/ { print $2 }' "/proc/$(daemon_pid "$db" "$mnt")/status" >>"$rss" 2>/dev/null || true
}

echo "country: $planned tiles (z16), nginx on loopback, $(nproc) cores"
"$packfs" reset "$db" >/dev/null
mount_db "$db" "$mnt"
pid=$(daemon_pid "$db" "$mnt")
started=$EPOCHREALTIME
echo "$region" >"$mnt/packs/country.region"
target=$(( planned * 9 / 10 ))
while [ "$(completed)" -lt "$target" ]; do
  sample
  [ "$(state)" != error ] || { echo "the download failed: $(cat "$progress")" >&2; exit 1; }
  sleep 0.5
done
at_kill=$(completed)
elapsed=$(since "$started")
hwm1=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
kill -KILL "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"
sleep 0.2  # nginx's log buffer (flush=100ms)
# The baseline, measured in the same run: the same killed database without its resume point (as
# a run of the code before resume points saw it: every stored tile looked up again from the start
# of the plan, and the whole pack's keys read to make it converge).
cp "$db" "$work/baseline.db"
for suffix in -wal -shm; do [ ! -f "$db$suffix" ] || cp "$db$suffix" "$work/baseline.db$suffix"; done
sqlite3 "$work/baseline.db" "DELETE FROM packfs_resume_points" >/dev/null

# resume DB: mounts DB again (the daemon resumes the active pack by itself) and waits for the pack
# to complete; sets first (the mount to the first tile request), total (to complete) and hwm (KiB).
resume() {
  local before pid started first_new
  sleep 0.2  # nginx's log buffer (flush=100ms)
  before=$(wc -l <"$work/access.log")
  db=$1
  started=$EPOCHREALTIME
  mount_db "$db" "$mnt"
  pid=$(daemon_pid "$db" "$mnt")
  until [ "$(state)" = complete ]; do
    sample
    [ "$(state)" != error ] || { echo "the resumed download failed: $(cat "$progress")" >&2; exit 1; }
    sleep 0.5
  done
  total=$(since "$started")
  hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
  final=$(completed)
  [ "$final" = "$planned" ] || { echo "the pack holds $final of $planned tiles" >&2; exit 1; }
  unmount_db "$db" "$mnt" 60
  sleep 0.2
  # A request cut by the kill may be logged after it: only those since the remount count. awk
  # reads to the end: an early exit would SIGPIPE tail, which pipefail takes for a failure.
  first_new=$(tail -n +"$((before + 1))" "$work/access.log" |
    awk -v since="${started/,/.}" '!found && $1 >= since && $3 ~ /^\/tiles\// { print $1; found = 1 }')
  [ -n "$first_new" ] || { echo "no tile request after the remount of $db" >&2; exit 1; }
  first=$(python3 -c "print(f'{$first_new - ${started/,/.}:.3f}')")
}
phase=resume
resume "$work/country.db"
read -r resume_first resume_total hwm2 <<<"$first $total $hwm"
rss=/dev/null phase=baseline
resume "$work/baseline.db"
read -r base_first base_total hwm3 <<<"$first $total $hwm"

rate=$(python3 -c "print(round($at_kill / $elapsed))")
read -r p50 pmax < <(awk '$2 != "baseline"' "$work/progress.ms" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[NR] }')
rss_max=$(sort -n "$work/rss" | tail -1)
figure() { record "country.$1" "$2"; printf '  %-64s %s\n' "$3" "$2 $4"; }
record "# country_tiles" "$planned"
figure rate "$rate" "download rate until the kill" tiles/s
figure tiles_at_kill "$at_kill" "tiles stored when the daemon was killed" tiles
figure memory_mb "$(awk "BEGIN { print $hwm1 / 1024 }")" "daemon peak memory (VmHWM) until the kill" MB
figure memory_resume_mb "$(awk "BEGIN { print $hwm2 / 1024 }")" "daemon peak memory (VmHWM) of the resume" MB
figure rss_max_mb "$(awk "BEGIN { print $rss_max / 1024 }")" "largest resident set sampled (download and resume)" MB
figure progress_median_ms "$p50" "cat progress.json, median ($(awk '$2 != "baseline"' "$work/progress.ms" | wc -l) reads)" ms
figure progress_max_ms "$pmax" "cat progress.json, slowest" ms
figure resume_first_request_s "$resume_first" "resume: from the mount to the first new tile request" s
figure resume_total_s "$resume_total" "resume: from the mount to complete ($((planned - at_kill)) tiles)" s
figure baseline_first_request_s "$base_first" "baseline (no resume point): mount to the first new request" s
figure baseline_total_s "$base_total" "baseline (no resume point): mount to complete" s
figure baseline_memory_mb "$(awk "BEGIN { print $hwm3 / 1024 }")" "baseline (no resume point): daemon peak memory" MB
figure resume_first_ratio "$(python3 -c "print(f'{$base_first / $resume_first:.1f}')")" "first new request, baseline / resume" x
echo "targets (issue 20): peak memory < 64 MB, progress.json < 50 ms throughout"
