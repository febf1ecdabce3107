#!/usr/bin/env bash
# The test command: set up a fresh machine, build, run every test once (mount tests need root and
# /dev/fuse; with CI=true they fail rather than skip).
#
# Tests of pure logic run in a plain build; tests that start threads, processes, servers or mounts
# run in a ThreadSanitizer build, daemons and commands included, and fail on any report
# (scripts/testrun.py says which class is which). Each kind runs its classes in parallel shards
# (PACKFS_TEST_JOBS, default 3): most of a mount test's time is waiting for another process.
#
#   PACKFS_TESTS=plain ./scripts/test.sh    every test in the plain build (quick, no sanitizer)
#
# The long forms stay as scripts of their own (docs/testing.md, docs/reliability.md): sanitize.sh (the whole suite
# under ThreadSanitizer and AddressSanitizer), fuzz.sh, faults.sh, reliability.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh --tests
jobs="${PACKFS_TEST_JOBS:-3}"
logs="$(mktemp -d /tmp/packfs-tests.XXXXXX)"
started=$(date +%s)
swift build --build-tests
if [ "${PACKFS_TESTS:-}" = plain ]; then
    exec python3 scripts/testrun.py --bundle .build/debug/PackFSPackageTests.xctest --kind all --jobs "$jobs" \
        --logs "$logs/plain"
fi
status=0
echo "== plain build: tests of pure logic"
python3 scripts/testrun.py --bundle .build/debug/PackFSPackageTests.xctest --kind plain --jobs 2 \
    --logs "$logs/plain" || status=1
echo "== ThreadSanitizer build: tests with threads, processes, servers and mounts"
swift build --build-tests --sanitize=thread --scratch-path .build-thread
python3 scripts/testrun.py --bundle .build-thread/debug/PackFSPackageTests.xctest --kind sanitized \
    --jobs "$jobs" --logs "$logs/thread" --sanitizer-reports "$logs/thread-reports" || status=1
echo "== tests done in $(( $(date +%s) - started )) s (builds included), exit $status"
exit $status
