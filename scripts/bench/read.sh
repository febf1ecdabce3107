#!/usr/bin/env bash
# Read benchmark (issues 12, 30 and 43): every tile of a pack of N unique tiles (default 20,000)
# read, each file opened, read to EOF and closed (read_tiles.c), in these passes:
# - cold1 / cold: the list sorted (z/x/y), cold, with 1 reader and with THREADS (default 4);
# - view1: as a renderer reads (read_lists.py): 4x3-tile viewports in random order, each
#   centre-out, cold, 1 reader; then, on the same mount a few seconds later
#   (PACKFS_BENCH_REREAD_WAIT, 3 s) with no cache dropped, reread: the same list once more, warm,
#   1 reader, as a renderer returning to an area;
# - viewN, with PACKFS_BENCH_VIEW_THREADS=1: the viewports cold with THREADS readers, a
#   renderer's tile workers (left out by default: the run would last a quarter longer);
# - shuffle1: the list in random order, cold, 1 reader;
# - warm: the sorted list 5 times a pass, everything cached, 1 reader.
# The tiles are real vector tiles (real_tiles.py: the Helsinki fixture's city-scale tiles, each
# made unique), served by nginx and downloaded into the pack by `packfs download`. Seven trees are
# read in every pass:
# - files: the same tiles as ordinary files on the same disk (raw bytes);
# - PackFS (the mount), over /dev/fuse (-o io_uring=off) and over io_uring (-o io_uring=on);
# - bare_fuse (bare_fuse.c: the tiles held in memory, PackFS's kernel settings), on both
#   transports: the floor of any FUSE filesystem, the kernel's round trips and nothing else;
# - bare_db (bare_db.c: the pack served straight from the database, one SQLite statement and one
#   inflate per tile, PackFS's default thread count), on both transports: the format's floor. Each
#   reads the file the PackFS tree on its transport reads (packs.db, or its copy ring.db).
# Cold: page cache, dentries and inodes dropped, and every FUSE tree a fresh process. Warm: every
# tree mounted once, read once unmeasured, then read again and again (nothing reaches a daemon).
# Every pass also counts, from the kernel's tracepoints (a tracing instance of its own), the FUSE
# requests each tree's server got, by opcode, and the pages dropped from each tree's page cache
# in the pass (and, for reread, the wait before it), with how many DAMON's kdamond dropped
# (read_requests.py): what a warm pass still sends a daemon, and why.
# Also: the inflate alone (inflate_floor.c: libdeflate over the pack's stored tiles, from memory,
# one thread), part of the format's floor; the daemon's peak memory.
# Prints, per pass and transport, the median rate of each tree and PackFS's ratio to files and to
# both floors (medians of the ratios within each round), the transports against each other, the
# servers' CPU per tile, the requests and evicted pages per tile, the inflate's rate and the
# tiles' mean stored and raw sizes. Checks that every tree served the same bytes in every pass and
# that the io_uring trees were served over the ring.
# The kernel's switch /sys/module/fuse/parameters/enable_uring is set Y (needs Linux 6.14+) and
# restored on exit. Rounds: PACKFS_BENCH_COLD_ROUNDS (2) cold, PACKFS_BENCH_PASSES (5) warm (3 and 9
# before the renderer's passes came: the run would last twice as long). PACKFS_BENCH_COLD_PASSES
# ("view1", or several, space-separated) keeps only those cold passes: with more cold rounds, more
# first re-reads in the same time.
# PACKFS_BENCH_SIDES ("mount_ring floor_ring", or any of the seven trees) reads only those trees in
# the cold rounds, then stops: no warm pass, no inflate; the report gives each tree's rates, its server's
# CPU per tile in user space and in the kernel, the readers' time in the kernel, and each PackFS
# tree's ratio to the others on its transport (many rounds of one pair in minutes).
# PACKFS_BIN: a built packfs to use (else a release build). PACKFS_BENCH_STORE=raw: the pack's
# tiles stored inflated (inflate_pack.py), to measure what the inflate costs cold reads. With PACKFS_BENCH_RESULTS=FILE
# (all.sh), also appends each round's figures to FILE (read_report.py).
# Needs root (drop_caches, the switch, tracefs), FUSE, a C compiler, liburing, libdeflate, nginx.
# usage: read.sh [TILES] [THREADS]
set -euo pipefail
tiles=${1:-20000}
threads=${2:-4}
source "$(dirname "$0")/common.sh"
bench_start read
all_sides=(files mount mount_ring bare bare_ring floor floor_ring)
read -r -a sides <<<"${PACKFS_BENCH_SIDES:-${all_sides[*]}}"
for side in "${sides[@]}"; do
  [[ " ${all_sides[*]} " == *" $side "* ]] || { echo "PACKFS_BENCH_SIDES: no tree $side (trees: ${all_sides[*]})" >&2; exit 2; }
