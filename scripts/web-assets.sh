#!/usr/bin/env bash
# Assembles the web page a `packfs mount --web-base URL` shows at its root into DIR: the
# checkout's web/ (index.html, packfs.js, packfs.css, MapLibre GL JS's licence) and MapLibre GL
# JS's script and stylesheet from PyPI's `maplibre` package (maplibre/srcjs), so that the page
# loads nothing from outside the mount. One place for the three that need it: scripts/setup.sh
# (into /usr/share/packfs/web), scripts/package.sh (into the .deb) and the web page's mount test
# (into its own directory, so it serves the checkout's files, never an installed copy).
#
#   scripts/web-assets.sh DIR      (DIR is created if needed; the page's files in it replaced)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: web-assets.sh DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
destination=$1
# find_spec locates the package without importing it (its import logs warnings).
srcjs=$(python3 -c '
import importlib.util, os, sys
spec = importlib.util.find_spec("maplibre")
if spec is None: sys.exit("the python3 module maplibre is missing (pip install maplibre)")
print(os.path.join(os.path.dirname(spec.origin), "srcjs"))')
for file in maplibre-gl.js maplibre-gl.css; do
  [ -f "$srcjs/$file" ] || { echo "web-assets.sh: $srcjs/$file is missing" >&2; exit 1; }
done
# web/maplibre-gl-LICENSE.txt is MapLibre GL JS's LICENSE.txt: the script must be the one it covers.
if ! head -c 300 "$srcjs/maplibre-gl.js" | grep -q '@license 3-Clause BSD'; then
  echo "web-assets.sh: $srcjs/maplibre-gl.js does not say it is MapLibre GL JS under the 3-Clause BSD licence" >&2
  exit 1
fi
install -d -m 0755 "$destination"
install -m 0644 "$here/web/index.html" "$here/web/packfs.js" "$here/web/packfs.css" \
  "$here/web/maplibre-gl-LICENSE.txt" "$srcjs/maplibre-gl.js" "$srcjs/maplibre-gl.css" "$destination/"
