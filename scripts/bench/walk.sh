#!/usr/bin/env bash
# Walking a big pack: a pack of N unique tiles (default 1,000,000) written straight into a
# database by gen_pack.py (real vector tiles, each unique: 22 KB on average, so the default pack
# is a 22 GB database, copied afresh for each round), then per round each command on a fresh mount (unmounted, the daemon
# gone, page cache, dentries and inodes dropped, mounted again), so that every name costs the
# daemon its work: `packfs mount` itself (until it returns with the pack visible), `ls` of one
# column, `du -s`, `find | wc -l` and `ls -lR` of the pack, and the pack's removal the way the
# docs/mount.md removes a pack in one step, `rm MNT/packs/big.region` (`rm -r` of the directory unlinks
# file after file, one transaction each). Each round works on a fresh copy of the database, so
# each removes a whole pack. These go over /dev/fuse (-o io_uring=off); `du -s` and `ls -lR` also
# over io_uring (-o io_uring=on), and both again on the kernel's floor (bare_fuse.c --tree) over
# each transport. Prints one line of seconds per round. `walk.sh 100000 1` is a quick look at a
# smaller pack. With PACKFS_BENCH_RESULTS=FILE (all.sh), also appends each round's figures to FILE.
# The kernel's switch /sys/module/fuse/parameters/enable_uring is set Y (needs Linux 6.14+) and
# restored on exit. PACKFS_BIN: a built packfs to use (else a release build).
# Needs root (drop_caches, the switch), FUSE, a C compiler and liburing.
# usage: walk.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-1000000}
rounds=${2:-3}
source "$(dirname "$0")/common.sh"
bench_start walk
db=$work/round.db mnt=$work/mnt bare=$work/bare
bare_pid=
# cleanup: a bare_fuse told to stop first (one still loading its tree mounts after an unmount would).
cleanup() {
  [ -z "$bare_pid" ] || kill "$bare_pid" 2>/dev/null || true
  fusermount3 -u "$mnt" 2>/dev/null || true
  fusermount3 -u "$bare" 2>/dev/null || true
}
ring_on cleanup
rm -rf "$work" && mkdir -p "$mnt" "$bare"
pack=$mnt/packs/big

"$packfs" reset "$work/big.db" >/dev/null
python3 scripts/bench/gen_pack.py "$work/big.db" "$tiles" >/dev/null
column=$pack/$(sqlite3 "$work/big.db" "SELECT z || '/' || MIN(x) FROM tiles")  # the pack's first column
record "# big_tiles" "$(sqlite3 "$work/big.db" "SELECT COUNT(*) FROM tiles")"
record "# column_tiles" "$(sqlite3 "$work/big.db" "SELECT COUNT(*) FROM tiles WHERE x = (SELECT MIN(x) FROM tiles)")"

# The commands timed, output to /dev/null; du and find check that they saw the whole pack, so
# that a fast wrong answer fails.
list_column() { ls "$column" >/dev/null; }
disk_usage() { local usage; usage=$(du -s "$pack"); [ "${usage%%[[:space:]]*}" -gt 0 ]; }
find_all() { [ "$(find "$pack" | wc -l)" -gt "$tiles" ]; }
list_recursive() { ls -lR "$pack" >/dev/null; }
remove_pack() { rm "$mnt/packs/big.region"; }
# removed: the pack's directory is gone (10 s at most; untimed: the daemon tells the kernel to
# forget the name just after rm's reply, so a look right after it may still see it cached).
removed() {
  for _ in $(seq 200); do [ -e "$pack" ] || return 0; sleep 0.05; done
  echo "$pack is still there 10 s after its removal" >&2; return 1
}
transport=off  # the mounts' -o io_uring=
mount_usable() { mount_db "$db" "$mnt" -o "io_uring=$transport"; stat "$pack" >/dev/null; }
# over_ring: the mount says it serves over io_uring (its status.json, read after the timing).
over_ring() {
  local served
  served=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["transport"])' "$mnt/status.json")
  [[ $served == io_uring* ]] || { echo "-o io_uring=on, but the mount serves over $served" >&2; return 1; }
}

