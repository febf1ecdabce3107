#!/usr/bin/env bash
# Read benchmark (issues 12 and 30): every tile of a pack of N unique tiles (default 20,000) read,
# each file opened, read to EOF and closed (read_tiles.c), in three passes: cold with 1 reader,
# cold with THREADS readers (default 4), warm with 1 reader. The tiles are real vector tiles
# (real_tiles.py: the Helsinki fixture's city-scale tiles, each made unique), served by nginx and
# downloaded into the pack by `packfs download`. Seven trees are read in every pass:
# - files: the same tiles as ordinary files on the same disk (raw bytes);
# - PackFS (the mount), over /dev/fuse (-o io_uring=off) and over io_uring (-o io_uring=on);
# - bare_fuse (bare_fuse.c: the tiles held in memory, PackFS's kernel settings), on both
#   transports: the floor of any FUSE filesystem, the kernel's round trips and nothing else;
# - bare_db (bare_db.c: the pack served straight from the database, one SQLite statement and one
#   inflate per tile, PackFS's default thread count), on both transports: the format's floor.
# Cold: page cache, dentries and inodes dropped, and every FUSE tree a fresh process. Warm: every
# tree mounted once, read once unmeasured, then read again and again (nothing reaches a daemon).
# Also: the inflate alone (inflate_floor.c: libdeflate over the pack's stored tiles, from memory,
# one thread), part of the format's floor; the daemon's peak memory.
# Prints, per pass and transport, the median rate of each tree and PackFS's ratio to files and to
# both floors (medians of the ratios within each round), the transports against each other, the
# inflate's rate and the tiles' mean stored and raw sizes. Checks that every tree served the same
# bytes and that the io_uring trees were served over the ring.
# The kernel's switch /sys/module/fuse/parameters/enable_uring is set Y (needs Linux 6.14+) and
# restored on exit. Rounds: PACKFS_BENCH_COLD_ROUNDS (3) cold, PACKFS_BENCH_PASSES (9) warm.
# PACKFS_BIN: a built packfs to use (else a release build). PACKFS_BENCH_STORE=raw: the pack's
# tiles stored inflated (inflate_pack.py), to measure what the inflate costs cold reads. With PACKFS_BENCH_RESULTS=FILE
# (all.sh), also appends each round's figures to FILE (read_report.py).
# Needs root (drop_caches, the switch), FUSE, a C compiler, liburing, libdeflate, nginx.
# usage: read.sh [TILES] [THREADS]
set -euo pipefail
tiles=${1:-20000}
threads=${2:-4}
source "$(dirname "$0")/common.sh"
bench_start read
sides=(files mount mount_ring bare bare_ring floor floor_ring)
server=
declare -A pids  # the bare servers' (a PackFS daemon detaches: common.sh's daemon_pid finds it)
# cleanup: the bare servers told to stop first (one still loading mounts after an unmount would).
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for side in "${sides[@]}"; do fusermount3 -u "$work/mnt/$side" 2>/dev/null || true; done
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
}
ring_on cleanup
rm -rf "$work" && mkdir -p "$work/runs" "$work/logs"
for side in "${sides[@]}"; do mkdir -p "$work/mnt/$side"; done
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/read_tiles" scripts/bench/read_tiles.c
"$cc" -O2 -pthread -o "$work/bare_fuse" scripts/bench/bare_fuse.c $(pkg-config --cflags --libs fuse3 liburing)
"$cc" -O2 -pthread -o "$work/bare_db" scripts/bench/bare_db.c $(pkg-config --cflags --libs fuse3 sqlite3 libdeflate liburing)
"$cc" -O2 -o "$work/inflate_floor" scripts/bench/inflate_floor.c $(pkg-config --cflags --libs sqlite3 libdeflate)
serve_tiles "$work" "$tiles"
"$packfs" download "$work/packs.db" bench "$work/world/region.json" 2>/dev/null
kill "$server" 2>/dev/null || true
# PACKFS_BENCH_STORE=raw: the pack's tiles stored inflated (a lever for cold reads: no inflate).
[ "${PACKFS_BENCH_STORE:-}" != raw ] || python3 scripts/bench/inflate_pack.py "$work/packs.db" >/dev/null
cp "$work/packs.db" "$work/ring.db"  # a daemon locks its database: the io_uring mount gets a copy
(cd "$work/world/tiles" && find . -name '*.pbf' | sed 's#^\./##' | sort) >"$work/list.txt"
template=$(sqlite3 "$work/packs.db" "SELECT url_template FROM tiles LIMIT 1")
# default_threads: `packfs mount`'s default --threads (MountCommand.defaultThreads).
default_threads() { local n=$((2 * $(nproc))); echo $((n < 2 ? 2 : n > 16 ? 16 : n)); }

