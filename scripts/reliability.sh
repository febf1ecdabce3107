#!/usr/bin/env bash
# The long reliability runs (issue 10, items 4 and 8), then their figures:
#   - the crash loop: SIGKILL the mount daemon during downloads, refreshes, redefinitions and
#     rm -r, and packfs download/refresh/remove likewise (PACKFS_LONG=1: 20 kills per kind;
#     PACKFS_CRASH_KILLS=N for another count);
#   - the soak: 12 readers while a download, a refresh, a redefinition and a removal run
#     (PACKFS_LONG=1: 180 s; PACKFS_SOAK_SECONDS=S for another length).
# Needs root and /dev/fuse (mount tests). CI runs the short forms with the rest of the suite.
# Usage: scripts/reliability.sh [extra swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
log=$(mktemp /tmp/packfs-reliability.XXXXXX)
status=0
PACKFS_LONG=1 CI=true swift test --skip-build \
    --filter 'MountTests\.(CrashLoopTests|RemovalCrashTests|CommandCrashTests|SoakTests)' "$@" 2>&1 \
    | tee "$log" || status=$?

echo
echo "== reliability figures (full log: $log)"
# Each test prints one line: RELIABILITY <name> key=value ...
grep '^RELIABILITY ' "$log" | sed 's/^RELIABILITY //' | sort || true
awk '
    /^RELIABILITY crash-/ {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); sum[kv[1]] += kv[2] }
        kinds++
    }
    /^RELIABILITY soak / {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); soak[kv[1]] = kv[2] }
    }
    END {
        printf "crash loop: %d kinds, %d kills, %d integrity checks ok, %d resumes, %d refetches (must be 0)\n",
            kinds, sum["kills"], sum["integrity_ok"], sum["resumes"], sum["refetches"]
        if ("reads" in soak)
            printf "soak: %s s, %s reads (%s exact, %s ENOENT), %s errors (must be 0), RSS %s-%s KiB (first/last quarter %s/%s)\n",
                soak["seconds"], soak["reads"], soak["exact"], soak["enoent"], soak["errors"],
                soak["rss_min_kib"], soak["rss_max_kib"], soak["rss_first_quarter_kib"], soak["rss_last_quarter_kib"]
    }' "$log"
grep -E '^soak: ' "$log" || true
if [ "$status" -ne 0 ]; then echo "FAILED (swift test exit $status)"; fi
exit "$status"
