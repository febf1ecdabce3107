#!/usr/bin/env bash
# The mount under load, on a pack of N generated unique tiles (default 20,000), in rounds:
# - cold reads through the mount by 8 reader threads against 1 (read_tiles.c; a fresh mount and
#   caches dropped for each pass; the two passes back to back, in alternating order);
# - the daemon's peak memory (VmHWM) while 8 cold readers and the download of a second pack (a
#   region file written on the mount, tiles from nginx on loopback) run at once, start to end;
# - `ls` of that second pack's root, again and again while its download runs, against the same
#   `ls` once the pack is idle (the ratio of the medians, and the slowest one).
# Each mount is of a fresh copy of the same database, so each round downloads the second pack
# whole. Needs root (drop_caches), FUSE and a C compiler.
# usage: load.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-20000}
rounds=${2:-3}
deadline=${PACKFS_BENCH_DEADLINE:-120}  # seconds a download may take to start or to finish
source "$(dirname "$0")/common.sh"
bench_start load
fresh_mount_dir
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/read_tiles" scripts/bench/read_tiles.c
db=$work/round.db mnt=$work/mnt
servers=()
trap 'fusermount3 -u "$mnt" 2>/dev/null || true; kill "${servers[@]}" 2>/dev/null || true' EXIT

# The pack the readers read ("bench", downloaded once into base.db), and a second set of tiles
# under another server's URLs for the downloads on the mount (pack "second"), served throughout.
serve_tiles "$work/read" "$tiles"
servers+=("$server")
"$packfs" download "$work/base.db" bench "$work/read/world/region.json" 2>/dev/null
(cd "$work/read/world/tiles" && find . -name '*.pbf' | sed 's#^\./##' | sort) >"$work/list.txt"
serve_tiles "$work/second" "$tiles"
servers+=("$server")
second=$mnt/packs/second state=none stored=0

# fresh_mount: a fresh copy of base.db (no second pack yet) mounted by a fresh daemon.
fresh_mount() {
  if mountpoint -q "$mnt"; then unmount_db "$db" "$mnt"; fi
  cp "$work/base.db" "$db"
  mount_db "$db" "$mnt"
}
# read_cold THREADS: every tile of the bench pack read once by THREADS threads; prints tiles/s.
read_cold() { "$work/read_tiles" "$mnt/packs/bench" "$work/list.txt" "$1" | cut -d' ' -f1; }