# tree SIDE: where SIDE's tiles are (z/x/y.pbf under it).
tree() { case $1 in files) echo "$work/world/tiles" ;; mount*) echo "$work/mnt/$1/packs/bench" ;; *) echo "$work/mnt/$1" ;; esac; }
# ring_flag SIDE: the bare servers' option for SIDE's transport.
ring_flag() { [[ $1 == *_ring ]] && echo --io-uring || true; }
# start SIDE: a fresh process serving SIDE (nothing for files); a bare server's stderr (its
# request counts per transport) goes to logs/SIDE.
start() {
  local mnt=$work/mnt/$1
  case $1 in
    files) return ;;
    mount) mount_db "$work/packs.db" "$mnt" -o io_uring=off ${PACKFS_BENCH_MOUNT_OPTIONS:-} ;;
    mount_ring) mount_db "$work/ring.db" "$mnt" -o io_uring=on ${PACKFS_BENCH_MOUNT_OPTIONS:-} ;;
    bare*) "$work/bare_fuse" $(ring_flag "$1") "$work/world/tiles" "$work/list.txt" "$mnt" 2>>"$work/logs/$1" & ;;
    floor*) "$work/bare_db" $(ring_flag "$1") "$work/packs.db" "$template" 1 pbf "$mnt" "$(default_threads)" \
              2>>"$work/logs/$1" & ;;
  esac
  [[ $1 != mount* ]] && pids[$1]=$!
  for _ in $(seq 100); do mountpoint -q "$mnt" && return; sleep 0.1; done
  echo "$1 did not mount (logs/$1)" >&2; exit 1
}
# stop SIDE: unmounted, its process gone. A PackFS mount first shows which transport served.
stop() {
  case $1 in
    files) ;;
    mount*) python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["transport"])' \
              "$work/mnt/$1/status.json" >>"$work/logs/$1"
            [ "$1" = mount ] && vm_hwm "$work/packs.db" "$work/mnt/$1" >>"$work/runs/memory"
            unmount_db "$work/$([ "$1" = mount ] && echo packs || echo ring).db" "$work/mnt/$1" ;;
    *) fusermount3 -u "$work/mnt/$1"; wait "${pids[$1]}" 2>/dev/null || true; unset "pids[$1]" ;;
  esac
}
# pid_of SIDE: the process serving SIDE (none for files).
pid_of() {
  case $1 in
    files) ;;
    mount) daemon_pid "$work/packs.db" "$work/mnt/$1" ;;
    mount_ring) daemon_pid "$work/ring.db" "$work/mnt/$1" ;;
    *) echo "${pids[$1]}" ;;
  esac
}
# cpu_ticks PID: the process's user + system time so far, all threads, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# run SIDE PASS READERS [REPEATS]: one timed pass over SIDE's tree, its "rate seconds bytes" line
# appended to runs/SIDE-PASS (a warm pass reads the list 5 times, so that it lasts long enough),
# and the CPU seconds its server spent in the pass to runs/SIDE-PASS-cpu.
run() {
  local pid before
  pid=$(pid_of "$1")
  [ -z "$pid" ] || before=$(cpu_ticks "$pid")
  "$work/read_tiles" "$(tree "$1")" "$work/list.txt" "$3" "${4:-1}" >>"$work/runs/$1-$2"
  [ -z "$pid" ] || echo "$(( $(cpu_ticks "$pid") - before )) $(getconf CLK_TCK)" |
    awk '{ print $1 / $2 }' >>"$work/runs/$1-$2-cpu"
}

# Rounds of one pass per tree, back to back, so that every tree meets the same machine (a
# background job slows a whole round); the order rotates, so that no tree always follows the
# same one.
cold_rounds=${PACKFS_BENCH_COLD_ROUNDS:-3}
passes=${PACKFS_BENCH_PASSES:-9}
for i in $(seq "$cold_rounds"); do
  for pass in cold1 cold; do
    readers=$([ $pass = cold1 ] && echo 1 || echo "$threads")
    for k in $(seq 0 6); do
      side=${sides[(i + k) % 7]}
      start "$side"; drop_caches; run "$side" $pass "$readers"; stop "$side"
    done
  done
done
for side in "${sides[@]}"; do start "$side"; done
for side in "${sides[@]}"; do run "$side" unmeasured 1; done
for i in $(seq "$passes"); do
  for k in $(seq 0 6); do run "${sides[(i + k) % 7]}" warm 1 5; done
done
for side in "${sides[@]}"; do stop "$side"; done
# The inflate alone, the database in memory: as many rounds as the cold passes, "seconds tiles
# bytes failed" each.
for _ in $(seq "$cold_rounds"); do "$work/inflate_floor" "$work/packs.db" >>"$work/runs/inflate"; done

for pass in cold1 cold warm; do
  [ "$(cut -d' ' -f3 "$work"/runs/*-$pass | sort -u | wc -l)" = 1 ] || { echo "$pass: byte totals differ" >&2; exit 1; }
done
# Served over the ring: each io_uring tree served at least a request per tile over it, each time.
for side in bare_ring floor_ring; do
  grep -o '[0-9]* requests over the ring' "$work/logs/$side" | awk -v least="$count" '$1 < least { bad++ } END { exit !(NR && !bad) }' ||
    { echo "$side was not served over io_uring:" >&2; cat "$work/logs/$side" >&2; exit 1; }
done
if grep -qv '^io_uring' "$work/logs/mount_ring"; then
  echo "PackFS did not always serve over io_uring:" >&2; cat "$work/logs/mount_ring" >&2; exit 1
fi
stored=$(sqlite3 "$work/packs.db" "SELECT AVG(LENGTH(data)) FROM tiles")
python3 scripts/bench/read_report.py "$work/runs" "$count" "$threads" "$stored" "$(default_threads)"
echo "io_uring trees, per mount: $(sort "$work/logs/mount_ring" | uniq -c | xargs) (PackFS);" \
  "$(grep -ho '[0-9]* requests over the ring' "$work/logs/bare_ring" | head -1) (bare_fuse, first cold pass)"