done
server=
declare -A pids  # the bare servers' (a PackFS daemon detaches: common.sh's daemon_pid finds it)
declare -A devs  # each tree's device as the kernel's tracepoints give it (kdev)
tracing=/sys/kernel/tracing
trace=$tracing/instances/packfs-read  # our own buffer: the system's and others' are left alone
# cleanup: the bare servers told to stop first (one still loading mounts after an unmount would).
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for side in "${sides[@]}"; do fusermount3 -u "$work/mnt/$side" 2>/dev/null || true; done
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  trace_stop
}
# kdev PATH: the device of PATH's filesystem as the kernel's dev_t (major << 20 | minor), which is
# how the tracepoints print it (stat's %d is the user-space encoding).
kdev() { stat -c '%Hd %Ld' "$1" | awk '{ print $1 * 1048576 + $2 }'; }
# trace_start: a tracing instance recording the FUSE requests sent and the pages dropped from page
# caches (trace_filter says whose). 128 MB a CPU: another benchmark's drop_caches empties the plain
# files' disk, whose events in the tiles' inode range overran 32 MB (read_requests.py reports it).
trace_start() {
  mountpoint -q "$tracing" || mount -t tracefs nodev "$tracing"
  mkdir "$trace"
  echo 131072 >"$trace/buffer_size_kb"
  trace_filter
  echo 1 >"$trace/events/filemap/mm_filemap_delete_from_page_cache/enable"
  echo 1 >"$trace/events/fuse/fuse_request_send/enable"
}
# trace_filter: only our trees' events are kept: other benchmarks on this machine mount FUSE trees
# and drop every cache too, and their millions of events would overrun the buffer. The plain
# files by their disk and their inodes' range (read_requests.py keeps the tiles' own).
trace_filter() {
  local fuse="connection == 0" pages side
  pages="(s_dev == ${devs[files]} && i_ino >= $first_inode && i_ino <= $last_inode)"
  for side in "${!devs[@]}"; do
    [ "$side" = files ] || { fuse+=" || connection == ${devs[$side]}"; pages+=" || s_dev == ${devs[$side]}"; }
  done
  echo "$fuse" >"$trace/events/fuse/fuse_request_send/filter"
  echo "$pages" >"$trace/events/filemap/mm_filemap_delete_from_page_cache/filter"
}
# trace_stop: the instance removed (the kernel refuses while an event of it has a filter).
trace_stop() {
  [ -d "$trace" ] || return 0
  echo 0 >"$trace/events/enable"
  echo 0 >"$trace/events/fuse/fuse_request_send/filter"
  echo 0 >"$trace/events/filemap/mm_filemap_delete_from_page_cache/filter"
  rmdir "$trace"
}
# trace_clear: the buffer emptied and nothing pending (a tree's device number is reused after its
# unmount, so what an earlier mount got must not count for the next).
trace_clear() { echo >"$trace/trace"; rm -f "$work/pending.json"; }
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
python3 scripts/bench/read_lists.py "$work/list.txt" "$work/viewports.txt" "$work/shuffled.txt"
find "$work/world/tiles" -name '*.pbf' -printf '%i\n' >"$work/files.inodes"
read -r first_inode last_inode < <(awk 'NR == 1 || $1 < a { a = $1 } $1 > b { b = $1 } END { print a, b }' "$work/files.inodes")
devs[files]=$(kdev "$work/world/tiles")
trace_start
template=$(sqlite3 "$work/packs.db" "SELECT url_template FROM tiles LIMIT 1")
# default_threads: `packfs mount`'s default --threads (MountCommand.defaultThreads).
default_threads() { local n=$((2 * $(nproc))); echo $((n < 2 ? 2 : n > 16 ? 16 : n)); }

