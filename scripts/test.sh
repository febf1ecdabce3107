#!/usr/bin/env bash
# The test command: set up a fresh machine, build, run every test (mount tests need root and /dev/fuse).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build --build-tests
swift test --skip-build
