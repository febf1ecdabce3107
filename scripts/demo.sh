#!/usr/bin/env bash
# The main job on a fresh machine: install, build PackFS (release), serve the bundled sample tile
# server (Fixtures/world) with nginx on loopback, download the Helsinki pack into a new database in
# /tmp/packfs-demo, and show it with packfs and sqlite3.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build -c release --product packfs
packfs="$(swift build -c release --show-bin-path)/packfs"
demo=/tmp/packfs-demo
rm -rf "$demo" && mkdir -p "$demo"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
Tests/servers/nginx-world.sh --dir "$demo/server" --port "$port" --die-with-parent >"$demo/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/styles/bright.json" >/dev/null && break; sleep 0.1; done
echo "== sample tile server: http://127.0.0.1:$port (nginx, Fixtures/world)"

cat >"$demo/helsinki.region" <<REGION
{
  "style": "http://127.0.0.1:$port/styles/bright.json",
  "bounds": [24.93, 60.16, 24.96, 60.18],
  "minzoom": 0,
  "maxzoom": 14,
  "metadata": { "trip": "Helsinki weekend" }
}
REGION
set -x
cat "$demo/helsinki.region"
"$packfs" estimate "$demo/helsinki.region"
"$packfs" download "$demo/packs.db" helsinki "$demo/helsinki.region"
"$packfs" list "$demo/packs.db"
"$packfs" status "$demo/packs.db" helsinki
"$packfs" download "$demo/packs.db" helsinki "$demo/helsinki.region"   # again: nothing is fetched twice
sqlite3 "$demo/packs.db" "SELECT id, definition, CAST(description AS TEXT) FROM regions"
sqlite3 "$demo/packs.db" "SELECT kind, COUNT(*) FROM resources GROUP BY kind"
sqlite3 "$demo/packs.db" "SELECT url_template, COUNT(*) FROM tiles GROUP BY url_template"
sqlite3 "$demo/packs.db" "PRAGMA user_version; PRAGMA journal_mode; PRAGMA integrity_check"
