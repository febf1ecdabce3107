#!/usr/bin/env bash
# Read benchmark: every tile of a generated pack of N unique tiles (default 20,000) read through
# the mount, cold (fresh mount, page cache dropped) and warm, against the same tiles read from
# ordinary files on the same disk, in the same run, each file opened, read to EOF and closed
# (read_tiles.c). Cold and warm passes also read a bare FUSE filesystem (bare_fuse.c: the same
# tiles held in memory, the same kernel settings as PackFS): cold (a fresh process, caches
# dropped) it pays the kernel's FUSE round trips and nothing else, the floor for any FUSE
# filesystem; warm, as a warm pass sends neither of them a message, its rate is the ceiling the
# kernel's FUSE path sets. Each run prints mount/files, mount/bare and bare/files, cold and warm.
# Cold passes also read a fourth tree, bare_db.c: the same pack served straight from the database
# by the least a FUSE filesystem can do with MapLibre's format (one SQLite statement and one
# inflate per tile, libfuse's own loop with as many threads as PackFS's default), the floor for
# serving these tiles from this file; each run prints mount/floor and floor/files, cold.
# Also prints the daemon's peak memory (VmHWM) against the tile bytes it served.
# With PACKFS_BENCH_RESULTS=FILE (all.sh), also appends each round's figures to FILE.
# Needs root (drop_caches), FUSE and a C compiler. usage: read.sh [TILES] [THREADS]
set -euo pipefail
tiles=${1:-20000}
threads=${2:-4}
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-read}
source "$(dirname "$0")/common.sh"
build_packfs
fusermount3 -u "$work/mnt" 2>/dev/null || true
fusermount3 -u "$work/bare" 2>/dev/null || true
fusermount3 -u "$work/floor" 2>/dev/null || true
rm -rf "$work" && mkdir -p "$work/mnt" "$work/bare" "$work/floor" "$work/runs"
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/read_tiles" scripts/bench/read_tiles.c
"$cc" -O2 -o "$work/bare_fuse" scripts/bench/bare_fuse.c $(pkg-config --cflags --libs fuse3)
"$cc" -O2 -pthread -o "$work/bare_db" scripts/bench/bare_db.c $(pkg-config --cflags --libs fuse3 sqlite3 libdeflate)
serve_tiles "$work" "$tiles"
trap 'for m in mnt bare floor; do fusermount3 -u "$work/$m" 2>/dev/null || true; done; kill $server 2>/dev/null || true' EXIT
"$packfs" download "$work/packs.db" bench "$work/world/region.json" 2>/dev/null
kill $server 2>/dev/null || true

# The same tiles as ordinary files, same disk: the generated server root (raw .pbf bytes).
(cd "$work/world/tiles" && find . -name '*.pbf' | sed 's#^\./##' | sort) > "$work/list.txt"
declare -A root=([files]="$work/world/tiles" [mount]="$work/mnt/packs/bench" [bare]="$work/bare" [floor]="$work/floor")
# run SIDE PASS [ROUNDS]: one pass over SIDE's tree, its "rate seconds bytes" line appended to
# runs/SIDE-PASS. A warm pass reads the list 5 times, so that it lasts long enough to time.
run() { "$work/read_tiles" "${root[$1]}" "$work/list.txt" "$threads" "${3:-1}" >>"$work/runs/$1-$2"; }
cold_rounds=${PACKFS_BENCH_COLD_ROUNDS:-3}
passes=${PACKFS_BENCH_PASSES:-9}
mount_pack() { mount_db "$work/packs.db" "$work/mnt" ${PACKFS_BENCH_MOUNT_OPTIONS:-}; }
unmount_pack() { unmount_db "$work/packs.db" "$work/mnt"; }
# peak_memory: the mounted daemon's peak resident set so far, in KiB, appended to runs/memory.
peak_memory() { vm_hwm "$work/packs.db" "$work/mnt" >>"$work/runs/memory"; }

# bare_mount: a fresh bare FUSE process serving the tiles from memory (loaded from the files).
bare_mount() {
  "$work/bare_fuse" "${root[files]}" "$work/list.txt" "${root[bare]}" &
  bare_pid=$!
  for _ in $(seq 100); do mountpoint -q "${root[bare]}" && return; sleep 0.1; done
  echo "bare FUSE did not mount" >&2; exit 1
}
bare_unmount() { fusermount3 -u "${root[bare]}"; wait "$bare_pid" 2>/dev/null || true; }

# floor_mount: a fresh bare_db process serving the pack's tiles from the database (its one tile
# set, pack 1), with PackFS's default thread count.
floor_mount() {
  local template
  template=$(sqlite3 "$work/packs.db" "SELECT url_template FROM tiles LIMIT 1")
  "$work/bare_db" "$work/packs.db" "$template" 1 pbf "${root[floor]}" "$(default_threads)" &
  floor_pid=$!
  for _ in $(seq 100); do mountpoint -q "${root[floor]}" && return; sleep 0.1; done
  echo "bare_db did not mount" >&2; exit 1
}
floor_unmount() { fusermount3 -u "${root[floor]}"; wait "$floor_pid" 2>/dev/null || true; }
# default_threads: `packfs mount`'s default --threads (MountCommand.defaultThreads).
default_threads() { local n=$((2 * $(nproc))); echo $((n < 2 ? 2 : n > 16 ? 16 : n)); }

