#!/bin/sh
# Release-build throughput of the HTTP client against `curl --parallel --parallel-max 20`, both
# fetching the same N tile URLs from one nginx (nginx-world.sh) on loopback.
#
# usage: bench-http.sh [--tiles N] [--pregzip] [--workers N] [--rounds N] [--work DIR]
#
# Package.swift exports no library, so the client is built in a scratch package under DIR whose
# targets are symlinks to this tree's sources (the C shims, Basics and HTTP, the client's own
# target) plus a small driver. Nothing in the tree is modified.
# Without --pregzip nginx gzips every response itself: on a 2-core machine its worker then becomes
# the bottleneck for any client that sends Accept-Encoding (curl --compressed included).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tiles=20000 pregzip="" workers=1 rounds=3 work=/tmp/packfs-bench-http
while [ $# -gt 0 ]; do
  case "$1" in
    --tiles) tiles=$2; shift 2 ;;
    --pregzip) pregzip=--pregzip; shift ;;
    --workers) workers=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "bench-http.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

pkg="$work/package"
mkdir -p "$pkg/Sources/bench"
for target in CCurl CZlib CDeflate CGlibc CCrypto Basics HTTP; do
  ln -sfn "$root/Sources/$target" "$pkg/Sources/$target"
done
cat > "$pkg/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "packfs-bench-http",
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl"),
        .systemLibrary(name: "CZlib"),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate"),
        .systemLibrary(name: "CGlibc"),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto"),
        .target(name: "Basics", dependencies: ["CZlib", "CDeflate", "CGlibc", "CCrypto"]),
        .target(name: "HTTP", dependencies: ["Basics", "CCurl", "CZlib", "CDeflate"]),
        .executableTarget(name: "bench", dependencies: ["HTTP"]),
    ],
    swiftLanguageModes: [.v5]
)
EOF
cat > "$pkg/Sources/bench/main.swift" <<'EOF'
import Foundation
import HTTP

// bench URLFILE ROUNDS: fetches every URL with 20 transfers in flight, ROUNDS times.
let urls = try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).split(separator: "\n").map(String.init)
let rounds = Int(CommandLine.arguments[2]) ?? 3

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

final class Tally: @unchecked Sendable {
    let condition = NSCondition()
    var done = 0, ok = 0
}

for round in 1...rounds {
    let tally = Tally()
    let client = try HTTPClient<Int>(configuration: HTTPClientConfiguration()) { completion in
        tally.condition.lock()
        tally.done += 1
        if case .success(.ok) = completion.outcome { tally.ok += 1 }
        if tally.done == urls.count { tally.condition.signal() }
        tally.condition.unlock()
    }
    let cpu = cpuSeconds(), start = Date()
    client.submit(contentsOf: urls.enumerated().map { HTTPRequest(url: $1, tag: $0) })
    tally.condition.lock()
    while tally.done < urls.count { tally.condition.wait() }
    tally.condition.unlock()
    let wall = Date().timeIntervalSince(start)
    print(String(format: "PackFS round %d: %d/%d ok, %.0f req/s (%.3f s, CPU %.3f s, %d connections)", round,
                 tally.ok, urls.count, Double(urls.count) / wall, wall, cpuSeconds() - cpu, client.statistics.connections))
    client.shutdown()
}
EOF
(cd "$pkg" && swift build -c release >/dev/null)

world="$work/world"
if [ ! -f "$world/tiles/bench/count-$tiles" ]; then
  rm -rf "$world" && mkdir -p "$world/styles" "$world/tiles"
  cp "$root/Fixtures/world/styles/bright.json" "$world/styles/"
  cp "$root/Fixtures/world/tiles/helsinki.json" "$world/tiles/"
  python3 - "$root/Fixtures/world/tiles" "$world/tiles/bench" "$tiles" <<'EOF'
import glob, os, sys
source, target, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
tiles = [open(p, "rb").read() for p in sorted(glob.glob(source + "/land/**/*.pbf", recursive=True))
         + sorted(glob.glob(source + "/helsinki/**/*.pbf", recursive=True))]
for i in range(count):
    os.makedirs(f"{target}/{i // 1000}", exist_ok=True)
    with open(f"{target}/{i // 1000}/{i % 1000}.pbf", "wb") as f:
        f.write(tiles[i % len(tiles)])
open(f"{target}/count-{count}", "w").close()
EOF
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$here/nginx-world.sh" --dir "$work/nginx" --port "$port" --world "$world" --workers "$workers" $pregzip \
  >"$work/nginx.out" 2>&1 &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$port/styles/bright.json"; do sleep 0.2; done

i=0; : > "$work/urls.txt"; : > "$work/curl.config"
while [ $i -lt "$tiles" ]; do
  url="http://127.0.0.1:$port/tiles/bench/$((i / 1000))/$((i % 1000)).pbf"
  echo "$url" >> "$work/urls.txt"
  printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >> "$work/curl.config"
  i=$((i + 1))
done

"$pkg/.build/release/bench" "$work/urls.txt" 1 >/dev/null  # warm-up: page cache, nginx
r=1
while [ $r -le "$rounds" ]; do
  start=$(date +%s.%N)
  curl --parallel --parallel-max 20 -s -K "$work/curl.config" 2>/dev/null
  end=$(date +%s.%N)
  python3 -c "import sys; t = float(sys.argv[2]) - float(sys.argv[1]); print(f'curl   round $r: {$tiles / t:.0f} req/s ({t:.3f} s)')" "$start" "$end"
  "$pkg/.build/release/bench" "$work/urls.txt" 1 | sed "s/round 1/round $r/"
  r=$((r + 1))
done