# fresh NAME COMMAND [CHECK]: unmount (the daemon gone), caches dropped, and, but for the mount's
# own figure, mounted again; then COMMAND alone is timed and recorded as walk.NAME_s (and CHECK
# run after it).
fresh() {
  local t
  if mountpoint -q "$mnt"; then unmount_db "$db" "$mnt"; fi
  drop_caches
  [ "$1" = mount ] || mount_usable
  timed t "$2"
  "${3:-true}"
  record "walk.$1_s" "$t"
  printf ' %9.3f' "$t"
}
# ring NAME COMMAND [CHECK]: fresh, over io_uring, as walk.NAME_ring_s.
ring() {
  transport=on
  fresh "$1_ring" "$2" "${3:-true}"
  over_ring
  transport=off
}

# The floor (issue 20): the same tree, names and sizes, answered from memory by bare_fuse.c with
# the kernel settings PackFS asks for, in a fresh process with caches dropped: `du -s` and `ls
# -lR` of it cost the kernel's FUSE round trips alone. Its listing is the mount's own tree.
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -pthread -o "$work/bare_fuse" scripts/bench/bare_fuse.c $(pkg-config --cflags --libs fuse3 liburing)
cp "$work/big.db" "$db"
mount_usable
find "$pack" -printf '%y %s %P\n' >"$work/tree.txt"
unmount_db "$db" "$mnt"
# bare NAME COMMAND [--io-uring]: COMMAND timed on a fresh bare_fuse (pack pointing at it), as
# walk.bare_NAME_s, or over io_uring as walk.bare_NAME_ring_s (checked to have served over it).
bare() {
  local t saved=$pack name=bare_$1${3:+_ring}
  drop_caches
  "$work/bare_fuse" ${3:-} --tree "$work/tree.txt" "$bare" 2>"$work/bare.err" &
  bare_pid=$!
  for _ in $(seq 600); do mountpoint -q "$bare" && break; sleep 0.1; done
  mountpoint -q "$bare" || { echo "bare_fuse did not mount" >&2; exit 1; }
  pack=$bare
  drop_caches
  timed t "$2"
  pack=$saved
  fusermount3 -u "$bare"
  wait "$bare_pid" 2>/dev/null || true
  bare_pid=
  if [ -n "${3:-}" ] && ! grep -q '[1-9][0-9]* requests over the ring' "$work/bare.err"; then
    echo "bare_fuse --io-uring did not serve over the ring:" >&2; cat "$work/bare.err" >&2; exit 1
  fi
  record "walk.${name}_s" "$t"
  printf ' %9.3f' "$t"
}

echo "pack: $tiles tiles ($(du -m "$work/big.db" | cut -f1) MB), $(nproc) cores, $rounds rounds; seconds, each command on a fresh mount"
echo "/dev/fuse, but columns marked ring: io_uring; bare: bare_fuse.c --tree, the same tree from memory"
printf '%-6s' round
printf ' %9s' mount "ls column" "du -s" "du ring" find "ls -lR" "lsR ring" "rm pack" "bare du" "bare du r" "bare lsR" \
  "bare lsR r"
echo
for round in $(seq "$rounds"); do
  cp "$work/big.db" "$db"
  printf '%-6s' "$round"
  fresh mount mount_usable
  fresh ls list_column
  fresh du disk_usage
  ring du disk_usage
  fresh find find_all
  fresh lsR list_recursive
  ring lsR list_recursive
  fresh rm remove_pack removed
  unmount_db "$db" "$mnt"  # before the next round's copy overwrites its database
  bare du disk_usage
  bare du disk_usage --io-uring
  bare lsR list_recursive
  bare lsR list_recursive --io-uring
  echo
done
echo "targets (issue 12): mount < 0.5 s, ls of a column < 0.2 s, du -s, find and ls -lR < 5 s each, rm < 10 s"
echo "targets (issue 20): du -s within 1.5x of bare du (the kernel's floor), ls -lR within 2x of du -s"
