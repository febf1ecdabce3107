#!/usr/bin/env bash
# Scale benchmark (issue 20): does a mount of a huge database an app made cost what a small one
# costs? For each size (a tile count) it builds an app-made database: `packfs reset` writes
# MapLibre's v6 schema, then plain SQL through the sqlite3 CLI writes MapLibre's rows and nothing
# of PackFS's (no packfs_* table, no tile sizes, no style): one pack per million tiles (two at
# least, so that one can be removed while the other is read), each its own block of z16 tiles
# (1,000 tiles per column), every tile unique (randomblob) and stored uncompressed. Then, page
# cache, dentries and inodes dropped before each figure:
#   - `packfs mount` until `ls MNT/packs` shows every pack;
#   - the mount's background count of the app's rows (status.json says "counting":true until the
#     totals are counted, each pack's progress.json until that pack is), polled every 0.2 s;
#   - cat status.json, cat p0's progress.json, `packfs list` and `packfs status DB p0` (read-only
#     commands, while mounted), `ls` of one of p1's columns, one tile of p1 and one of the last
#     pack read cold (a lookup that scans what comes before its pack grows with the database);
#   - `rm MNT/packs/p0.region`, a cold read of another of p1's tiles started 0.2 s into it, and
#     the time until p0's rows (its regions row, its region_tiles) are gone, with the rate;
#   - unmounting after that (until the daemon has exited: it folds the WAL back at close);
#   - `du -s` of p1 on a fresh mount (a walk of one pack: its tiles twice, as the pack has no
#     style, they show under 16/ and sources/<id>/), `packfs export DB p1 OUT.pmtiles`;
#   - each daemon's peak memory (VmHWM): the first one's (count, reads, removal), the second's
#     (walk, export).
# One table: a row per figure, a column per size, and the ratio of the largest size's figure to
# the smallest's for every figure but the generation's and those proportional to one pack (the
# removal's time until its rows are gone and its rate, the walk, the export): those should not
# grow with the database, but the count, a scan of what the app wrote, which shows how it grows.
# With PACKFS_BENCH_RESULTS=FILE (all.sh's convention), also appends planet.<size>.<figure>
# figures to FILE. Tiles are PACKFS_PLANET_TILE_BYTES (default 50) random bytes: the schema
# itself costs about 190 bytes a tile (the row, the template twice, five indexes), so a
# 100,000,000-tile database is about 24 GB. The database, the removal's write-ahead log and the
# export need free disk under the work directory; each size is refused before it is generated
# when there is not enough. Needs root (drop_caches), FUSE and the sqlite3 CLI.
# For runs over the same database (a before/after comparison of the count): PACKFS_PLANET_REUSE=1
# keeps the generated database between runs (the next run takes PackFS's tables and triggers out
# of it again and checks it, instead of generating it; the removal's run changes it, so it is
# generated again after one), PACKFS_PLANET_COUNT_ONLY=1 measures only the mount and the count
# (figures 1-2) and leaves the database as generated, and PACKFS_PLANET_PACKFS=BINARY runs that
# packfs binary instead of building one.
# Time: 1,000,000 took 50 s on 2 cores (the walk 23 s of it); larger sizes take longer than in
# proportion to the pack (1,000,000-tile packs from 2,000,000 on, two packs of half below that),
# plus their generation and count. 100,000,000 is run by hand.
# usage: planet.sh [SIZES...]    (default: 1000000 10000000)
set -euo pipefail
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
for size in "${sizes[@]}"; do
  [[ $size =~ ^[0-9]+$ ]] && [ "$size" -ge 10000 ] || { echo "usage: planet.sh [SIZES...] (tile counts, 10000 at least)" >&2; exit 2; }
