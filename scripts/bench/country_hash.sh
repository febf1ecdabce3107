#!/usr/bin/env bash
# A country's pack proving itself (issue 41, item 6; `country.sh hash [TILES]` runs it): a pack of
# N realistic vector tiles (default 75,000: the fixture's real tiles, each made unique, gen_tiles.py)
# downloaded through a mount from nginx on loopback, which serves them gzipped, so the pack stores
# nginx's deflate streams (zlib). Prints, per binary:
# - from the origin's last answer (nginx's access log, millisecond times) to progress.json saying
#   "complete", and to the hash being recorded (no "hashing" in it);
# - `packfs verify` against the work floor (verify_floor.c: the rows read in martin's order, each
#   inflated by libdeflate, MD5 over the export bytes, one thread, in C), on 1 core (taskset -c 0,
#   both) and on all cores (verify may use them all; the floor is one thread);
# - `packfs export DB NAME out.mbtiles` against the same floor, and whether the file's
#   agg_tiles_hash equals the one verify prints (and the floor's: it computes the same hash);
# - the same figures extrapolated to 10,000,000 tiles with the measured per-tile costs.
# PACKFS_BIN: the packfs to measure (else a release build). PACKFS_BENCH_BEFORE: another packfs
# (an older commit's) measured first on the same tiles, back to back, for before/after figures.
# With PACKFS_BENCH_RESULTS=FILE, appends country_hash.* figures to FILE. Needs root (FUSE), a C
# compiler, libsqlite3, libdeflate and libcrypto headers.
set -euo pipefail
tiles=${1:-75000}
[[ $tiles =~ ^[0-9]+$ ]] && [ "$tiles" -ge 1000 ] || { echo "usage: country.sh hash [TILES] (1000 at least)" >&2; exit 2; }
source "$(dirname "$0")/common.sh"
bench_start country-hash
fresh_mount_dir
work=$(cd "$work" && pwd)
cc=${CC:-$(command -v cc || echo /opt/swift/usr/bin/clang)}
"$cc" -O2 -o "$work/verify_floor" scripts/bench/verify_floor.c -lsqlite3 -ldeflate -lcrypto
db=$work/country.db mnt=$work/mnt
trap 'fusermount3 -u "$mnt" 2>/dev/null || true; kill "$server" 2>/dev/null || true' EXIT
# The tiles (gen_tiles.py), only their gzipped siblings kept: PackFS asks for gzip, which nginx's
# gzip_static serves from them, and nginx-world.sh copies the tree (5 GB with the raw ones).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
count=$(python3 scripts/bench/gen_tiles.py "$work/serve/world" "http://127.0.0.1:$port" "$tiles")
find "$work/serve/world/tiles" -name '*.pbf' -delete
Tests/servers/nginx-world.sh --dir "$work/serve/nginx" --port "$port" --world "$work/serve/world" --die-with-parent \
  >"$work/serve/nginx.out" 2>&1 &
server=$!
for _ in $(seq 3000); do curl -sf "http://127.0.0.1:$port/styles/bench.json" >/dev/null && break; sleep 0.1; done
rm -rf "$work/serve/world"  # nginx serves its copy
log=$work/serve/nginx/access.log
progress=$mnt/packs/country/progress.json
echo "country hash: $count real vector tiles (z15), nginx on loopback gzipping them, $(nproc) cores; $(uptime)"

