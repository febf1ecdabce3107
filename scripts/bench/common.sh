# Shared by the benchmarks (source it): a release build of packfs, generated tiles served by
# nginx on loopback, mounting and unmounting with the daemon's exit awaited, and the per-round
# figures all.sh aggregates.

# Builds packfs in release mode from the project root (the working directory afterwards) and
# sets $packfs to the binary: the one the package ships, the Swift runtime linked statically
# (package.sh's scratch path, so the two builds share their work). Its memory is what a device
# sees: a dynamic build maps the Swift libraries too (3.5 MB more resident, idle).
build_packfs() {
  [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
  # PACKFS_BIN, a packfs built already (all.sh's, or a debug one), skips the release build.
  if [ -n "${PACKFS_BIN:-}" ]; then packfs=$(realpath "$PACKFS_BIN"); fi
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  [ -z "${PACKFS_BIN:-}" ] || return 0
  local build=(swift build -c release --static-swift-stdlib --scratch-path .build-package)
  "${build[@]}" --product packfs >/dev/null
  packfs="$("${build[@]}" --show-bin-path)/packfs"
}

# bench_start NAME: sets $work, the benchmark's working directory (PACKFS_BENCH_DIR, which all.sh
# sets, else /tmp/packfs-bench-NAME), and builds packfs (build_packfs).
bench_start() {
  work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-$1}
  build_packfs
}

# fresh_mount_dir: an empty $work with an empty mountpoint $work/mnt (a mount an interrupted run
# left there unmounted first).
fresh_mount_dir() {
  fusermount3 -u "$work/mnt" 2>/dev/null || true
  rm -rf "$work" && mkdir -p "$work/mnt"
}

# serve_tiles WORK TILES: generates TILES unique tiles under WORK/world (with a region file and a
# URL list for curl), starts nginx on a free port and waits for it. Sets $port, $count (tiles
# generated) and $server (nginx's pid, for the caller's trap).
serve_tiles() {
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  count=$(python3 scripts/bench/gen_tiles.py "$1/world" "http://127.0.0.1:$port" "$2")
  Tests/servers/nginx-world.sh --dir "$1/nginx" --port "$port" --world "$1/world" --die-with-parent \
    >"$1/nginx.out" 2>&1 &
  server=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/styles/bench.json" >/dev/null && break; sleep 0.1; done
}

# drop_caches: page cache, dentries and inodes written back and dropped (needs root), so that the
# next pass reads from the disk, or asks the FUSE daemon, for every file.
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# mount_db DB MOUNTPOINT [OPTION...]: mounts DB (the daemon detaches), with the options given
# (planet.sh passes --log). The daemon of an earlier mount of DB may still be closing the database
# (it holds the database's lock until then): retried for 10 s.
mount_db() {
  for _ in $(seq 100); do "$packfs" mount "$@" 2>/dev/null && return; sleep 0.1; done
  "$packfs" mount "$@"
}

# daemon_pid DB MOUNTPOINT: the pid of the daemon serving DB on MOUNTPOINT (it runs again as
# "packfs mount DB MOUNTPOINT -f" once detached).
daemon_pid() { pgrep -f -- " mount $1 $2( |$)" | head -1; }

# unmount_db DB MOUNTPOINT [SECONDS]: unmounts and waits until the daemon has exited (SECONDS, 10
# by default), so that the next mount, above all a timed one, does not wait for it.
unmount_db() {
  local pid
  pid=$(daemon_pid "$1" "$2")
  fusermount3 -u "$2"
  [ -n "$pid" ] || return 0
  for _ in $(seq $(( ${3:-10} * 20 ))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
  echo "the daemon of $2 (pid $pid) has not exited ${3:-10} s after its unmount" >&2
  return 1
}

# vm_hwm DB MOUNTPOINT: the daemon's peak resident set so far (VmHWM), in KiB.
vm_hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$(daemon_pid "$1" "$2")/status"; }

# record NAME VALUE: with PACKFS_BENCH_RESULTS set (all.sh sets it), appends a "NAME VALUE" line
# to that file: one figure of one round, which all.sh aggregates (minimum, median, maximum); or,
# for a NAME "# WORD", a parameter of the run (a tile count) that the summary's labels show.
record() { [ -z "${PACKFS_BENCH_RESULTS:-}" ] || echo "$1 $2" >>"$PACKFS_BENCH_RESULTS"; }

# since START: seconds from START (an $EPOCHREALTIME) to now.
since() {
  local us=$(( 10#${EPOCHREALTIME//[.,]/} - 10#${1//[.,]/} ))
  printf '%d.%06d' $((us / 1000000)) $((us % 1000000))
}

# timed VAR COMMAND...: runs COMMAND (a function too) and sets VAR to its wall seconds, read
# from bash's own clock right before and after it (no process started for the timing).
timed() {
  local var=$1 start end us
  shift
  start=$EPOCHREALTIME; "$@"; end=$EPOCHREALTIME
  us=$(( 10#${end//[.,]/} - 10#${start//[.,]/} ))
  printf -v "$var" '%d.%06d' $((us / 1000000)) $((us % 1000000))
}

# ring_on CLEANUP: FUSE over io_uring on for this run (/sys/module/fuse/parameters/enable_uring,
# Linux 6.14+, root). CLEANUP (a function: unmounts, stops servers) runs now, for what an earlier
# run left, and again on exit or a signal, after which the switch is put back as it was.
ring_on() {
  ring_switch=/sys/module/fuse/parameters/enable_uring
  ring_previous=$(cat "$ring_switch")
  ring_cleanup=$1
  "$ring_cleanup"
  trap '"$ring_cleanup"; echo "$ring_previous" >"$ring_switch"' EXIT
  trap 'exit 1' INT TERM  # a signal too ends through the exit trap
  echo Y >"$ring_switch"
}