done
tile_bytes=${PACKFS_PLANET_TILE_BYTES:-50}
work=${PACKFS_BENCH_DIR:-/tmp/packfs-bench-planet}
[ "$(id -u)" = 0 ] || { echo "planet.sh needs root (drop_caches, FUSE mounts)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "planet.sh needs the sqlite3 CLI" >&2; exit 1; }
reuse=${PACKFS_PLANET_REUSE:-} count_only=${PACKFS_PLANET_COUNT_ONLY:-}
source "$(dirname "$0")/common.sh"
if [ -n "${PACKFS_PLANET_PACKFS:-}" ]; then
  packfs=$(realpath "$PACKFS_PLANET_PACKFS")
  cd "$(dirname "$0")/../.."
else
  build_packfs
fi
fusermount3 -u "$work/mnt" 2>/dev/null || true
if [ -n "$reuse" ]; then mkdir -p "$work/mnt"; else rm -rf "$work" && mkdir -p "$work/mnt"; fi
work=$(cd "$work" && pwd)  # absolute: the daemon runs with absolute paths, daemon_pid matches them
db=$work/planet.db mnt=$work/mnt log=$work/daemon.log
trap 'fusermount3 -u "$mnt" 2>/dev/null || true' EXIT
template='http://bench.invalid/{z}/{x}/{y}.pbf'

# packs_visible: `ls MNT/packs` shows the $visible packs there are (10 s at most).
packs_visible() {
  for _ in $(seq 1000); do [ "$(ls "$mnt/packs" | grep -c '^p[0-9]*$')" = "$visible" ] && return; sleep 0.01; done
  echo "$mnt/packs does not show the $visible packs 10 s after the mount" >&2; return 1
}
# The daemon's messages go to $log: an error of the count or of the removal is in nobody's terminal otherwise.
mount_usable() { mount_db "$db" "$mnt" --log "$log"; packs_visible; }
# unmount_wait: unmount_db with a longer wait for the daemon's exit: after a removal its close
# folds hundreds of MB of write-ahead log back into the file.
unmount_wait() { unmount_db "$db" "$mnt" 600; }
# poll SECONDS CHECK...: runs CHECK every 0.2 s until it succeeds (0) or SECONDS pass (1).
poll() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do [ "$SECONDS" -lt "$deadline" ] || return 1; sleep 0.2; done
}

# The figures, in the table's order: name, label, unit, whether the ratio column applies.
figures=(
  "generate_s|generate the app's database (reset + SQL)|s|-"
  "db_mb|database file|MB|-"
  "floor_rows_s|count's floor: sqlite3 reading every tile row, cold|s|ratio"
  "floor_members_s|count's floor: sqlite3 reading the (region_id, tile_id) index, cold|s|ratio"
  "floor_both_s|count's floor: both at once, cold|s|ratio"
  "mount_s|packfs mount until ls packs shows every pack|s|ratio"
  "counted_s|background count, after the mount: status.json \"counting\":false|s|ratio"
  "packs_counted_s|background count, after the mount: every pack's progress.json|s|ratio"
  "count_floor_x|background count, every pack / its floor (both at once)|x|-"
  "count_cpu_s|daemon CPU time (user + system) when every pack is counted|s|ratio"
  "status_s|cat status.json|s|ratio"
  "progress_s|cat packs/p0/progress.json|s|ratio"
  "list_s|packfs list DB (mounted)|s|ratio"
  "pack_status_s|packfs status DB p0 (mounted)|s|ratio"
  "ls_column_s|ls of one column of p1 (1,000 tiles)|s|ratio"
  "read_s|cat of one tile of p1|s|ratio"
  "read_last_s|cat of one tile of the last pack|s|ratio"
  "rm_s|rm packs/p0.region|s|ratio"
  "read_during_rm_s|cat of a tile of p1, 0.2 s into the rm|s|ratio"
  "removed_s|removal: until p0's rows are gone (from the rm)|s|-"
  "remove_rate|removal rate (p0's tiles / that time)|tiles/s|-"
  "unmount_s|unmount after the removal, until the daemon exits|s|ratio"
  "du_s|du -s packs/p1, fresh mount (one pack's walk)|s|-"
  "export_s|packfs export DB p1 p1.pmtiles|s|-"
  "memory1_mb|daemon peak memory (count, reads, removal; a count-only run: the count)|MB|ratio"
  "memory2_mb|daemon peak memory (walk, export)|MB|ratio"
)
declare -A value
# figure NAME VALUE: keeps VALUE for the table, records it for all.sh and says it at once.
figure() {
  value[$1,$size]=$2
  record "planet.$size.$1" "$2"
  local f name label unit
  for f in "${figures[@]}"; do
    IFS='|' read -r name label unit _ <<<"$f"
    if [ "$name" = "$1" ]; then printf '  %-56s %12s %s\n' "$label" "$2" "$unit"; fi
  done
}
# cold NAME COMMAND...: caches dropped, then COMMAND alone is timed (output to /dev/null) as NAME.
cold() {
  local name=$1 t
  shift
  drop_caches
  timed t "$@" >/dev/null
  figure "$name" "$t"
}