# tree SIDE: where SIDE's tiles are (z/x/y.pbf under it).
tree() { case $1 in files) echo "$work/world/tiles" ;; mount*) echo "$work/mnt/$1/packs/bench" ;; *) echo "$work/mnt/$1" ;; esac; }
# db_file SIDE: the database SIDE's server reads. A daemon locks its database, so the io_uring trees
# read a copy; each floor reads its PackFS tree's file (the copy's blocks lie elsewhere on the disk).
db_file() { [[ $1 == *_ring ]] && echo "$work/ring.db" || echo "$work/packs.db"; }
# ring_flag SIDE: the bare servers' option for SIDE's transport.
ring_flag() { [[ $1 == *_ring ]] && echo --io-uring || true; }
# start SIDE: a fresh process serving SIDE (nothing for files); a bare server's stderr (its
# request counts per transport) goes to logs/SIDE.
start() {
  local mnt=$work/mnt/$1
  case $1 in
    files) return ;;
    mount) mount_db "$(db_file "$1")" "$mnt" -o io_uring=off ${PACKFS_BENCH_MOUNT_OPTIONS:-} ;;
    mount_ring) mount_db "$(db_file "$1")" "$mnt" -o io_uring=on ${PACKFS_BENCH_MOUNT_OPTIONS:-} ;;
    bare*) "$work/bare_fuse" $(ring_flag "$1") "$work/world/tiles" "$work/list.txt" "$mnt" 2>>"$work/logs/$1" & ;;
    floor*) "$work/bare_db" $(ring_flag "$1") "$(db_file "$1")" "$template" 1 pbf "$mnt" "$(default_threads)" \
              2>>"$work/logs/$1" & ;;
  esac
  [[ $1 != mount* ]] && pids[$1]=$!
  # A bare server loads every tile before it mounts: seconds on a busy machine, the disk cold.
  for _ in $(seq 600); do
    mountpoint -q "$mnt" && devs[$1]=$(kdev "$mnt") && trace_filter && return
    [[ $1 == mount* ]] || kill -0 "${pids[$1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "$1 did not mount (logs/$1)" >&2; exit 1
}
# stop SIDE: unmounted, its process gone. A PackFS mount first shows which transport served.
stop() {
  case $1 in
    files) ;;
    mount*) python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["transport"])' \
              "$work/mnt/$1/status.json" >>"$work/logs/$1"
            [ "$1" = mount ] && vm_hwm "$(db_file "$1")" "$work/mnt/$1" >>"$work/runs/memory"
            unmount_db "$(db_file "$1")" "$work/mnt/$1" ;;
    *) fusermount3 -u "$work/mnt/$1"; wait "${pids[$1]}" 2>/dev/null || true; unset "pids[$1]" ;;
  esac
  [ "$1" = files ] || unset "devs[$1]"  # the kernel gives its number to the next mount
}
# pid_of SIDE: the process serving SIDE (none for files).
pid_of() {
  case $1 in
    files) ;;
    mount*) daemon_pid "$(db_file "$1")" "$work/mnt/$1" ;;
    *) echo "${pids[$1]}" ;;
  esac
}
# cpu_ticks PID: the process's user and system time so far, all threads, in clock ticks.
cpu_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }
# run SIDE PASS READERS LIST [REPEATS]: one timed pass over SIDE's tree reading LIST (list,
# viewports or shuffled), read_tiles's "rate seconds bytes user system" line appended to
# runs/SIDE-PASS (a warm pass reads the list 5 times, so that it lasts long enough), the CPU
# seconds its server spent in the pass to runs/SIDE-PASS-cpu ("total user system"), and what
# reached it since its previous pass (or since the trace was cleared: a cold pass; the wait before
# a reread) to runs/SIDE-PASS-requests.
run() {
  local pid before
  pid=$(pid_of "$1")
  [ -z "$pid" ] || before=$(cpu_ticks "$pid")
  "$work/read_tiles" "$(tree "$1")" "$work/$4.txt" "$3" "${5:-1}" >>"$work/runs/$1-$2"
  [ -z "$pid" ] || echo "$before $(cpu_ticks "$pid") $(getconf CLK_TCK)" |
    awk '{ u = ($3 - $1) / $5; s = ($4 - $2) / $5; print u + s, u, s }' >>"$work/runs/$1-$2-cpu"
  python3 scripts/bench/read_requests.py "$trace" "${devs[$1]}" "$work/pending.json" "${devs[files]}" \
    "$work/files.inodes" >>"$work/runs/$1-$2-requests"
  echo >"$trace/trace"  # the other trees' events are pending.json's now
}
# cold SIDE PASS READERS LIST: a fresh SIDE, the caches dropped, one pass; after view1, the
# reread a few seconds later on the same mount.
cold() {
  start "$1"; drop_caches; trace_clear
  run "$1" "$2" "$3" "$4"
  if [ "$2" = view1 ]; then sleep "${PACKFS_BENCH_REREAD_WAIT:-3}"; run "$1" reread 1 "$4"; fi
  stop "$1"
}

