# The patch, touch and coverage parts of fresh.sh (sourced by it: $packfs, $work, $tiles, timed,
# record and common.sh's helpers are set).

mnt=$work/mnt
# make_packs: the pack "fresh" (TILES land tiles, z16 block) and "other" (50,000 Helsinki tiles)
# imported into $work/p0.db; the other pack's tile paths in $work/other.list.
make_packs() {
  python3 scripts/bench/gen_fresh.py Fixtures/mbtiles/land.mbtiles "$work/base.mbtiles" "$tiles" >/dev/null
  python3 scripts/bench/gen_fresh.py Fixtures/mbtiles/helsinki.mbtiles "$work/other.mbtiles" 50000 >/dev/null
  "$packfs" import "$work/p0.db" "$work/base.mbtiles" --name fresh >/dev/null
  "$packfs" import "$work/p0.db" "$work/other.mbtiles" --name other >/dev/null
  sqlite3 "$work/other.mbtiles" "SELECT 'other/' || zoom_level || '/' || tile_column || '/' || ((1 << zoom_level) - 1 - tile_row) || '.pbf' FROM tiles" >"$work/other.list"
  mkdir -p "$mnt"
}

# slowest_read SECONDS_FILE: runs the O_DIRECT reader of the other pack until $work/stop appears;
# prints "reads slowest_ms" into SECONDS_FILE.
start_reader() {
  rm -f "$work/stop"
  python3 scripts/bench/fresh_patch.py reader "$mnt/packs" "$work/other.list" "$work/stop" >"$1" &
  reader=$!
}
stop_reader() { touch "$work/stop"; wait "$reader"; }

coverage_part() {
  cp "$work/p0.db" "$work/c.db"
  mount_db "$work/c.db" "$mnt"
  timed cold cat "$mnt/packs/fresh/coverage.geojson" >/dev/null
  timed warm cat "$mnt/packs/fresh/coverage.geojson" >/dev/null
  unmount_db "$work/c.db" "$mnt"
  echo "coverage.geojson of $tiles tiles: cold ${cold} s, warm ${warm} s (target: cold <= 0.05 s)"
  record fresh_coverage_cold_s "$cold"
}

patch_part() {
  for percent in 1 100; do
    cp "$work/p0.db" "$work/p.db"
    local changed; changed=$(python3 scripts/bench/fresh_patch.py patch "$work/base.mbtiles" "$percent" "$work/patch.mbtiles")
    mount_db "$work/p.db" "$mnt"
    start_reader "$work/idle.txt"; sleep 3; stop_reader
    start_reader "$work/busy.txt"
    timed apply cp "$work/patch.mbtiles" "$mnt/packs/fresh.patch"
    stop_reader
    unmount_db "$work/p.db" "$mnt" 60
    "$packfs" verify "$work/p.db" fresh >/dev/null
    read -r idle_reads idle_ms <"$work/idle.txt"; read -r busy_reads busy_ms <"$work/busy.txt"
    echo "patch of $percent% ($changed of $tiles tiles, $(stat -c %s "$work/patch.mbtiles") bytes): applied in ${apply} s;" \
      "slowest read of the other pack meanwhile ${busy_ms} ms ($busy_reads reads), without a patch ${idle_ms} ms ($idle_reads reads)"
    record "fresh_patch_${percent}_s" "$apply"
    record "fresh_patch_${percent}_slowest_read_ms" "$busy_ms"
  done
}

# touch_part: the pack's directory export served by nginx, downloaded, then the same changes made
# on the origin and brought in by `packfs refresh` (requests counted in nginx's access log).
touch_part() {
  local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  local tree=$work/tree base=http://127.0.0.1:$port
  "$packfs" export "$work/p0.db" fresh "$tree/" --base-url "$base/" >/dev/null
  mkdir -p "$work/nginx/tmp"
  cat >"$work/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
daemon off; worker_processes 1; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  types { application/json json; application/x-protobuf pbf; }
  access_log $work/nginx/access.log; client_body_temp_path $work/nginx/tmp;
  sendfile on; tcp_nodelay on; keepalive_requests 1000000; etag on;
  server { listen 127.0.0.1:$port; root $tree; location / { } }
}
CONF
  nginx -c "$work/nginx/nginx.conf" &
  local server=$!
  for _ in $(seq 100); do curl -sf "$base/style.json" >/dev/null && break; sleep 0.1; done
  python3 - "$work/region.json" "$base/style.json" "$work/base.mbtiles" <<'PY'
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[3])
z, x0, x1, r0, r1 = db.execute("SELECT zoom_level, min(tile_column), max(tile_column), min(tile_row), max(tile_row) FROM tiles").fetchone()
n = 2 ** z
lon = lambda x: x / n * 360 - 180
lat = lambda y: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))
y0, y1 = n - 1 - r1, n - 1 - r0
e = 1e-7
json.dump({"style": sys.argv[2], "bounds": [lon(x0) + e, lat(y1 + 1) + e, lon(x1 + 1) - e, lat(y0) - e],
           "minzoom": z, "maxzoom": z}, open(sys.argv[1], "w"))
PY
  timed download "$packfs" download "$work/d.db" fresh "$work/region.json" 2>/dev/null
  echo "touch baseline: download of the pack from nginx: ${download} s, $(wc -l <"$work/nginx/access.log") requests"
  for percent in 1 100; do
    local changed; changed=$(python3 scripts/bench/fresh_patch.py touch "$tree" "$percent")
    local before; before=$(wc -l <"$work/nginx/access.log")
    timed refresh "$packfs" refresh "$work/d.db" fresh 2>/dev/null
    local requests=$(( $(wc -l <"$work/nginx/access.log") - before ))
    local changed_answers; changed_answers=$(tail -n "$requests" "$work/nginx/access.log" | grep -c '" 200 ' || true)
    echo "touch after $percent% changed on the origin ($changed files): refresh ${refresh} s, $requests requests ($changed_answers answered 200)"
    record "fresh_touch_${percent}_s" "$refresh"
    record "fresh_touch_${percent}_requests" "$requests"
  done
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}
