#!/usr/bin/env bash
# The main job: set up, build PackFS (release) and run it on a sample database in /tmp/packfs-demo.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build -c release --product packfs
packfs="$(swift build -c release --show-bin-path)/packfs"
demo=/tmp/packfs-demo
mkdir -p "$demo"
"$packfs" reset "$demo/packs.db"
echo "== sqlite3 $demo/packs.db .tables"
sqlite3 "$demo/packs.db" .tables
echo "== PRAGMA user_version: $(sqlite3 "$demo/packs.db" 'PRAGMA user_version')"
echo "== packfs list"
"$packfs" list "$demo/packs.db"
echo "== packfs cache size"
"$packfs" cache "$demo/packs.db" size
