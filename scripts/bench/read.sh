#!/usr/bin/env bash
# Read benchmark: every tile of a generated pack of N unique tiles (default 20,000) read through
# the mount, cold (fresh mount, page cache dropped) and warm, against the same tiles read from
# ordinary files on the same disk, in the same run, each file opened, read to EOF and closed as a
# renderer does (read_tiles.py). Needs root (drop_caches) and FUSE.
# usage: read.sh [TILES] [THREADS]
set -euo pipefail
tiles=${1:-20000}
threads=${2:-4}
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-read}
source "$(dirname "$0")/common.sh"
build_packfs
fusermount3 -u "$work/mnt" 2>/dev/null || true
rm -rf "$work" && mkdir -p "$work/mnt"
serve_tiles "$work" "$tiles"
trap 'fusermount3 -u "$work/mnt" 2>/dev/null || true; kill $server 2>/dev/null || true' EXIT
"$packfs" download "$work/packs.db" bench "$work/world/region.json" 2>/dev/null
kill $server 2>/dev/null || true

# The same tiles as ordinary files, same disk: the generated server root (raw .pbf bytes).
(cd "$work/world/tiles" && find . -name '*.pbf' | sed 's#^\./##' | sort) > "$work/list.txt"
read_run() { python3 scripts/bench/read_tiles.py "$1" "$work/list.txt" "$threads"; }
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# The median of several passes (by rate); each line is "rate seconds bytes".
median() { sort -n | awk '{ line[NR] = $0 } END { print line[int((NR + 1) / 2)] }'; }
passes=${PACKFS_BENCH_PASSES:-9}
# Mounts; the daemon of the previous mount may still be closing the database after its unmount.
mount_db() {
  for _ in $(seq 100); do "$packfs" mount "$work/packs.db" "$work/mnt" 2>/dev/null && return; sleep 0.1; done
  "$packfs" mount "$work/packs.db" "$work/mnt"
}

# Passes alternate between ordinary files and the mount, so both meet the same machine (a
# background job slows both alike); each side reports the median of its passes.
# Cold: page cache, dentries and inodes dropped before each pass; for the mount also a fresh
# daemon (its own caches empty), so every tile costs a lookup, a read and a database query.
for _ in $(seq 3); do
  drop; read_run "$work/world/tiles" >>"$work/files-cold.txt"
  mount_db; drop; read_run "$work/mnt/packs/bench" >>"$work/mount-cold.txt"; fusermount3 -u "$work/mnt"
done
# Warm: the same files again and again, everything cached (one unmeasured pass first).
mount_db
read_run "$work/world/tiles" >/dev/null; read_run "$work/mnt/packs/bench" >/dev/null
for _ in $(seq "$passes"); do
  read_run "$work/world/tiles" >>"$work/files-warm.txt"
  read_run "$work/mnt/packs/bench" >>"$work/mount-warm.txt"
done
fusermount3 -u "$work/mnt"
files_cold=$(median <"$work/files-cold.txt"); mount_cold=$(median <"$work/mount-cold.txt")
files_warm=$(median <"$work/files-warm.txt"); mount_warm=$(median <"$work/mount-warm.txt")

# Same bytes both ways (a benchmark of the wrong content would be meaningless).
[ "$(echo "$files_warm" | cut -d' ' -f3)" = "$(echo "$mount_warm" | cut -d' ' -f3)" ] || { echo "byte totals differ" >&2; exit 1; }
rate() { echo "$1" | cut -d' ' -f1; }
echo "tiles: $count, $threads reader threads, $(nproc) cores; median of 3 cold and $passes warm passes"
printf '%-8s %14s %14s %8s %8s\n' "" "files t/s" "mount t/s" ratio target
printf '%-8s %14s %14s %8.2f %8s\n' cold "$(rate "$files_cold")" "$(rate "$mount_cold")" "$(python3 -c "print($(rate "$mount_cold")/$(rate "$files_cold"))")" 0.5
printf '%-8s %14s %14s %8.2f %8s\n' warm "$(rate "$files_warm")" "$(rate "$mount_warm")" "$(python3 -c "print($(rate "$mount_warm")/$(rate "$files_warm"))")" 0.9
for side in files-cold mount-cold files-warm mount-warm; do
  printf '%-11s %s\n' "$side" "$(cut -d' ' -f1 "$work/$side.txt" | tr '\n' ' ')"
done