# Rounds of one pass per side, back to back, so that every side meets the same machine (a
# background job slows a whole round); the order within a round rotates, so that no side always
# follows the same one. Cold: page cache, dentries and inodes dropped before each pass; for the
# mount and the bare filesystem also a fresh process (its own caches empty), so every tile costs
# a lookup and a read (and for the mount a database query).
cold_pass() {
  case "$1" in
    mount) mount_pack; drop_caches; run mount cold; peak_memory; unmount_pack ;;
    bare) bare_mount; drop_caches; run bare cold; bare_unmount ;;
    files) drop_caches; run files cold ;;
    floor) floor_mount; drop_caches; run floor cold; floor_unmount ;;
  esac
}
sides=(files mount bare floor)
for i in $(seq "$cold_rounds"); do
  for k in 0 1 2 3; do cold_pass "${sides[(i + k) % 4]}"; done
done
# Warm: the same files again and again, everything cached (one unmeasured pass first).
mount_pack
bare_mount
for side in files mount bare; do run "$side" unmeasured; done
order=(files mount bare)
for i in $(seq "$passes"); do
  for k in 0 1 2; do run "${order[(i + k) % 3]}" warm 5; done
done
peak_memory
unmount_pack; bare_unmount

# The median of a side's passes (by rate); each line is "rate seconds bytes".
rate() { sort -n "$work/runs/$1" | awk '{ line[NR] = $1 } END { print line[int((NR + 1) / 2)] }'; }
# pair_ratio A B: the median over rounds of A's rate / B's rate in that round. A slow spell of the
# machine (this VM's DAMON reclaims page cache now and then) slows both sides of a round; a
# ratio of the two medians would compare passes from different rounds.
pair_ratio() {
  paste -d' ' "$work/runs/$1" "$work/runs/$2" | python3 -c '
import sys, statistics
print(f"{statistics.median(float(l.split()[0]) / float(l.split()[3]) for l in sys.stdin):.2f}")'
}
# Same bytes every way (a benchmark of the wrong content would be meaningless).
for pass in cold warm; do
  [ "$(cut -d' ' -f3 "$work"/runs/*-$pass | sort -u | wc -l)" = 1 ] || { echo "$pass: byte totals differ" >&2; exit 1; }
done
# record_rounds PASS: each round's rates and ratios of PASS as figures for all.sh (common.sh's
# record), the ratios taken within the round as above.
record_rounds() {
  local files mount bare
  while read -r files _ _ mount _ _ bare _ _; do
    record "read.$1.files_rate" "$files"; record "read.$1.mount_rate" "$mount"; record "read.$1.bare_rate" "$bare"
    record "read.$1.mount_files" "$(awk "BEGIN { print $mount / $files }")"
    record "read.$1.mount_bare" "$(awk "BEGIN { print $mount / $bare }")"
    record "read.$1.bare_files" "$(awk "BEGIN { print $bare / $files }")"
  done < <(paste -d' ' "$work/runs/files-$1" "$work/runs/mount-$1" "$work/runs/bare-$1")
}
record "# read_tiles" "$count"; record "# threads" "$threads"
record_rounds cold
record_rounds warm
while read -r files _ _ mount _ _ floor _ _; do
  record read.cold.floor_rate "$floor"
  record read.cold.mount_floor "$(awk "BEGIN { print $mount / $floor }")"
  record read.cold.floor_files "$(awk "BEGIN { print $floor / $files }")"
done < <(paste -d' ' "$work/runs/files-cold" "$work/runs/mount-cold" "$work/runs/floor-cold")
# Memory: each cold daemon's peak, then the warm one's (runs/memory holds them in that order).
while read -r kib; do record read.cold.daemon_mb "$(awk "BEGIN { print $kib / 1024 }")"; done \
  < <(head -n "$cold_rounds" "$work/runs/memory")
record read.warm.daemon_mb "$(awk '{ kib = $1 } END { print kib / 1024 }' "$work/runs/memory")"
echo "tiles: $count, $threads reader threads, $(nproc) cores; $cold_rounds cold and $passes warm rounds"
echo "rates: medians of each side's passes; ratios: medians of the ratios within each round"
echo "targets (issue 12): cold mount/files >= 0.7, cold mount/bare >= 0.5, warm mount/bare >= 0.98"
printf '%-5s %11s %11s %11s %12s %11s %11s\n' pass "files t/s" "mount t/s" "bare t/s" mount/files mount/bare bare/files
for pass in cold warm; do
  printf '%-5s %11s %11s %11s %12s %11s %11s\n' "$pass" "$(rate files-$pass)" "$(rate mount-$pass)" \
    "$(rate bare-$pass)" "$(pair_ratio mount-$pass files-$pass)" "$(pair_ratio mount-$pass bare-$pass)" \
    "$(pair_ratio bare-$pass files-$pass)"
done
printf 'cold, against the format floor (bare_db.c, %s threads): floor %s t/s, mount/floor %s, floor/files %s\n' \
  "$(default_threads)" "$(rate floor-cold)" "$(pair_ratio mount-cold floor-cold)" "$(pair_ratio floor-cold files-cold)"
# Memory: the largest cold daemon (each read every tile once), and the warm one (every tile read
# cold once, then warm passes, which send it nothing).
tile_bytes=$(head -1 "$work/runs/files-cold" | cut -d' ' -f3)
cold_peak=$(head -n "$cold_rounds" "$work/runs/memory" | sort -n | tail -1); warm_peak=$(tail -1 "$work/runs/memory")
python3 -c "print(f'daemon peak memory: cold {$cold_peak/1024:.1f} MB, warm {$warm_peak/1024:.1f} MB,' +
  f' serving {$tile_bytes/2**20:.1f} MB of tiles ({$warm_peak*1024/$tile_bytes:.2f} of them)')"
echo "every pass (tiles/s):"
for f in files-cold mount-cold bare-cold floor-cold files-warm mount-warm bare-warm; do
  printf '  %-11s %s\n' "$f" "$(cut -d' ' -f1 "$work/runs/$f" | tr '\n' ' ')"
done
