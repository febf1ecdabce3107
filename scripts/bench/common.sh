# Shared by the benchmarks (source it): a release build of packfs, and generated tiles served by
# nginx on loopback.

# Builds packfs in release mode from the project root (the working directory afterwards) and
# sets $packfs to the binary.
build_packfs() {
  [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
  cd "$(dirname "${BASH_SOURCE[0]}")/../.."
  swift build -c release --product packfs >/dev/null
  packfs="$(swift build -c release --show-bin-path)/packfs"
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
