#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer targets (Tests/Fuzz, only with PACKFS_FUZZ=1) with libFuzzer and
# AddressSanitizer in their own scratch path, seeds each target's corpus from the hostile-input
# corpus and the good fixtures, runs each for SECONDS, and prints per target the executions and
# the findings (crashes, hangs past 10 s, memory past 3 GB). Exits 1 when any target found one;
# its input is in .build-fuzz/findings/<target>/: keep it in Fixtures/hostile/fuzz-findings/<target>/
# (HostileTreeTests replays every file there), fix the cause, run again.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, every target)
#   targets: region style tilejson geojson regiontext database pmtiles
# CI's short form is `scripts/fuzz.sh 10`; the working corpus in .build-fuzz/corpus/ grows from run
# to run, so long runs resume where the last one stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(region style tilejson geojson regiontext database pmtiles)
scratch=.build-fuzz
hostile=Fixtures/hostile
world=Fixtures/world

# Two -sanitize flags would be one: swiftc keeps the last, and without "fuzzer" no module gets
# coverage counters (libFuzzer then sees every input as the same).
for target in "${targets[@]}"; do
  PACKFS_FUZZ=1 swift build --scratch-path "$scratch" --product "fuzz-$target" -Xswiftc -sanitize=fuzzer,address \
    2>&1 | grep -v "Cannot export local symbol" | grep -E "error|warning:|Compiling|Build" | grep -v "^\[" || true
  [ -x "$scratch/debug/fuzz-$target" ] || { echo "fuzz.sh: fuzz-$target did not build" >&2; exit 2; }
done

# Seeds, read-only: the hostile files of the target's kind and the good documents beside them.
seeds() {
  case "$1" in
    region) echo "$hostile/regions $hostile/fuzz-findings/region $scratch/seeds/region" ;;
    style) echo "$hostile/styles $world/styles $hostile/fuzz-findings/style" ;;
    tilejson) echo "$hostile/tilejson $scratch/seeds/tilejson $hostile/fuzz-findings/tilejson" ;;
    geojson) echo "$hostile/geojson $world/data $hostile/fuzz-findings/geojson" ;;
    regiontext) echo "$scratch/seeds/regiontext $hostile/fuzz-findings/regiontext" ;;
    database) echo "$hostile/databases $hostile/fuzz-findings/database" ;;
    pmtiles) echo "$scratch/seeds/pmtiles $hostile/archives $hostile/fuzz-findings/pmtiles" ;;
  esac
}
# Inputs longer than this are cut to it (seeds too): the giant and 100,000-deep seeds are the unit
# tests' to run whole; under libFuzzer they cut executions from thousands a second to tens, and a
# database seed with a 300 MB zlib bomb costs a second for every mutation of it.
max_len() {
  case "$1" in
    region | regiontext | database) echo 65536 ;;
    pmtiles) echo 262144 ;;  # the fixture archive whole (162 KB), the leaves seed past its directories
    *) echo 32768 ;;
  esac
}
mkdir -p "$scratch/seeds/region" "$scratch/seeds/tilejson"
cat > "$scratch/seeds/region/helsinki.json" <<'EOF'
{"style": "http://127.0.0.1:8181/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0,
 "maxzoom": 14, "pixel_ratio": 2, "include_ideographs": false, "metadata": {"trip": "Helsinki weekend"}}
EOF
cat > "$scratch/seeds/region/geometry.json" <<'EOF'
{"style_url": "mapbox://styles/mapbox/streets-v12", "min_zoom": 0, "max_zoom": 10, "geometry":
 {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Polygon",
 "coordinates": [[[24.9, 60.1], [25.0, 60.1], [25.0, 60.2], [24.9, 60.1]]]}, "properties": {}}]}}
EOF
cp "$world/tiles/helsinki.json" "$scratch/seeds/tilejson/"
# Archives: the fixture's, and one with leaf directories (zooms 0-7, the reference writer).
mkdir -p "$scratch/seeds/pmtiles"
cp "$world/tiles/helsinki.pmtiles" "$scratch/seeds/pmtiles/"
[ -s "$scratch/seeds/pmtiles/leaves.pmtiles" ] ||
  python3 Tests/interchange/pmtiles_write.py "$scratch/seeds/pmtiles/leaves.pmtiles" 7 >/dev/null
# The region-text target reads a chunk plan first (FuzzBodies.regionText): 4 writes of 5, 64, 0
# and the rest of the bytes.
mkdir -p "$scratch/seeds/regiontext"
for file in "$hostile"/regions/*.json "$scratch"/seeds/region/*.json; do
  { printf '\003\005\100\000\001'; cat "$file"; } > "$scratch/seeds/regiontext/$(basename "$file")"
done
# Junk first (NUL bytes, a PNG's signature) and blanks before an object: refused, or judged whole.
{ printf '\001\010\000'; head -c 64 /dev/zero; } > "$scratch/seeds/regiontext/nul"
{ printf '\000\211PNG\r\n\032\n'; } > "$scratch/seeds/regiontext/png"
{ printf '\002\100\001\000'; head -c 300 /dev/zero | tr '\0' ' '; cat "$scratch/seeds/region/helsinki.json"; } \
  > "$scratch/seeds/regiontext/blanks"

status=0
summary=()
for target in "${targets[@]}"; do
  corpus="$scratch/corpus/$target" findings="$scratch/findings/$target" log="$scratch/logs/$target.log"
  mkdir -p "$corpus" "$findings" "$scratch/logs" "$hostile/fuzz-findings/$target"
  before=$(find "$findings" -type f | wc -l)
  # shellcheck disable=SC2046
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$scratch/debug/fuzz-$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -max_len="$(max_len "$target")" \
    -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" $(seeds "$target") > "$log" 2>&1 || true
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -1)
  [ -n "$runs" ] || runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1) ?"
  found=$(( $(find "$findings" -type f | wc -l) - before ))
  summary+=("$(printf '%-11s %8s s %10s executions %3d findings  corpus %s' "$target" "${runs#* }" "${runs%% *}" \
    "$found" "$(find "$corpus" -type f | wc -l)")")
  if [ "$found" -gt 0 ]; then
    status=1
    echo "fuzz-$target found $found input(s) in $findings (log: $log):" >&2
    grep -E "ERROR|Fatal error|deadly signal|timeout|out-of-memory|SUMMARY" "$log" | head -5 >&2
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
