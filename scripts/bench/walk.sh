#!/usr/bin/env bash
# Walking a big pack: a pack of N unique tiles (default 1,000,000) written into a database by
# gen_pack.py as PackFS's writer would (real vector tiles, each unique: 22 KB on average, so the
# default pack is a 22 GB database; made once and kept in the work directory for later runs of
# the same size: delete it to make it again), then per round each command on a fresh mount
# (unmounted, the daemon gone, page cache, dentries and inodes dropped, mounted again), so that
# every name costs the daemon its work, and again at once on the same mount (warm: what the kernel
# kept): `packfs mount` itself (until it returns with the pack visible), `ls` of one column, and
# `du -s`, `find -type f | wc -l` and `ls -lR` of the pack, each beside the same command on the
# kernel's floor (bare_fuse.c --tree: the same names and sizes from memory, a fresh process) over
# the same transport, with PackFS's time over the floor's. The mount's transport is the default
# (-o io_uring=auto: io_uring where the kernel offers it); PACKFS_WALK_TRANSPORTS="auto off" adds
# /dev/fuse (twice the time). The rounds walk one copy of the database; after them the pack is
# removed from that copy the way docs/mount.md removes a pack in one step, `rm MNT/packs/big.region`
# (PACKFS_WALK_REMOVE=0: no copy and no removal; the rounds walk the kept database itself).
# With PACKFS_BENCH_RESULTS=FILE (all.sh), also appends each round's figures to FILE.
# The kernel's switch /sys/module/fuse/parameters/enable_uring is set Y (needs Linux 6.14+) and
# restored on exit. PACKFS_BIN: a built packfs to use (else a release build).
# Needs root (drop_caches, the switch), FUSE, a C compiler and liburing; the database and its copy
# need about 45 GB free (22 GB with PACKFS_WALK_REMOVE=0).
# usage: walk.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-1000000}
rounds=${2:-3}
source "$(dirname "$0")/common.sh"
bench_start walk
big=$work/big.db mnt=$work/mnt bare=$work/bare
bare_pid=
# cleanup: a bare_fuse told to stop first (one still loading its tree mounts after an unmount would).
cleanup() {
  [ -z "$bare_pid" ] || kill "$bare_pid" 2>/dev/null || true
  fusermount3 -u "$mnt" 2>/dev/null || true
  fusermount3 -u "$bare" 2>/dev/null || true
}
ring_on cleanup
mkdir -p "$mnt" "$bare"
pack=$mnt/packs/big

# The pack, made by PackFS's writer's rules: its tables and triggers first (a write of `packfs
# cache`), so that they keep the pack's figures and kept tiles as a download's would.
if [ "$(cat "$work/big.tiles" 2>/dev/null)" != "$tiles" ]; then
  rm -f "$big" "$work/big.tiles"
  "$packfs" reset "$big" >/dev/null
  "$packfs" cache "$big" clear >/dev/null
  python3 scripts/bench/gen_pack.py "$big" "$tiles" >/dev/null
  echo "$tiles" >"$work/big.tiles"
fi
db=$big
if [ "${PACKFS_WALK_REMOVE:-1}" != 0 ]; then db=$work/round.db; cp "$big" "$db"; fi
column=$pack/$(sqlite3 "$big" "SELECT z || '/' || MIN(x) FROM tiles")  # the pack's first column
record "# big_tiles" "$(sqlite3 "$big" "SELECT COUNT(*) FROM tiles")"
record "# column_tiles" "$(sqlite3 "$big" "SELECT COUNT(*) FROM tiles WHERE x = (SELECT MIN(x) FROM tiles)")"

# The commands timed, output to /dev/null; du and find check that they saw the whole pack, so
# that a fast wrong answer fails.
list_column() { ls "$column" >/dev/null; }
disk_usage() { local usage; usage=$(du -s "$pack"); [ "${usage%%[[:space:]]*}" -gt 0 ]; }
find_files() { [ "$(find "$pack" -type f | wc -l)" -ge "$tiles" ]; }
list_recursive() { ls -lR "$pack" >/dev/null; }
remove_pack() { rm "$mnt/packs/big.region"; }
# removed: the pack's directory is gone (10 s at most; untimed: the daemon tells the kernel to
# forget the name just after rm's reply, so a look right after it may still see it cached).
removed() {
  for _ in $(seq 200); do [ -e "$pack" ] || return 0; sleep 0.05; done
  echo "$pack is still there 10 s after its removal" >&2; return 1
}
transport=auto  # the mounts' -o io_uring=
mount_usable() { mount_db "$db" "$mnt" -o "io_uring=$transport"; stat "$pack" >/dev/null; }
# served: the transport the mount says it serves over (its status.json).
served() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["transport"])' "$mnt/status.json"
}