# download BINARY: a fresh database mounted, the region written, progress.json polled every 20 ms;
# sets complete_s and hashed_s (seconds from the origin's last tile answer) and download_s.
download() {
  local before json state="" started complete_at="" hashed_at="" first last
  "$1" reset "$db" >/dev/null
  packfs=$1 mount_db "$db" "$mnt"
  before=$(wc -l <"$log")
  started=$EPOCHREALTIME
  cp "$work/serve/nginx/world/region.json" "$mnt/packs/country.region"
  while [ -z "$hashed_at" ]; do
    { json=$(<"$progress"); } 2>/dev/null || json=""
    [[ $json =~ \"state\"[[:space:]]*:[[:space:]]*\"([a-z]+)\" ]] && state=${BASH_REMATCH[1]}
    [ "$state" != error ] || { echo "the download failed: $json" >&2; exit 1; }
    if [ "$state" = complete ]; then
      [ -n "$complete_at" ] || complete_at=$EPOCHREALTIME
      [[ $json == *'"hashing"'* ]] || hashed_at=$EPOCHREALTIME
    fi
    [ $(( ${EPOCHREALTIME%[.,]*} - ${started%[.,]*} )) -lt 1800 ] || { echo "no hash after 30 minutes: $json" >&2; exit 1; }
    sleep 0.02
  done
  packfs=$1 unmount_db "$db" "$mnt" 60
  read -r first last < <(tail -n +"$((before + 1))" "$log" | python3 -c '
import json, sys
times = [e["time"] for e in map(json.loads, sys.stdin) if e["uri"].startswith("/tiles/") and e["status"] == 200]
print(min(times), max(times))')
  read -r complete_s hashed_s download_s < <(python3 -c "
print(f'{${complete_at/,/.} - $last:.3f} {${hashed_at/,/.} - $last:.3f} {$last - $first:.3f}')")
}

# hash_of TEXT: the first agg_tiles_hash in TEXT (verify's report).
hash_of() { grep -o 'agg_tiles_hash [0-9A-F]*' <<<"$1" | head -1 | cut -d' ' -f2; }

# measure LABEL BINARY: the download, the floor and verify on 1 core and on all, the export;
# prints and records LABEL's figures.
measure() {
  local label=$1 bin=$2 region template floor1 floor2 stored floor_hash v1 vall out t_export exported
  download "$bin"
  region=$(sqlite3 "$db" "SELECT id FROM regions LIMIT 1")
  template=$(sqlite3 "$db" "SELECT url_template FROM tiles WHERE data IS NOT NULL LIMIT 1")
  stored=$(sqlite3 "$db" "SELECT count(*), sum(compressed) FROM tiles WHERE data IS NOT NULL" | tr '|' ' ')
  cat "$db" >/dev/null  # every run reads from the page cache
  read -r floor1 _ floor_hash _ < <(taskset -c 0 "$work/verify_floor" "$db" "$region" "$template")
  timed v1 taskset -c 0 "$bin" verify "$db" country >"$work/verify1.out"
  timed vall "$bin" verify "$db" country >"$work/verify.out"
  # The floor again after verify, the smaller of the two kept: the machine may be shared.
  read -r floor2 _ < <(taskset -c 0 "$work/verify_floor" "$db" "$region" "$template")
  floor1=$(python3 -c "print(min($floor1, $floor2))")
  out=$work/out.mbtiles
  rm -f "$out"
  timed t_export "$bin" export "$db" country "$out" >/dev/null
  exported=$(sqlite3 "$out" "SELECT value FROM metadata WHERE name = 'agg_tiles_hash'")
  rm -f "$out"
  local verified; verified=$(hash_of "$(cat "$work/verify.out")")
  [ "$verified" = "$(hash_of "$(cat "$work/verify1.out")")" ] || { echo "$label: verify's hashes differ" >&2; exit 1; }
  figures "$label" "$floor1" "$v1" "$vall" "$t_export"
  echo "  tiles stored (with content, zlib): $stored; hashes: verify $verified, export $exported, floor $floor_hash"
  [ "$verified" = "$exported" ] && echo "  the export's agg_tiles_hash equals verify's" ||
    echo "  MISMATCH: the export's agg_tiles_hash differs from verify's"
  [ "$verified" = "$floor_hash" ] || echo "  (the floor's hash is export rule 2's; verify's differs: another rule)"
}

# figures LABEL FLOOR VERIFY_1 VERIFY_ALL EXPORT: the table of one binary, at the pack's size and
# at 10,000,000 tiles (each figure scaled by its per-tile cost).
figures() {
  local label=$1 scale
  scale=$(python3 -c "print(10_000_000 / $count)")
  figure() {
    record "country_hash.$label.$1" "$2"
    printf '  %-58s %9.3f s %9s min\n' "$3" "$2" "$(python3 -c "print(f'{$2 * $scale / 60:.1f}')")"
  }
  echo "$label ($bin_name): $count tiles downloaded in $download_s s; figure, at $count tiles, at 10M tiles"
  figure complete_s "$complete_s" "origin's last answer to complete"
  figure hashed_s "$hashed_s" "origin's last answer to the hash recorded"
  figure floor_s "$2" "work floor (one thread, in C)"
  figure verify_1core_s "$3" "verify on 1 core ($(ratio "$3" "$2") the floor)"
  figure verify_s "$4" "verify on $(nproc) cores ($(ratio "$4" "$2") the floor)"
  figure export_s "$5" "export to MBTiles on $(nproc) cores ($(ratio "$5" "$2") the floor)"
}
ratio() { python3 -c "print(f'{$1 / $2:.2f}x')"; }

record "# country_hash_tiles" "$count"
if [ -n "${PACKFS_BENCH_BEFORE:-}" ]; then bin_name=$PACKFS_BENCH_BEFORE; measure before "$PACKFS_BENCH_BEFORE"; fi
bin_name=$packfs
measure after "$packfs"
echo "load after the runs: $(uptime)"
echo "targets (issue 41): complete within 5 s of the last answer; verify within 1.5x of the floor" \
  "(1 core and all); the export's agg_tiles_hash equals verify's"
