#!/usr/bin/env bash
# The test command: set up a fresh machine, build, run every test (mount tests need root and /dev/fuse).
# With CI=true (as .ci/run sets) the short forms of the reliability suites follow (RELIABILITY.md):
# the whole suite again under ThreadSanitizer, with the `packfs` processes it starts, and each
# fuzz target for 10 s.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build --build-tests
swift test --skip-build
if [ "${CI:-}" = true ]; then
    ./scripts/sanitize.sh thread
    ./scripts/fuzz.sh 10
fi
