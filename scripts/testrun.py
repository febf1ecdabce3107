#!/usr/bin/env python3
"""Runs the XCTest bundle's test classes in parallel shards and reports every test.

    scripts/testrun.py --bundle .build/debug/PackFSPackageTests.xctest --kind plain|sanitized|long|all
                       [--jobs N] [--logs DIR] [--sanitizer-reports DIR]

Kinds: a class is "sanitized" (run under ThreadSanitizer in CI) when it starts threads, processes,
servers or mounts: every class of DownloaderTests, PackLifecycleTests, CLITests and MountTests,
and any other class whose file (or whose superclass's file) uses TestServer, MountHelper,
Process, Command.run, Thread, DispatchQueue, concurrentPerform or TileDiff (which reads each
side on a thread of its own). The rest ("plain") test pure logic, SQLite files and formats in
the test process's one thread: a sanitizer adds nothing there but time. "long" classes (LONG,
below) take minutes of every core and are in neither kind: CI leaves them out and
scripts/long-tests.sh runs them; "all" is every class.

Classes, not tests, are the unit: a class's `class func setUp` (a server, a downloaded pack)
runs once for all of its tests, as in a serial run. Each shard is one process of the bundle,
given its classes as a comma-separated selector; shards are filled longest first (LPT) from the
per-class seconds in scripts/test-times.txt (a class missing there counts as 10 s), so that they
end together. XCTest's own lines ("Test Case '...' passed (N seconds)") are printed shard by shard
after the run, followed by one summary: tests run against tests listed, failures by name, and the
20 slowest tests. Exit status 1 if a test failed, a shard died, a listed test did not run, or a
sanitizer wrote a report into --sanitizer-reports.
"""
import argparse
import collections
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMES = ROOT / "scripts" / "test-times.txt"
DEFAULT_SECONDS = 10.0
RESULT = re.compile(r"^Test Case '(?:-\[)?([\w.]+)[ .](\w+)\]?' (passed|failed|skipped) \(([\d.]+) seconds\)")


def listed_tests(bundle):
    """`Target.Class/test` for every test the bundle holds."""
    output = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in output.splitlines() if re.match(r"^\w+\.\w+/\w+$", line.strip())]


# Too long for CI: DebianPackageTests builds the release binary with the static Swift runtime
# (about 400 s, most of it both cores, in a CI whose sanitized tests already keep them busy).
LONG = {"MountTests.DebianPackageTests"}

CONCURRENT_TARGETS = {"DownloaderTests", "PackLifecycleTests", "CLITests", "MountTests"}
CONCURRENT_MARKS = re.compile(
    r"TestServer|MountHelper|Process\(|Command\.run|Thread\.|DispatchQueue|concurrentPerform|TileDiff\(")
DECLARATION = re.compile(r"^(?:final |open |public )*class (\w+)\s*(?::\s*(\w+))?", re.M)


def concurrent_classes():
    """`Target.Class` of every class that starts threads, processes, servers or mounts."""
    found, parents = set(), {}
    for target in (ROOT / "Tests").iterdir():
        for source in target.rglob("*.swift"):
            text = source.read_text(errors="replace")
            for name, parent in DECLARATION.findall(text):
                parents[(target.name, name)] = parent
                if target.name in CONCURRENT_TARGETS or CONCURRENT_MARKS.search(text):
                    found.add((target.name, name))
    changed = True
    while changed:  # a subclass of a concurrent base class is concurrent too
        changed = False
        for (target, name), parent in parents.items():
            if (target, name) not in found and (target, parent) in found:
                found.add((target, name))
                changed = True
    return {f"{target}.{name}" for target, name in found}


def kind_of(name, concurrent):
    """"long", "sanitized" or "plain", for `Target.Class`."""
    return "long" if name in LONG else "sanitized" if name in concurrent else "plain"


def class_weights():
    weights = {}
    if TIMES.exists():
        for line in TIMES.read_text().splitlines():
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                weights[fields[1]] = float(fields[0])
    return weights


def shards_of(classes, jobs, weights):
    """Longest first into the least loaded shard."""
    shards = [[] for _ in range(max(1, jobs))]
    loads = [0.0] * len(shards)
    for name in sorted(classes, key=lambda c: (-weights.get(c, DEFAULT_SECONDS), c)):
        index = loads.index(min(loads))
        shards[index].append(name)
        loads[index] += weights.get(name, DEFAULT_SECONDS)
    return [(shard, load) for shard, load in zip(shards, loads) if shard]


def default_exit_signals():
    """In each test process, before exec: SIGHUP, SIGINT and SIGTERM as a terminal gives them. A
    runner started by nohup, or as a background job of a script, passes them on ignored, and an
    ignored SIGINT or SIGHUP is one libfuse leaves alone (as a daemon should: nohup means it), so
    the tests that stop a mount with a signal would wait for nothing (SignalTests, the daemon's
    SIGINT in PackManagementTests)."""
    for number in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


