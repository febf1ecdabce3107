#!/usr/bin/env bash
# The main job on a fresh machine: install, build PackFS (release), serve the bundled sample tile
# server (Fixtures/world) with nginx on loopback, mount a new database, write a region file into
# the mount, wait for the download to complete, and show the pack as files.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build -c release --product packfs
packfs="$(swift build -c release --show-bin-path)/packfs"
demo=/tmp/packfs-demo
mnt="$demo/mnt"
fusermount3 -u "$mnt" 2>/dev/null || true
rm -rf "$demo" && mkdir -p "$mnt"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
Tests/servers/nginx-world.sh --dir "$demo/server" --port "$port" --die-with-parent >"$demo/server.log" 2>&1 &
server=$!
cleanup() { fusermount3 -u "$mnt" 2>/dev/null || true; kill "$server" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/styles/bright.json" >/dev/null && break; sleep 0.1; done
echo "== sample tile server: http://127.0.0.1:$port (nginx serving Fixtures/world)"

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
"$packfs" mount "$demo/packs.db" "$mnt"
cp "$demo/helsinki.region" "$mnt/packs/helsinki.region"
set +x
for _ in $(seq 600); do
  grep -q '"state":"complete"' "$mnt/packs/helsinki/progress.json" 2>/dev/null && break
  grep -q '"state":"error"' "$mnt/packs/helsinki/progress.json" 2>/dev/null && break
  sleep 0.1
done
set -x
ls -l "$mnt" "$mnt/packs" "$mnt/packs/helsinki"
cat "$mnt/packs/helsinki/progress.json"; echo
cat "$mnt/status.json"; echo
(cd "$mnt/packs/helsinki" && ls [0-9]*/[0-9]*/[0-9]*.pbf | wc -l)   # tiles of the primary source
find "$mnt/packs/helsinki" -type f | wc -l                          # every file of the pack
du -sh "$mnt/packs/helsinki"
head -c 400 "$mnt/packs/helsinki/style.json"; echo
"$packfs" list "$demo/packs.db"
