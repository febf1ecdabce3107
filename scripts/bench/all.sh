#!/usr/bin/env bash
# Every benchmark figure of issue 12 in one command: read.sh (cold and warm reads against ordinary
# files and a bare FUSE filesystem), load.sh (8 reader threads against 1, the daemon's memory with
# readers and a download at once, readdir during a download), walk.sh (a 1,000,000-tile pack:
# mount, ls, du -s, find, ls -lR, removal) and download.sh (against curl; the database's size
# against an MBTiles file), each building its own data. Each script appends its per-round figures
# to one results file; summarize.py prints each figure's minimum, median and maximum over rounds
# and whether its target holds, as a Markdown table, after the machine it ran on.
# Run as root from a checkout after ./scripts/setup.sh. Environment: ROUNDS (3), READ_TILES
# (20000), THREADS (4, read.sh's readers), LOAD_TILES (20000), BIG_TILES (1000000),
# DOWNLOAD_TILES (20000), RESULTS (the results file; default /var/tmp/packfs-bench/DATE.txt).
# At the default sizes on 2 cores: 32 minutes on issue 12's starting code, 28 of them walk.sh's
# du -s and ls -lR of the 1M pack (2-8 minutes each); 19 minutes on its final code, 8 of them
# ls -lR (two extended-attribute round trips per file, see docs/mount.md). Since issue 30 the tiles are
# real (real_tiles.py) and read.sh and walk.sh also measure io_uring: walk.sh's 1,000,000-tile
# pack is a 22 GB database, copied for each round (about 45 GB free needed).
# usage: all.sh
set -euo pipefail
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-all}
results=${RESULTS:-/var/tmp/packfs-bench/$(date +%Y%m%d-%H%M%S).txt}
stamp=/tmp/packfs-bench-download.cleaned  # download.sh's: when a run last deleted many files
[ "$(id -u)" = 0 ] || { echo "all.sh needs root (drop_caches, FUSE mounts of its own)" >&2; exit 1; }

# cleanup: whatever a failed script left mounted under the work directory, then the directory
# (at the start too: an interrupted run's). Deleting its tens of thousands of files slows ext4
# file creation nearby for minutes (see download.sh), so no script deletes its data before the
# end of the run; this leaves download.sh's stamp, for the next run's warning.
cleanup() {
  findmnt -rn -o TARGET | grep "^$work/" | xargs -r -n1 fusermount3 -u -z 2>/dev/null || true
  if [ -d "$work" ]; then rm -rf "$work"; touch "$stamp"; fi
}

# machine: cores, memory, kernel, and the disk under the work directory (device, model and
# rotational flag as the kernel reports them, file system, its journal and mount options).
machine() {
  local device fs disk journal=""
  read -r device fs < <(df --output=source,fstype "$work" | tail -1)
  disk=$(lsblk -no PKNAME "$device" 2>/dev/null | head -1)
  disk=${disk:-${device#/dev/}}
  if [ "$fs" = ext4 ]; then
    journal=", $(ls /proc/fs/jbd2 2>/dev/null | grep -q "^${device#/dev/}-" && echo journal || echo "no journal")"
  fi
  echo "- cores: $(nproc) ($(lscpu | sed -n 's/^Model name: *//p')), memory $(free -g | awk '/^Mem/ { print $2 }') GiB"
  echo "- kernel: $(uname -r)"
  echo "- disk under $work: $device ($(lsblk -dno TRAN,MODEL "/dev/$disk" | xargs | sed 's/^$/model not reported/')," \
    "driver $(basename "$(readlink -f "/sys/block/$disk/device/driver")"), rotational" \
    "$(cat "/sys/block/$disk/queue/rotational")), $fs$journal ($(findmnt -no OPTIONS -T "$work"))"
}

# bench SCRIPT ARGS...: one benchmark script with its own work directory under $work, its figures
# appended to the results file; its own output shown as it runs.
bench() {
  local script=$1
  shift
  echo
  echo "== $script $* ($(date +%H:%M:%S))"
  PACKFS_BENCH_DIR="$work/${script%.sh}" PACKFS_BENCH_RESULTS="$results" "$here/$script" "$@"
}

if [ -f "$stamp" ] && [ $(($(date +%s) - $(stat -c %Y "$stamp"))) -lt 360 ]; then
  echo "warning: a benchmark deleted many files $(($(date +%s) - $(stat -c %Y "$stamp"))) s ago; file creation" \
    "(curl's in download.sh) is slowed for about 6 minutes after that (ext4 without a journal)" >&2
fi
cleanup
trap cleanup EXIT
mkdir -p "$work" "$(dirname "$results")"
: >"$results"
start=$SECONDS
source "$here/common.sh"
build_packfs
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')"
command="ROUNDS=$rounds READ_TILES=${READ_TILES:-20000} THREADS=${THREADS:-4} LOAD_TILES=${LOAD_TILES:-20000}"
command+=" BIG_TILES=${BIG_TILES:-1000000} DOWNLOAD_TILES=${DOWNLOAD_TILES:-20000} scripts/bench/all.sh"
{ echo "# commit $commit"; echo "# rounds $rounds"; } >>"$results"

# A script that fails leaves its figures "not measured" and the others still run (the run fails
# at the end). download.sh runs last: it times file creation (curl's), which the others'
# deletions would slow. read.sh: ROUNDS cold rounds and 3 warm passes per round (its own
# defaults: 2 and 5).
failed=()
PACKFS_BENCH_COLD_ROUNDS=$rounds PACKFS_BENCH_PASSES=$((3 * rounds)) \
  bench read.sh "${READ_TILES:-20000}" "${THREADS:-4}" || failed+=(read.sh)
bench load.sh "${LOAD_TILES:-20000}" "$rounds" || failed+=(load.sh)
bench walk.sh "${BIG_TILES:-1000000}" "$rounds" || failed+=(walk.sh)
bench download.sh "${DOWNLOAD_TILES:-20000}" "$rounds" || failed+=(download.sh)

report=${results%.txt}.md
{
  echo "## PackFS benchmarks: scripts/bench/all.sh, $(date '+%Y-%m-%d %H:%M'), commit $commit, $rounds rounds"
  echo
  echo "- command (as root, after ./scripts/setup.sh): \`$command\`"
  machine
  echo "- run time: $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
  echo
  python3 "$here/summarize.py" "$results"
} | tee "$report"
echo
echo "raw figures (one line per round): $results; this table: $report"
[ ${#failed[@]} = 0 ] || { echo "failed: ${failed[*]} (their figures are missing above)" >&2; exit 1; }
