#!/usr/bin/env bash
# Instruction benchmark (issue 43): what one cold tile costs PackFS's daemon in user space against
# bare_db (the format's floor: one statement and one inflate a tile), counted, not timed. On this
# 2-core VM two timed passes of one binary differ by up to 20%, and PackFS's own work is 5-10% of a
# cold tile: a timed pass cannot tell a change of 1% from noise. Valgrind's callgrind counts every
# instruction the daemon runs and simulates its caches, the same figures every run.
# A pack of N unique real vector tiles (default 3,000) is made as read.sh makes it; each server runs
# under callgrind (--cache-sim: 32 KiB L1 caches) with one thread (one connection: with several,
# which one serves a tile, and so what its page cache holds, changes the counts between runs),
# mounted (PackFS over /dev/fuse: valgrind knows nothing of FUSE's io_uring); its pack listed
# (PackFS) and 50 tiles read, its counters zeroed, then the page cache dropped and every other
# tile read once by one reader (read_tiles.c), sorted; the counters dumped.
# Prints per tile, for each server, the instructions, L1 instruction-cache misses and L1 data-cache
# misses, split by object (the server's own code with the Swift runtime linked into it, SQLite,
# libc, libdeflate, libfuse), and PackFS's ratio to bare_db.
# An L1 miss costs about 12 cycles (the L2's latency): PackFS's extra misses cost it about as much
# time as its extra instructions. Kernel work is not counted (it is the same FUSE work for both servers).
# PACKFS_BIN: a built packfs to use (else a release build). Needs root (drop_caches), FUSE, a C
# compiler, valgrind (not in setup.sh's lists), libdeflate, nginx. Takes about a minute.
# usage: instructions.sh [TILES]
set -euo pipefail
tiles=${1:-3000}
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
source "$(dirname "$0")/common.sh"
bench_start instructions
server=
cleanup() {
  fusermount3 -u "$work/mnt" 2>/dev/null || true
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
}
trap cleanup EXIT
fresh_mount_dir
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/read_tiles" scripts/bench/read_tiles.c
"$cc" -O2 -pthread -o "$work/bare_db" scripts/bench/bare_db.c $(pkg-config --cflags --libs fuse3 sqlite3 libdeflate liburing)
serve_tiles "$work" "$tiles"
"$packfs" download "$work/packs.db" bench "$work/world/region.json" 2>/dev/null
kill "$server" 2>/dev/null || true
server=
(cd "$work/world/tiles" && find . -name '*.pbf' | sed 's#^\./##' | sort) >"$work/all.txt"
# 50 tiles read first, uncounted: each server's first requests start its threads and prepare their
# statements (bare_db's per thread, as many as the loop happens to start), which a pass of 3,000 would count.
tail -n 50 "$work/all.txt" >"$work/warm.txt"
head -n -50 "$work/all.txt" >"$work/list.txt"
template=$(sqlite3 "$work/packs.db" "SELECT url_template FROM tiles LIMIT 1")
grind=(valgrind --tool=callgrind --cache-sim=yes)

# count SIDE: SIDE's server under callgrind, its counters for one cold pass in $work/SIDE.out.1.
count() {
  local tree=$work/mnt pid
  rm -f "$work/$1.out"*
  case $1 in
    packfs) "${grind[@]}" --callgrind-out-file="$work/$1.out" "$packfs" mount -f "$work/packs.db" "$work/mnt" \
              -o io_uring=off --threads 1 2>"$work/$1.log" &
            tree=$work/mnt/packs/bench ;;
    bare_db) "${grind[@]}" --callgrind-out-file="$work/$1.out" "$work/bare_db" "$work/packs.db" "$template" 1 pbf \
               "$work/mnt" 1 2>"$work/$1.log" & ;;
  esac
  pid=$!
  for _ in $(seq 600); do mountpoint -q "$work/mnt" && break; sleep 0.1; done
  mountpoint -q "$work/mnt" || { echo "$1 did not mount ($work/$1.log)" >&2; exit 1; }
  # PackFS's pack listed once (its view kept, as for any reader after the first); bare_db lists nothing.
  if [ "$1" = packfs ]; then ls "$tree" >/dev/null; fi
  "$work/read_tiles" "$tree" "$work/warm.txt" 1 >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  drop_caches
  "$work/read_tiles" "$tree" "$work/list.txt" 1 >"$work/$1.rate"
  callgrind_control -d "$pid" >/dev/null 2>&1
  fusermount3 -u "$work/mnt"
  wait "$pid" || true
}
count packfs
count bare_db
echo "instructions.sh $tiles: $(wc -l <"$work/list.txt") tiles read cold, one reader; per tile"
python3 scripts/bench/instructions.py "$work/list.txt" "$work/packfs.out.1" "$work/bare_db.out.1"
