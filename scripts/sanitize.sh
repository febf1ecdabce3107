#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer (docs/reliability.md, "Sanitizers").
#
#   scripts/sanitize.sh [thread|address|all] [--filter REGEX]
#
# Each sanitizer builds into a scratch path of its own (.build-thread, .build-address), then runs
# `swift test` with it. Every process of the run reports to one folder (log_path): the test
# runner, and the `packfs` daemons and commands the tests start, whose stderr nobody reads.
# The run fails if a test fails or if any process wrote a report. Slow: expect 5-10x the time
# of a plain run; the tests wait for conditions, never for fixed times, so they pass slowed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

kinds=thread
filter=()
while [ $# -gt 0 ]; do
    case "$1" in
        thread|address) kinds="$1" ;;
        all) kinds="thread address" ;;
        --filter) filter=(--filter "$2"); shift ;;
        *) echo "usage: $0 [thread|address|all] [--filter REGEX]" >&2; exit 2 ;;
    esac
    shift
done

export CI="${CI:-true}"
failed=0
for kind in $kinds; do
    scratch=".build-$kind"
    reports="$(mktemp -d "/tmp/packfs-$kind-reports.XXXXXX")"
    echo "== $kind sanitizer: building into $scratch"
    if ! swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" > "$reports/build-output.txt" 2>&1; then
        grep -E "error" "$reports/build-output.txt" | head -20
        echo "== $kind sanitizer: the build failed"; failed=1; continue
    fi
    echo "== $kind sanitizer: testing (reports in $reports)"
    # halt_on_error=0: a report fails the run below, but the run goes on to find the others.
    # detect_leaks=0: LeakSanitizer counts the Swift runtime's and Foundation's process-lifetime
    # caches (metadata, thread-local storage) as leaks; PackFS's own leaks show as memory growth
    # in the soak test instead.
    started=$(date +%s)
    status=0
    TSAN_OPTIONS="log_path=$reports/report halt_on_error=0 second_deadlock_stack=1" \
    ASAN_OPTIONS="log_path=$reports/report halt_on_error=0 detect_leaks=0" \
        swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "${filter[@]}" \
        > "$reports/test-output.txt" 2>&1 || status=$?
    grep -E "Executed [0-9]+ tests?, with" "$reports/test-output.txt" | tail -1 || true
    grep -E "error: |failed \(" "$reports/test-output.txt" | head -40 || true
    found=$(find "$reports" -name 'report.*' | wc -l)
    echo "== $kind sanitizer: exit $status, $found process(es) with reports, $(( $(date +%s) - started )) s"
    for report in $(find "$reports" -name 'report.*' | head -5); do
        echo "-- $report"; head -60 "$report"
    done
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then failed=1; fi
done
exit $failed