# progress: sets $state and $stored (tiles stored) from the second pack's progress.json (before the
# pack appears: state "none"). bash's own pattern matching: this runs between timed listings.
progress() {
  local json
  { json=$(<"$second/progress.json"); } 2>/dev/null || { state=none stored=0; return 0; }
  [[ $json =~ \"state\"[[:space:]]*:[[:space:]]*\"([a-z]+)\" ]] && state=${BASH_REMATCH[1]}
  [[ $json =~ \"completed_tiles\"[[:space:]]*:[[:space:]]*([0-9]+) ]] && stored=${BASH_REMATCH[1]}
  [ "$state" != error ] || { echo "the download of the second pack failed: $json" >&2; exit 1; }
}
# start_download: writes the second pack's region file and returns once tiles are being stored.
start_download() {
  cp "$work/second/world/region.json" "$mnt/packs/second.region"
  wait_for started
}
# wait_for started|complete: polls progress.json (every 10 ms) until the download has stored
# tiles (or has already finished: a small pack may), or has finished; fails after $deadline s.
wait_for() {
  local end=$((SECONDS + deadline))
  while [ $SECONDS -lt $end ]; do
    progress
    case "$1" in
      started) [ "$state" = complete ] || { [ "$state" = active ] && [ "$stored" -gt 0 ]; } && return 0 ;;
      complete) [ "$state" = complete ] && return 0 ;;
    esac
    sleep 0.01
  done
  echo "the download of the second pack is not $1 after $deadline s (state $state, $stored tiles)" >&2
  exit 1
}

# threads_round N: cold passes with 1 and with 8 reader threads, each on a fresh mount with caches
# dropped, back to back (the first one alternating with the round); records both and 8 / 1.
threads_round() {
  local order=(1 8) n rate1 rate8
  [ $(($1 % 2)) = 1 ] || order=(8 1)
  for n in "${order[@]}"; do
    fresh_mount; drop_caches
    printf -v "rate$n" %s "$(read_cold "$n")"
  done
  record load.threads_1_rate "$rate1"; record load.threads_8_rate "$rate8"
  record load.threads_8_1 "$(awk "BEGIN { print $rate8 / $rate1 }")"
  printf 'round %s: cold reads, 1 thread %s tiles/s, 8 threads %s tiles/s: %s\n' "$1" "$rate1" "$rate8" \
    "$(awk "BEGIN { printf \"%.2fx\", $rate8 / $rate1 }")"
}

# memory_round N: on a fresh mount with caches dropped, the second pack's download starts; once it
# stores tiles, 8 threads read the bench pack cold, pass after pass (caches dropped before each)
# until the download is complete, so that both loads last the whole download; then the daemon's
# VmHWM. The first pass's rate is recorded.
memory_round() {
  local rate passes=1 peak
  fresh_mount; drop_caches
  start_download
  rate=$(read_cold 8)
  progress
  while [ "$state" = active ]; do drop_caches; read_cold 8 >/dev/null; passes=$((passes + 1)); progress; done
  wait_for complete
  peak=$(vm_hwm "$db" "$mnt")
  record load.memory_mb "$(awk "BEGIN { print $peak / 1024 }")"
  record load.memory_readers_rate "$rate"
  printf 'round %s: 8 readers %s tiles/s beside the download (%s passes until it completed); daemon peak %s MB\n' \
    "$1" "$rate" "$passes" "$(awk "BEGIN { printf \"%.1f\", $peak / 1024 }")"
}

# list_root: one `ls` of the second pack's root; sets $t to its seconds.
list_root() { timed t ls "$second" >/dev/null; }
# stats FILE: "median maximum count" of FILE's seconds, as milliseconds.
stats() { sort -n "$1" | awk '{ v[NR] = $1 * 1000 } END { printf "%.3f %.3f %d\n", v[int((NR + 1) / 2)], v[NR], NR }'; }

# readdir_round N: `ls` of the second pack's root again and again while its download runs (a
# listing counts if the download was still running after it), then 200 times once it is complete.
readdir_round() {
  local busy=$work/busy-$1 idle=$work/idle-$1 t b_median b_max b_count i_median i_max
  fresh_mount
  : >"$busy"; : >"$idle"
  start_download
  while :; do
    list_root; progress
    [ "$state" = active ] || break
    echo "$t" >>"$busy"
  done
  wait_for complete
  for _ in $(seq 200); do list_root; echo "$t" >>"$idle"; done
  [ -s "$busy" ] || { echo "round $1: the download ended before one listing" >&2; return 0; }
  read -r b_median b_max b_count < <(stats "$busy")
  read -r i_median i_max _ < <(stats "$idle")
  record load.readdir_ratio "$(awk "BEGIN { print $b_median / $i_median }")"
  record load.readdir_max_ms "$b_max"; record load.readdir_busy_ms "$b_median"
  record load.readdir_idle_ms "$i_median"; record load.readdir_idle_max_ms "$i_max"
  printf 'round %s: ls of the pack root while it downloads: median %s ms, max %s ms (%s listings);' "$1" \
    "$b_median" "$b_max" "$b_count"
  printf ' idle: median %s ms, max %s ms\n' "$i_median" "$i_max"
}

record "# load_tiles" "$count"
echo "tiles: $count per pack, $(nproc) cores, $rounds rounds"
for round in $(seq "$rounds"); do
  threads_round "$round"
  memory_round "$round"
  readdir_round "$round"
done
unmount_db "$db" "$mnt"
echo "targets (issue 12): 8 threads / 1 >= 1.6x; daemon peak with 8 readers and a download <= 40 MB;" \
  "ls while downloading: reported"