# generate SIZE: the app-made database. Tile n of SIZE goes to pack i = n / per, its k-th tile
# (k = n % per) at x = 1000 * (i % 60) + k / 1000, y = 1000 * (i / 60) + k % 1000: a column of
# 1,000 tiles, each pack its own 1000 x 1000 block. Ids follow n, so every index but the
# template's (for packs 60 and on) is written in order. A tile is 0x1A (a vector tile's first
# byte) and random bytes: random bytes alone begin with gzip's magic once in 65,536 tiles, which
# the mount takes for a gzipped tile and fails to inflate (EIO), or with a JPEG's; || makes
# text (whose length stops at the first zero byte), CAST makes it a blob again. journal_mode
# OFF and synchronous OFF for the writing only: neither is kept in the file (DELETE mode).
generate() {
  rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
  "$packfs" reset "$db" >/dev/null
  awk -v packs="$packs" -v per="$per" -v n="$1" -v style="http://bench.invalid/style.json" '
    function lon(x) { return x / 65536 * 360 - 180 }
    function lat(y,  t) { t = 3.141592653589793 * (1 - 2 * y / 65536); return atan2((exp(t) - exp(-t)) / 2, 1) * 180 / 3.141592653589793 }
    BEGIN {
      print "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; BEGIN;"
      for (i = 0; i < packs; i++) {
        tiles = i < packs - 1 ? per : n - (packs - 1) * per
        x0 = 1000 * (i % 60); y0 = 1000 * int(i / 60); columns = int((tiles + 999) / 1000); rows = tiles < 1000 ? tiles : 1000
        # MapLibre compact definition; bounds [south, west, north, east] just inside the block.
        printf "INSERT INTO regions (id, definition, description) VALUES (%d, '\''{\"style_url\":\"%s\",\"min_zoom\":16.0,\"max_zoom\":16.0,\"pixel_ratio\":1.0,\"include_ideographs\":false,\"bounds\":[%.12f,%.12f,%.12f,%.12f]}'\'', CAST('\''{\"name\":\"p%d\"}'\'' AS BLOB));\n",
          i + 1, style, lat(y0 + rows) + 1e-9, lon(x0) + 1e-9, lat(y0) - 1e-9, lon(x0 + columns) - 1e-9, i
      }
    }' >"$work/generate.sql"
  cat >>"$work/generate.sql" <<EOF
WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < $1 - 1)
INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
  SELECT '$template', 1, 16, 1000 * ((v / $per) % 60) + (v % $per) / 1000, 1000 * ((v / $per) / 60) + (v % $per) % 1000,
    CAST(X'1A' || randomblob($tile_bytes - 1) AS BLOB), 0, $(date +%s) FROM n;
