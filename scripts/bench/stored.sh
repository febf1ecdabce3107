#!/usr/bin/env bash
# Cold reads of one pack stored several ways (issue 43): its tiles compressed (the default) or
# inflated (`"tile_storage": "inflated"`, the same rows inflate_pack.py writes), at 4 KiB pages
# and, rewritten by VACUUM, at 16 and 64 KiB. Reads read.sh's pack and tiles from WORK, a
# directory a `read.sh` run left (PACKFS_BENCH_DIR, default /tmp/packfs-bench-read: world/tiles,
# list.txt, packs.db and the built read_tiles and bare_db), with the same tools, and serves each
# copy from PackFS and from bare_db on both transports, beside the files; no bare_fuse (whose
# in-memory load of the whole tree is not part of this question). Each round reads every tree once
# cold (caches dropped, a fresh process), in a rotating order, with 1 reader and then READERS.
# Prints the medians of rates and of the ratios within rounds, and each copy's size.
# Needs root (drop_caches), FUSE, sqlite3, python3. Leaves WORK's pack as it was.
# usage: stored.sh [ROUNDS] [READERS]      (default 3 4)
set -euo pipefail
rounds=${1:-3}
readers=${2:-4}
source "$(dirname "$0")/common.sh"
bench_start read
copies=$work/stored; mnt=$copies/mnt
rm -rf "$copies" && mkdir -p "$mnt"
trap 'fusermount3 -u "$mnt" 2>/dev/null || true' EXIT
template=$(sqlite3 "$work/packs.db" "SELECT url_template FROM tiles LIMIT 1")
# The copies: compressed and inflated, each VACUUMed at its page size so that all are laid out alike.
variants=(c4 i4 c16 i16 i64)
for v in "${variants[@]}"; do
  db=$copies/$v.db; cp "$work/packs.db" "$db"
  [[ $v != i* ]] || python3 scripts/bench/inflate_pack.py "$db" >/dev/null
  sqlite3 "$db" "PRAGMA page_size = $((${v:1} * 1024)); VACUUM" >/dev/null
  cp "$db" "$db.ring"  # a daemon locks its database: the io_uring mount gets a copy
done
trees=(files)
for v in "${variants[@]}"; do trees+=("$v:mount" "$v:mount_ring" "$v:floor" "$v:floor_ring"); done

# serve TREE: mounts TREE's server on $mnt (nothing for files); sets $dir, the directory to read.
serve() {
  local db=$copies/${1%%:*}.db
  dir=$mnt
  case ${1#*:} in
    files) dir=$work/world/tiles; return ;;
    mount) mount_db "$db" "$mnt" -o io_uring=off; dir=$mnt/packs/bench ;;
    mount_ring) mount_db "$db.ring" "$mnt" -o io_uring=on; dir=$mnt/packs/bench ;;
    floor) "$work/bare_db" "$db" "$template" 1 pbf "$mnt" 4 >/dev/null 2>&1 & ;;
    floor_ring) "$work/bare_db" --io-uring "$db" "$template" 1 pbf "$mnt" 4 >/dev/null 2>&1 & ;;
  esac
  for _ in $(seq 300); do mountpoint -q "$mnt" && break; sleep 0.1; done
}
# unserve TREE: unmounted, its process gone.
unserve() {
  case ${1#*:} in
    files) ;;
    mount) unmount_db "$copies/${1%%:*}.db" "$mnt" ;;
    mount_ring) unmount_db "$copies/${1%%:*}.db.ring" "$mnt" ;;
    *) fusermount3 -u "$mnt"; wait ;;
  esac
}
# A failed pass (bare_db sometimes answers ENOSYS here) prints no rate: the round keeps going.
for r in $(seq "$rounds"); do
  for n in 1 "$readers"; do
    for k in $(seq 0 $((${#trees[@]} - 1))); do
      tree=${trees[(r + k) % ${#trees[@]}]}
      serve "$tree"; drop_caches
      rate=$("$work/read_tiles" "$dir" "$work/list.txt" "$n" 1 2>/dev/null | cut -d' ' -f1) || rate=
      unserve "$tree"
      echo "$r $n $tree $rate" >>"$copies/runs"
    done
  done
done
for v in "${variants[@]}"; do echo "$v: $(stat -c %s "$copies/$v.db") bytes"; done
python3 - "$copies/runs" <<'EOF'
import collections, statistics, sys
rates = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4: rates[parts[1], parts[2]][parts[0]] = float(parts[3])
def median(values): return statistics.median(values) if values else float("nan")
for n in sorted({key[0] for key in rates}, key=int):
    files = rates[n, "files"]
    print(f"{n} reader(s), cold: files {median(list(files.values())):.0f} tiles/s")
    for variant in sorted({key[1].split(":")[0] for key in rates if ":" in key[1]}):
        for side, floor in (("mount", "floor"), ("mount_ring", "floor_ring")):
            mine, base = rates.get((n, f"{variant}:{side}"), {}), rates.get((n, f"{variant}:{floor}"), {})
            to_files = [mine[r] / files[r] for r in mine if r in files]
            to_floor = [mine[r] / base[r] for r in mine if r in base]
            print(f"  {variant:4} {side:10} PackFS {median(list(mine.values())):6.0f}  bare_db {median(list(base.values())):6.0f}"
                  f"  PackFS/files {median(to_files):.2f}  PackFS/bare_db {median(to_floor):.2f} ({len(to_floor)} rounds)")
EOF
