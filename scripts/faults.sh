#!/usr/bin/env bash
# The fault run's long form: the Helsinki pack (322 resources) through the fault server with all
# 12 fault kinds at once (2% of requests each, stall timeout 2 s), once per seed, each against a
# clean run of the same pack measured just before it (EveryFaultTests in DownloaderTests; CI
# runs one seed). Prints each seed's figures and the totals.
# usage: scripts/faults.sh [SEED...]   (default: seeds 1 to 6)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
seeds="${*:-1 2 3 4 5 6}"
swift build --build-tests >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
PACKFS_LONG=1 PACKFS_FAULT_SEEDS="$seeds" CI=true \
  swift test --skip-build --filter EveryFaultTests.testEveryFaultKindAtOnceCompletesByteExactWithinItsBound \
  >"$log" 2>&1 || status=$?
grep -E '^FAULTS|error:' "$log" || true
python3 - "$log" <<'PY'
import re, sys
runs = [dict(re.findall(r"(\S+)=([\d.]+)s?", line)) for line in open(sys.argv[1]) if line.startswith("FAULTS")]
if not runs:
    sys.exit("no FAULTS lines: see the test output above")
kinds = ["500", "502", "503", "429", "reset", "truncate", "length", "corrupt", "slow", "drip", "hang", "stall"]
total = lambda key: sum(float(run[key]) for run in runs)
print(f"\n{len(runs)} runs: clean {min(float(r['clean']) for r in runs):.2f}-{max(float(r['clean']) for r in runs):.2f} s, "
      f"faulty {min(float(r['faulty']) for r in runs):.2f}-{max(float(r['faulty']) for r in runs):.2f} s, "
      f"largest faulty/bound {max(float(r['faulty']) / float(r['bound']) for r in runs):.2f}")
print(f"requests {total('requests'):.0f}, faulty answers {total('faultyAnswers'):.0f}, retries {total('retries'):.0f}, "
      f"stalls abandoned {total('stalls'):.0f}, attempts started beside quiet ones {total('besideQuiet'):.0f}")
print("injected: " + ", ".join(f"{kind} {total(kind):.0f}" for kind in kinds))
PY
exit $status