INSERT INTO region_tiles (region_id, tile_id) SELECT 1 + x / 1000 + 60 * (y / 1000), id FROM tiles;
COMMIT;
EOF
  sqlite3 "$db" <"$work/generate.sql" >/dev/null
}
# generated SIZE: cheap checks of what generate wrote (ids follow n, so MAX(id) is the count).
generated() {
  local found
  found=$(sqlite3 "$db" "PRAGMA journal_mode; SELECT MAX(id) FROM tiles; SELECT MAX(rowid) FROM region_tiles;
    SELECT COUNT(*) FROM regions; SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'packfs%';
    SELECT typeof(data) || ' ' || length(data) FROM tiles WHERE id = $1" | tr '\n' ' ')
  local want="delete $1 $1 $packs 0 blob $tile_bytes "
  [ "$found" = "$want" ] || { echo "generated database: got '$found', want '$want'" >&2; return 1; }
}

# uncount: the database as an app left it again after a mount (reuse): PackFS's triggers and
# tables dropped, the rollback journal back (the mount made it a write-ahead log).
uncount() {
  sqlite3 "$db" "PRAGMA journal_mode = DELETE;" >/dev/null
  sqlite3 "$db" "SELECT 'DROP TRIGGER \"' || name || '\";' FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'packfs%';
    SELECT 'DROP TABLE \"' || name || '\";' FROM sqlite_schema WHERE type = 'table' AND name LIKE 'packfs%';" >"$work/uncount.sql"
  sqlite3 "$db" <"$work/uncount.sql"
}
# reusable SIZE: with reuse, the database of SIZE tiles is there, or can be made an app's again.
reusable() {
  [ -n "$reuse" ] && [ -s "$db" ] && [ ! -e "$work/changed" ] || return 1
  uncount && generated "$1" 2>/dev/null
}

# room SIZE: refuses (exit 1) unless the disk under $work has room for the database (about 190
# bytes a tile besides its data), the removal's write-ahead log (about 300 bytes per tile of p0)
# and the export (about 60 bytes per tile of p1 besides its data), with 1 GiB to spare.
room() {
  local need have
  need=$(( $1 * (200 + tile_bytes) + per * (360 + tile_bytes) + (1 << 30) ))
  have=$(df -B1 --output=avail "$work" | tail -1)
  if [ "$have" -lt "$need" ]; then
    echo "planet.sh: $1 tiles need about $((need >> 30)) GiB free under $work; $((have >> 30)) GiB are." >&2
    echo "planet.sh: free some, or set PACKFS_BENCH_DIR to a larger disk" >&2
    exit 1
  fi
}

# Step 2: the first status.json says "counting":true (an app's database, nothing counted yet).
status_counting() { grep -q '"counting":true' "$mnt/status.json"; }
totals_counted() { grep -q '"counting":false' "$mnt/status.json"; }
packs_counted() { ! grep -q '"counting":true' "$mnt"/packs/*/progress.json; }
# Step 3's commands, each checked so that a fast wrong answer fails (grep reads a command's whole
# output: grep -q would end the pipe early, and pipefail take the writer's SIGPIPE for a failure).
cat_status() { grep -Eq "\"tiles\":$size[,}]" "$mnt/status.json"; }
cat_progress() { grep -Eq "\"completed_tiles\":$per[,}]" "$mnt/packs/p0/progress.json"; }
list() { "$packfs" list "$db" | grep '^p1 ' >/dev/null; }
pack_status() { "$packfs" status "$db" p0 | grep "^tiles: *$per of" >/dev/null; }
ls_column() { [ "$(ls "$mnt/packs/p1/16/1000" | wc -l)" = 1000 ]; }
# tile I X Y: pack pI's tile (16, X, Y), read, its length checked.
tile() { [ "$(cat "$mnt/packs/p$1/16/$2/$3.pbf" | wc -c)" = "$tile_bytes" ]; }
# Step 4: p0's rows gone (its memberships; its regions row, which a removal in steps deletes
# last). sqlite3 -readonly reads the daemon's write-ahead log through the shared memory file.
p0_gone() {
  [ "$(sqlite3 -readonly "$db" "SELECT EXISTS (SELECT 1 FROM regions WHERE id = 1)
    OR EXISTS (SELECT 1 FROM region_tiles WHERE region_id = 1)")" = 0 ]
}
du_pack() { local usage; usage=$(du -s "$mnt/packs/p1"); [ "${usage%%[[:space:]]*}" -gt 0 ]; }
export_pack() { "$packfs" export "$db" p1 "$work/p1.pmtiles" >/dev/null; }

record "# planet_tile_bytes" "$tile_bytes"
echo "sizes: ${sizes[*]} tiles of $tile_bytes bytes; $(nproc) cores; caches dropped before each figure"
run_start=$SECONDS
for size in "${sizes[@]}"; do
  packs=$(( (size + 999999) / 1000000 ))
  [ "$packs" -ge 2 ] || packs=2  # p0 is removed while p1 is read
  per=$(( (size + packs - 1) / packs ))
  echo
  echo "== $size tiles: $packs packs of $per ($(date +%H:%M:%S))"
  record "# planet_size" "$size"
  if reusable "$size"; then
    echo "  (the database generated by an earlier run, reused)"
  else
    # The previous size's database and export first: their room counts.
    rm -f "$db" "$db-wal" "$db-shm" "$work/p1.pmtiles" "$work/changed"
    room "$size"
    timed t generate "$size"
    generated "$size"
    figure generate_s "$t"
  fi
  figure db_mb "$(( $(stat -c %s "$db") / 1000000 ))"

  # The count's floor: what every figure together must read (every tile row, every membership),
  # each alone and both at once, cold, with SQLite's own CLI.
  rows_sql="SELECT COUNT(*), SUM(LENGTH(data)) FROM tiles NOT INDEXED"
  members_sql="SELECT SUM(tile_id) FROM region_tiles INDEXED BY sqlite_autoindex_region_tiles_1"
  cold floor_rows_s sqlite3 "$db" "$rows_sql"
  cold floor_members_s sqlite3 "$db" "$members_sql"
  cold floor_both_s sh -c 'sqlite3 "$1" "$2" & sqlite3 "$1" "$3" & wait' sh "$db" "$rows_sql" "$members_sql"

  # 1-2. The mount, then its background count of what the app wrote.
  visible=$packs
  drop_caches
  timed t mount_usable
  figure mount_s "$t"
  start=$EPOCHREALTIME
  status_counting || echo "  (status.json did not say \"counting\":true right after the mount)"
  deadline=$((120 + size / 100000))
  poll "$deadline" totals_counted || { echo "status.json still says counting $deadline s after the mount" >&2; exit 1; }
  figure counted_s "$(since "$start")"
  # Every pack counted: within a minute or two at 100M on a busy machine (benchmarks.md); the
  # deadline is the old count's (10 s a million-tile pack) twice over.
  deadline=$((120 + size / 50000))
  poll "$deadline" packs_counted || { echo "a pack is still counting $deadline s after the mount" >&2; exit 1; }
  figure packs_counted_s "$(since "$start")"
  figure count_cpu_s "$(awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$(daemon_pid "$db" "$mnt")/stat")"
  figure count_floor_x "$(awk "BEGIN { printf \"%.2f\", ${value[packs_counted_s,$size]} / ${value[floor_both_s,$size]} }")"
  if [ -n "$count_only" ]; then
    figure memory1_mb "$(awk "BEGIN { printf \"%.1f\", $(vm_hwm "$db" "$mnt") / 1024 }")"
    unmount_wait
    continue
  fi
  touch "$work/changed"  # the removal below changes the database: not reused

  # 3. Figures read from rows, the read-only commands, a listing and a tile.
  cold status_s cat_status
  cold progress_s cat_progress
  cold list_s list
  cold pack_status_s pack_status
  cold ls_column_s ls_column
  cold read_s tile 1 1001 500
  last=$((packs - 1))
  cold read_last_s tile "$last" $((1000 * (last % 60) + 3)) $((1000 * (last / 60) + 600))

  # 4. The removal of p0 and a read of p1 while it runs: rm in the background timing itself.
  drop_caches
  start=$EPOCHREALTIME
  (timed t rm "$mnt/packs/p0.region"; echo "$t" >"$work/rm_s") &
  remover=$!
  sleep 0.2
  timed t tile 1 1002 700
  wait "$remover"
  figure rm_s "$(cat "$work/rm_s")"
  figure read_during_rm_s "$t"
  poll 600 p0_gone || { echo "p0's rows are still there 600 s after its removal" >&2; exit 1; }
  t=$(since "$start")
  figure removed_s "$t"
  figure remove_rate "$(awk "BEGIN { printf \"%d\", $per / $t }")"
  figure memory1_mb "$(awk "BEGIN { printf \"%.1f\", $(vm_hwm "$db" "$mnt") / 1024 }")"
  timed t unmount_wait
  figure unmount_s "$t"

  # 5-6. A fresh mount: the walk of p1, then its export (a read-only command, mounted).
  visible=$((packs - 1))
  drop_caches
  mount_usable
  cold du_s du_pack
  cold export_s export_pack
  [ -s "$work/p1.pmtiles" ] || { echo "the export wrote no $work/p1.pmtiles" >&2; exit 1; }
  figure memory2_mb "$(awk "BEGIN { printf \"%.1f\", $(vm_hwm "$db" "$mnt") / 1024 }")"
  unmount_wait
done
[ -n "$reuse" ] || rm -f "$db" "$db-wal" "$db-shm" "$work/p1.pmtiles"
if [ -s "$log" ]; then echo; echo "the daemons said:"; sed 's/^/  /' "$log"; fi

# The table: a column per size, and largest / smallest where the figure should not grow.
echo
echo "planet.sh ${sizes[*]}: $((SECONDS - run_start)) s; $(nproc) cores; tiles of $tile_bytes bytes, $(date +%F)"
group() { local s=$1 out=""; while [ ${#s} -gt 3 ]; do out=",${s: -3}$out"; s=${s:0:${#s}-3}; done; echo "$s$out"; }
smallest=${sizes[0]} largest=${sizes[0]}
for size in "${sizes[@]}"; do
  if [ "$size" -lt "$smallest" ]; then smallest=$size; fi
  if [ "$size" -gt "$largest" ]; then largest=$size; fi
done
header="| figure | unit |"
rule="| --- | --- |"
for size in "${sizes[@]}"; do header+=" $(group "$size") tiles |"; rule+=" ---: |"; done
echo "$header $(group "$largest") / $(group "$smallest") |"
echo "$rule ---: |"
for f in "${figures[@]}"; do
  IFS='|' read -r name label unit ratio <<<"$f"
  row="| $label | $unit |" measured=
  for size in "${sizes[@]}"; do
    [ -z "${value[$name,$size]:-}" ] || measured=1
    v=${value[$name,$size]:--}
    [ "$unit" = s ] && [ "$v" != - ] && v=$(printf '%.3f' "$v")
    row+=" $v |"
  done
  if [ "$ratio" = ratio ] && [ "$smallest" != "$largest" ]; then
    row+=" $(awk "BEGIN { a = ${value[$name,$smallest]:-0}; b = ${value[$name,$largest]:-0}; if (a > 0) printf \"%.2f\", b / a; else print \"-\" }") |"
  else
    row+=" |"
  fi
  [ -z "$measured" ] || echo "$row"  # a count-only run measures the first figures alone
done