def run_shards(bundle, shards, logs, environment):
    processes = []
    for index, (classes, _) in enumerate(shards):
        log = open(logs / f"shard-{index}.log", "w")
        process = subprocess.Popen([bundle, ",".join(classes)], stdout=log, stderr=subprocess.STDOUT,
                                   env=environment, cwd=ROOT, preexec_fn=default_exit_signals)
        processes.append((process, log))
    statuses = []
    for process, log in processes:
        statuses.append(process.wait())
        log.close()
    return statuses


def record_times(shards, outcomes, path):
    """Adds this run's seconds per `Target.Class` to `path` (the weights of the next runs)."""
    weights = class_weights() if Path(path) == TIMES else {}
    sums = collections.defaultdict(float)
    for cls, _, _, seconds, shard in outcomes:
        full = [name for name in shards[shard][0] if name.split(".")[1] == cls]
        if len(full) == 1:
            sums[full[0]] += seconds
    weights.update(sums)
    lines = [f"{seconds:.1f} {name}" for name, seconds in sorted(weights.items(), key=lambda item: -item[1])]
    Path(path).write_text("# seconds per test class, as scripts/testrun.py --record measured them\n"
                          + "\n".join(lines) + "\n")


def report(shards, statuses, logs, tests, started, reports, record):
    # XCTest names a class without its target in its lines, and two targets may each have a
    # class of the same name: tests are counted by (class, test), as often as they are listed.
    results = collections.Counter()
    outcomes = []
    for index, status in enumerate(statuses):
        text = (logs / f"shard-{index}.log").read_text(errors="replace")
        print(f"== shard {index} ({len(shards[index][0])} classes, exit {status})")
        print(text, end="" if text.endswith("\n") else "\n")
        for line in text.splitlines():
            match = RESULT.match(line)
            if match:
                cls, test, outcome, seconds = match.groups()
                results[(cls.split(".")[-1], test)] += 1
                outcomes.append((cls.split(".")[-1], test, outcome, float(seconds), index))
    expected = collections.Counter((t.split(".")[1].split("/")[0], t.split("/")[1]) for t in tests)
    missing = sorted((expected - results).elements())
    failed = sorted((cls, test) for cls, test, outcome, _, _ in outcomes if outcome == "failed")
    found = sorted(reports.glob("report.*")) if reports else []
    print(f"== {len(outcomes)} of {len(tests)} tests ran in {time.time() - started:.0f} s: "
          f"{len(failed)} failed, {len(missing)} did not run, {len(found)} sanitizer report(s)")
    for cls, test in failed:
        print(f"   failed: {cls}.{test}")
    for cls, test in missing:
        print(f"   did not run: {cls}.{test}")
    for path in found[:5]:
        print(f"-- {path}")
        print("".join(path.read_text(errors="replace").splitlines(keepends=True)[:60]))
    print("== the 20 slowest tests")
    for cls, test, outcome, seconds, _ in sorted(outcomes, key=lambda item: -item[3])[:20]:
        print(f"   {seconds:8.2f} s  {cls}.{test} ({outcome})")
    if record:
        record_times(shards, outcomes, record)
    return 0 if not failed and not missing and not found and all(s == 0 for s in statuses) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--kind", choices=["plain", "sanitized", "long", "all"], default="all")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--logs", default="")
    parser.add_argument("--sanitizer-reports", default="")
    parser.add_argument("--record", default="", help="write the seconds per class measured to this file")
    arguments = parser.parse_args()
    concurrent = concurrent_classes()
    listed = listed_tests(arguments.bundle)
    absent = LONG - {t.split("/")[0] for t in listed}
    if absent:  # a renamed class would leave scripts/long-tests.sh running nothing
        sys.exit(f"testrun.py: LONG names {', '.join(sorted(absent))}, which the bundle does not hold")
    tests = [t for t in listed if arguments.kind in ("all", kind_of(t.split("/")[0], concurrent))]
    classes = sorted({t.split("/")[0] for t in tests})
    logs = Path(arguments.logs or f"/tmp/packfs-tests-{os.getpid()}")
    logs.mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ)
    reports = Path(arguments.sanitizer_reports) if arguments.sanitizer_reports else None
    if reports:
        reports.mkdir(parents=True, exist_ok=True)
        # halt_on_error=0: a report fails the run below, but the run goes on to find the others.
        environment["TSAN_OPTIONS"] = f"log_path={reports}/report halt_on_error=0 second_deadlock_stack=1"
        environment["ASAN_OPTIONS"] = f"log_path={reports}/report halt_on_error=0 detect_leaks=0"
    shards = shards_of(classes, arguments.jobs, class_weights())
    for index, (shard, load) in enumerate(shards):
        print(f"== shard {index}: {len(shard)} classes, about {load:.0f} s by scripts/test-times.txt", flush=True)
    started = time.time()
    statuses = run_shards(arguments.bundle, shards, logs, environment)
    sys.exit(report(shards, statuses, logs, tests, started, reports, arguments.record))


if __name__ == "__main__":
    main()