# fresh NAME COMMAND [CHECK]: unmount (the daemon gone), caches dropped, and, but for the mount's
# own figure, mounted again; then COMMAND alone is timed as $cold (and CHECK run after it).
fresh() {
  if mountpoint -q "$mnt"; then unmount_db "$db" "$mnt"; fi
  drop_caches
  [ "$1" = mount ] || mount_usable
  timed cold "$2"
  "${3:-true}"
}

# The floor (issue 20): the same tree, names and sizes, answered from memory by bare_fuse.c with
# the kernel settings PackFS asks for, in a fresh process with caches dropped: a walk of it costs
# the kernel's FUSE round trips alone. Its listing is the mount's own tree.
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/bare_fuse" scripts/bench/bare_fuse.c $(pkg-config --cflags --libs fuse3 liburing)
mount_usable
find "$pack" -printf '%y %s %P\n' >"$work/tree.txt"
unmount_db "$db" "$mnt"
# bare_walk COMMAND [--io-uring]: COMMAND timed as $cold on a fresh bare_fuse (pack pointing at it),
# then as $warm at once on the same one, checked to have served over the ring when asked to.
bare_walk() {
  local saved=$pack
  drop_caches
  "$work/bare_fuse" ${2:-} --tree "$work/tree.txt" "$bare" 2>"$work/bare.err" &
  bare_pid=$!
  for _ in $(seq 600); do mountpoint -q "$bare" && break; sleep 0.1; done
  mountpoint -q "$bare" || { echo "bare_fuse did not mount" >&2; exit 1; }
  pack=$bare
  drop_caches
  timed cold "$1"
  timed warm "$1"
  pack=$saved
  fusermount3 -u "$bare"
  wait "$bare_pid" 2>/dev/null || true
  bare_pid=
  if [ -n "${2:-}" ] && ! grep -q '[1-9][0-9]* requests over the ring' "$work/bare.err"; then
    echo "bare_fuse --io-uring did not serve over the ring:" >&2; cat "$work/bare.err" >&2; exit 1
  fi
}

# walk NAME LABEL COMMAND [CHECK]: COMMAND cold and warm on PackFS, then on the floor over the same
# transport; one line of seconds and ratios, each figure recorded as walk.NAME[_warm][_TRANSPORT]_s
# and walk.bare_NAME[_warm][_TRANSPORT]_s.
walk() {
  local packfs_cold packfs_warm ring= suffix=
  fresh "$1" "$3" "${4:-}"
  packfs_cold=$cold
  timed packfs_warm "$3"
  [[ $(served) == io_uring* ]] && ring=--io-uring
  [ "$transport" = auto ] || suffix=_$transport
  unmount_db "$db" "$mnt"
  bare_walk "$3" $ring
  record "walk.$1${suffix}_s" "$packfs_cold"
  record "walk.$1_warm${suffix}_s" "$packfs_warm"
  record "walk.bare_$1${suffix}_s" "$cold"
  record "walk.bare_$1_warm${suffix}_s" "$warm"
  awk -v name="$2" -v a="$packfs_cold" -v b="$cold" -v c="$packfs_warm" -v d="$warm" \
    'BEGIN { printf "  %-8s %9.3f %9.3f %6.2fx   %9.3f %9.3f %6.2fx\n", name, a, b, a / b, c, d, c / d }'
}

echo "pack: $tiles tiles ($(du -m "$big" | cut -f1) MB), $(nproc) cores, $rounds rounds; seconds"
echo "cold: a fresh mount, caches dropped; warm: the same command again at once on the same mount"
echo "floor: bare_fuse.c --tree, the same tree from memory, over the same transport"
for round in $(seq "$rounds"); do
  for transport in ${PACKFS_WALK_TRANSPORTS:-auto}; do
    fresh mount mount_usable
    mount_s=$cold
    fresh ls list_column
    echo "round $round, -o io_uring=$transport ($(served)), uptime:$(uptime | sed 's/.*average//')"
    printf '  mount %.3f s, ls of a column %.3f s\n' "$mount_s" "$cold"
    [ "$transport" = auto ] && { record walk.mount_s "$mount_s"; record walk.ls_s "$cold"; }
    printf '  %-8s %9s %9s %7s   %9s %9s %7s\n' walk "cold" "floor" ratio "warm" "floor" ratio
    walk du "du -s" disk_usage
    walk find "find" find_files
    walk lsR "ls -lR" list_recursive
  done
done
if [ "$db" != "$big" ]; then
  transport=auto
  fresh rm remove_pack removed
  record walk.rm_s "$cold"
  printf 'rm pack %.3f s\n' "$cold"
  unmount_db "$db" "$mnt"
  rm -f "$db"
fi
echo "targets (issue 12): mount < 0.5 s, ls of a column < 0.2 s, du -s, find and ls -lR < 5 s each, rm < 10 s"
echo "targets (issue 43): du -s, find and ls -lR within 1.5x of the floor, cold and warm"
