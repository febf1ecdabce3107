#!/usr/bin/env bash
# The FUSE transports against each other (issue 30): `du -s` and `ls -lR` of a pack of TILES
# (default 1,000,000) of the land fixture's real tiles, each on a fresh mount over /dev/fuse
# (-o io_uring=off) and over io_uring (-o io_uring=on: needs Linux 6.14+ and root to switch
# /sys/module/fuse/parameters/enable_uring on, which this script does and undoes), alternating,
# ROUNDS rounds (default 3). Prints each round, then the medians, the speedup, and the daemon's
# CPU (user + system, from /proc) per walk on each transport.
# PACKFS_BIN: a built packfs to use (else a release build). usage: transport.sh [TILES] [ROUNDS]
set -euo pipefail
tiles=${1:-1000000} rounds=${2:-3}
source "$(dirname "$0")/common.sh"
bench_start transport
cleanup() { fusermount3 -u "$work/mnt" 2>/dev/null || true; }
ring_on cleanup
rm -rf "$work" && mkdir -p "$work/mnt"
python3 scripts/bench/gen_fresh.py Fixtures/mbtiles/land.mbtiles "$work/p.mbtiles" "$tiles" 0 >/dev/null
"$packfs" import "$work/packs.db" "$work/p.mbtiles" --name p >/dev/null
rm -f "$work/p.mbtiles"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for round in $(seq "$rounds"); do
  for mode in off on; do
    mount_db "$work/packs.db" "$work/mnt" -o "io_uring=$mode"
    pid=$(daemon_pid "$work/packs.db" "$work/mnt")
    c0=$(cpu "$pid"); timed du_s du -s "$work/mnt/packs/p" >/dev/null
    c1=$(cpu "$pid"); timed ls_s ls -lR "$work/mnt/packs/p" >/dev/null
    c2=$(cpu "$pid")
    echo "$mode $du_s $((c1 - c0)) $ls_s $((c2 - c1))" | tee -a "$work/rounds"
    unmount_db "$work/packs.db" "$work/mnt"
  done
done
python3 - "$work/rounds" "$tiles" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, du, du_cpu, ls, ls_cpu = line.split()
    rows.setdefault(mode, []).append((float(du), int(du_cpu), float(ls), int(ls_cpu)))
med = {m: [statistics.median(r[i] for r in rs) for i in range(4)] for m, rs in rows.items()}
for m, name in (("off", "/dev/fuse"), ("on", "io_uring")):
    du, du_cpu, ls, ls_cpu = med[m]
    print(f"{name}: du -s {du:.2f} s (daemon CPU {du_cpu / 100:.2f} s), ls -lR {ls:.2f} s (daemon CPU {ls_cpu / 100:.2f} s), medians of {len(rows[m])}")
c, r = med["off"], med["on"]
print(f"io_uring against /dev/fuse, {sys.argv[2]} tiles: du -s {c[0] / r[0]:.2f}x as fast, ls -lR {c[2] / r[2]:.2f}x "
      f"(target 1.5x); daemon CPU {100 * (r[1] / c[1] - 1):+.0f}% and {100 * (r[3] / c[3] - 1):+.0f}% (target -25%)")
PY
