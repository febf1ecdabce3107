#!/usr/bin/env bash
# The tests too long for CI (scripts/testrun.py's LONG: DebianPackageTests, whose release build
# takes minutes of every core), in the plain build, with CI=true: a missing tool fails, never skips.
# Run it before resolving a change to the package, the binary's size or the mount scripts
# (docs/testing.md). Needs root (it installs the package with dpkg, and removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh --tests
# lintian: Debian's package checker, run on the package (CI, without this class, needs none).
dpkg -s lintian > /dev/null 2>&1 || { apt-get update && apt-get install -y lintian; }
swift build --build-tests
CI=true exec python3 scripts/testrun.py --bundle .build/debug/PackFSPackageTests.xctest --kind long --jobs 1 \
    --logs "$(mktemp -d /tmp/packfs-long-tests.XXXXXX)"