# check_rings: each io_uring tree read was served over the ring, every time (a bare server: at
# least a request per tile over it).
check_rings() {
  local side
  for side in bare_ring floor_ring; do
    [[ " ${sides[*]} " == *" $side "* ]] || continue
    grep -o '[0-9]* requests over the ring' "$work/logs/$side" | awk -v least="$count" '$1 < least { bad++ } END { exit !(NR && !bad) }' ||
      { echo "$side was not served over io_uring:" >&2; cat "$work/logs/$side" >&2; exit 1; }
  done
  if [[ " ${sides[*]} " == *" mount_ring "* ]] && grep -qv '^io_uring' "$work/logs/mount_ring"; then
    echo "PackFS did not always serve over io_uring:" >&2; cat "$work/logs/mount_ring" >&2; exit 1
  fi
}
# check_bytes [PASS...]: in each cold pass and each PASS, every tree served the same bytes (a reread
# follows view1, when it ran).
check_bytes() {
  local checked=("${cold_passes[@]}" "$@") spec pass
  [[ " ${cold_passes[*]%%:*} " != *" view1 "* ]] || checked+=(reread)
  for spec in "${checked[@]}"; do
    pass=${spec%%:*}
    [ "$(cut -d' ' -f3 "$work"/runs/*-$pass | sort -u | wc -l)" = 1 ] || { echo "$pass: byte totals differ" >&2; exit 1; }
  done
}

# Rounds of one pass per tree, back to back, so that every tree meets the same machine (a
# background job slows a whole round); the order rotates, so that no tree always follows the
# same one.
cold_rounds=${PACKFS_BENCH_COLD_ROUNDS:-2}
passes=${PACKFS_BENCH_PASSES:-5}
# PASS:READERS:LIST, each pass of a cold round.
cold_passes=(cold1:1:list "cold:$threads:list" view1:1:viewports shuffle1:1:shuffled)
[ "${PACKFS_BENCH_VIEW_THREADS:-0}" = 0 ] || cold_passes+=("viewN:$threads:viewports")
# PACKFS_BENCH_COLD_PASSES="view1": only the passes named (with more rounds, more first re-reads).
if [ -n "${PACKFS_BENCH_COLD_PASSES:-}" ]; then
  chosen=()
  for spec in "${cold_passes[@]}"; do [[ " $PACKFS_BENCH_COLD_PASSES " == *" ${spec%%:*} "* ]] && chosen+=("$spec"); done
  [ "${#chosen[@]}" -gt 0 ] || { echo "PACKFS_BENCH_COLD_PASSES names no pass of: ${cold_passes[*]%%:*}" >&2; exit 2; }
  cold_passes=("${chosen[@]}")
fi
for i in $(seq "$cold_rounds"); do
  for spec in "${cold_passes[@]}"; do
    IFS=: read -r pass readers list <<<"$spec"
    for k in $(seq 0 $((${#sides[@]} - 1))); do cold "${sides[(i + k) % ${#sides[@]}]}" "$pass" "$readers" "$list"; done
  done
done
if [ -n "${PACKFS_BENCH_SIDES:-}" ]; then
  check_rings
  check_bytes
  python3 scripts/bench/read_report.py "$work/runs" "$count" "$threads" 0 "$(default_threads)" "${sides[*]}"
  exit 0
fi
for side in "${sides[@]}"; do start "$side"; done
trace_clear
for side in "${sides[@]}"; do run "$side" unmeasured 1 list; done
for i in $(seq "$passes"); do
  for k in $(seq 0 6); do run "${sides[(i + k) % 7]}" warm 1 list 5; done
done
for side in "${sides[@]}"; do stop "$side"; done
# The inflate alone, the database in memory: as many rounds as the cold passes, "seconds tiles
# bytes failed" each.
for _ in $(seq "$cold_rounds"); do "$work/inflate_floor" "$work/packs.db" >>"$work/runs/inflate"; done

check_bytes warm
check_rings
stored=$(sqlite3 "$work/packs.db" "SELECT AVG(LENGTH(data)) FROM tiles")
python3 scripts/bench/read_report.py "$work/runs" "$count" "$threads" "$stored" "$(default_threads)"
echo "io_uring trees, per mount: $(sort "$work/logs/mount_ring" | uniq -c | xargs) (PackFS);" \
  "$(grep -ho '[0-9]* requests over the ring' "$work/logs/bare_ring" | head -1) (bare_fuse, first cold pass)"
