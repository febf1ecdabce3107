#!/usr/bin/env python3
"""read.sh's arithmetic and table. RUNS holds one file per tree and pass, SIDE-PASS, a line
"rate seconds bytes user system" per round (read_tiles.c: the last two the readers' own CPU
seconds), `inflate` ("seconds tiles bytes failed" per round, inflate_floor.c), SIDE-PASS-cpu (the
server's CPU seconds in each pass: "total user system"), SIDE-PASS-requests (what
reached the server and its page cache in each pass, read_requests.py) and `memory` (the /dev/fuse
daemon's VmHWM in KiB after each cold pass, the warm one last). Rates are medians over rounds; a ratio is the median of the ratios within each round (a
slow spell of the machine slows both sides of a round; a ratio of two medians would compare
passes from different rounds). With PACKFS_BENCH_RESULTS set, appends each round's figures to it
(all.sh). Usage: read_report.py RUNS TILES THREADS MEAN_STORED_BYTES FLOOR_THREADS [SIDES]: with SIDES
(PACKFS_BENCH_SIDES: some trees, cold passes only), only each tree's rates and CPU and each PackFS
tree's ratios to the others on its transport."""
import os, statistics, sys

runs, count, threads, stored, floor_threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
CHOSEN = sys.argv[6].split() if len(sys.argv) > 6 else None
SIDES = ["files", "mount", "mount_ring", "bare", "bare_ring", "floor", "floor_ring"]
# The passes read.sh made (viewN only when asked for; no warm one with SIDES), in the order the table shows them.
PASSES = [(p, label) for p, label in [
    ("cold1", "cold, sorted, 1 reader"), ("cold", f"cold, sorted, {threads} readers"),
    ("view1", "viewports, cold, 1 reader"), ("viewN", f"viewports, cold, {threads} readers"),
    ("shuffle1", "shuffled, cold, 1 reader"), ("reread", "first re-read, 1 reader"),
    ("warm", "warm, 1 reader")] if os.path.exists(os.path.join(runs, f"{(CHOSEN or SIDES)[0]}-{p}"))]
TRANSPORTS = [("", "/dev/fuse"), ("_ring", "io_uring")]
TREES = [("mount", "PackFS"), ("bare", "bare_fuse"), ("floor", "bare_db")]


def lines(name):
    return [line.split() for line in open(os.path.join(runs, name))]


def rates(side, p):
    return [float(words[0]) for words in lines(f"{side}-{p}")]


def tiles_read(p):
    """Tiles read in one pass of p: a warm pass reads the list 5 times."""
    return count * (5 if p == "warm" else 1)


def cpu_per_tile(side, p, part=0):
    """Microseconds of the server's CPU per tile read, each round: part 0 all of it, 1 in user space
    (its own code, SQLite's, the inflate), 2 in the kernel."""
    return [float(words[part]) * 1e6 / tiles_read(p) for words in lines(f"{side}-{p}-cpu")]


def readers_kernel_per_tile(side, p):
    """Microseconds the readers spent in the kernel per tile read, each round (path walks, FUSE's round
    trips, the page cache's copies): what a tree costs its readers beyond the server's own CPU."""
    return [float(words[4]) * 1e6 / tiles_read(p) for words in lines(f"{side}-{p}")]


def requests(side, p):
    """Each round's counts: {"LOOKUP": n, ..., "evicted": pages, "damon": pages, "lost": events,
    "by": "COMM:PAGES,..."} (who dropped the pages, most first)."""
    return [{key: value if key == "by" else int(value) for key, value in (word.split("=", 1) for word in words)}
            for words in lines(f"{side}-{p}-requests")]


def ratios(a, b, p):
    return [x / y for x, y in zip(rates(a, p), rates(b, p))]


def record(name, value):
    if os.environ.get("PACKFS_BENCH_RESULTS"):
        with open(os.environ["PACKFS_BENCH_RESULTS"], "a") as results:
            results.write(f"{name} {value}\n")


def record_rounds():
    record("# read_tiles", count)
    record("# threads", threads)
    for p, _ in PASSES:
        for side in SIDES:
            for rate in rates(side, p):
                record(f"read.{p}.{side}_rate", rate)
        for suffix, _ in TRANSPORTS:
            mount = "mount" + suffix
            pairs = [(mount, "files"), (mount, "bare" + suffix), (mount, "floor" + suffix),
                     ("bare" + suffix, "files"), ("floor" + suffix, "files")]
            for a, b in pairs:
                # /dev/fuse's keep the names all.sh's summary knows (read.cold.mount_bare...);
                # io_uring's are named after their first tree alone (read.cold.mount_ring_bare).
                for value in ratios(a, b, p):
                    record(f"read.{p}.{a}_{b.removesuffix(suffix)}", value)
        for tree, _ in TREES:
            for suffix, _ in TRANSPORTS:
                for micros in cpu_per_tile(tree + suffix, p):
                    record(f"read.{p}.{tree + suffix}_cpu_us", micros)
    for seconds, tiles, _, _ in lines("inflate"):
        record("read.inflate_rate", int(tiles) / float(seconds))
        for side in SIDES:
            for counts in requests(side, p):
                record(f"read.{p}.{side}_requests", sum(counts.get(op, 0) for op in opcodes(side, p)))
                record(f"read.{p}.{side}_evicted", counts["evicted"])
    memory = [int(words[0]) for words in lines("memory")]
    for kib in memory[:-1]:
        record("read.cold.daemon_mb", kib / 1024)
    record("read.warm.daemon_mb", memory[-1] / 1024)


def table():
    first = PASSES[0][0]  # every pass reads every tile once (warm: 5 times)
    raw = int(lines(f"files-{first}")[0][2]) / count / (5 if first == "warm" else 1)
    cold_rounds, warm_rounds = len(rates("files", first)), len(rates("files", "warm"))
    print(f"tiles: {count:,} real vector tiles, each unique (real_tiles.py): mean {stored / 1024:.1f} KB stored, "
          f"{raw / 1024:.1f} KB raw; {os.cpu_count()} cores; bare_db: {floor_threads} threads")
    print(f"{cold_rounds} cold rounds, {warm_rounds} warm; rates: medians (tiles/s); ratios: medians of the ratios "
          "within each round")
    heads = ["files", "PackFS", "bare_fuse", "bare_db", "PackFS/files", "PackFS/bare_fuse", "PackFS/bare_db"]
    print(f"{'pass':<27} {'transport':<10}" + "".join(f" {h:>{max(9, len(h))}}" for h in heads))
    for p, label in PASSES:
        for suffix, transport in TRANSPORTS:
            figures = [statistics.median(rates("files", p))] + \
                      [statistics.median(rates(tree + suffix, p)) for tree, _ in TREES]
            shares = [statistics.median(ratios("mount" + suffix, b, p))
                      for b in ("files", "bare" + suffix, "floor" + suffix)]
            cells = [f"{f:,.0f}" for f in figures] + [f"{r:.2f}" for r in shares]
            print(f"{label if not suffix else '':<27} {transport:<10}" +
                  "".join(f" {c:>{max(9, len(h))}}" for c, h in zip(cells, heads)))
    if any(p == "reread" for p, _ in PASSES):
        undisturbed_rereads()
    for tree, name in TREES:
        speedups = ", ".join(f"{p} {statistics.median(ratios(tree + '_ring', tree, p)):.2f}x" for p, _ in PASSES)
        print(f"io_uring / /dev/fuse, {name}: {speedups}")
    print("server CPU per tile (user + system, all threads; medians), and io_uring's against /dev/fuse's:")
    for p, label in PASSES:
        cells = []
        for tree, name in TREES:
            classic, ring = (statistics.median(cpu_per_tile(tree + suffix, p)) for suffix, _ in TRANSPORTS)
            change = f"{(ring / classic - 1) * 100:+.0f}%" if classic else "n/a"  # warm: the kernel serves
            cells.append(f"{name} {classic:.1f} -> {ring:.1f} us ({change})")
        print(f"  {label}: " + ", ".join(cells))
    inflate = [(float(s), int(t), int(b)) for s, t, b, _ in lines("inflate")]
    seconds, tiles, made = sorted(inflate)[len(inflate) // 2]
    print(f"inflate alone (libdeflate, 1 thread, the pack's stored tiles in memory): {tiles / seconds:,.0f} tiles/s, "
          f"{made / seconds / 2**20:,.0f} MB/s of raw tiles ({seconds / tiles * 1e6:.1f} us a tile), median of "
          f"{len(inflate)}")
    memory = [int(words[0]) for words in lines("memory")]
    print(f"PackFS daemon peak memory (/dev/fuse): cold {max(memory[:-1]) / 1024:.1f} MB, warm {memory[-1] / 1024:.1f} MB, "
          f"serving {raw * count / 2**20:.1f} MB of tiles")
    print("targets (issue 12, /dev/fuse): cold mount/files >= 0.7, cold mount/bare >= 0.5, warm mount/bare >= 0.98;"
          " (issue 43) first re-read mount/files >= 0.95")
    print("every pass (tiles/s):")
    for p, _ in PASSES:
        for side in SIDES:
            print(f"  {side + '-' + p:<19} " + " ".join(f"{r:.0f}" for r in rates(side, p)))


def opcodes(side, p):
    return sorted({key for counts in requests(side, p) for key in counts} - {"evicted", "damon", "lost", "by"})


def disturbed(counts):
    """Pages of the tree dropped by a process other than DAMON's (a drop_caches of another
    benchmark on this machine, reclaim): that round's re-read is not a re-read at the page cache."""
    return any(pair and not pair.startswith("kdamond") for pair in counts["by"].split(","))


def undisturbed_rereads():
    """The first re-read's ratios over the rounds in which nothing but DAMON dropped the two trees'
    pages, from their cold pass to the end of the re-read."""
    cells = []
    for a, b in [("mount", "files"), ("mount_ring", "files"), ("mount", "bare"), ("mount_ring", "bare_ring"),
                 ("mount", "floor"), ("mount_ring", "floor_ring")]:
        kept = [r for r, ca, cb, va, vb in zip(ratios(a, b, "reread"), requests(a, "reread"), requests(b, "reread"),
                                               requests(a, "view1"), requests(b, "view1"))
                if not any(map(disturbed, (ca, cb, va, vb)))]
        cells.append(f"{a}/{b} " + (f"{statistics.median(kept):.2f} ({len(kept)})" if kept else "none"))
    print("first re-read over the rounds no other process dropped either tree's pages in (ratio, rounds): " +
          ", ".join(cells))


def dropper(counts):
    """Who dropped pages besides kdamond, if anyone did: '; by COMM:PAGES,...'."""
    others = [pair for pair in counts["by"].split(",") if pair and not pair.startswith("kdamond")]
    return f"; by {','.join(others)}" if others else ""


def share(op, n, reads):
    """A count per tile read, or in all when under one in a thousand tiles (a connection's first
    OPEN or FLUSH, answered ENOSYS once)."""
    return f"{op} {n / reads:.3f}" if n >= reads / 1000 else f"{op} {n:g} in all"


def request_table():
    """What reached each server per tile read, by opcode, and the pages dropped from each tree's page
    cache (by DAMON's kdamond among them), medians over rounds; then every round's totals."""
    print("requests per tile read, by opcode, and pages evicted from the tree's page cache per tile"
          " (in the pass; reread: and the wait before it; warm: since the tree's previous pass; medians over rounds;"
          " 'damon': by kdamond):")
    for p, label in PASSES:
        reads = tiles_read(p)
        print(f"  {label}:")
        for side in SIDES:
            rounds = requests(side, p)
            cells = [share(op, statistics.median(c.get(op, 0) for c in rounds), reads) for op in opcodes(side, p)]
            evicted = statistics.median(c["evicted"] for c in rounds) / reads
            damon = statistics.median(c["damon"] for c in rounds) / reads
            cells.append(f"evicted {evicted:.3f} (damon {damon:.3f})")
            print(f"    {side:<11} " + ", ".join(cells or ["none"]))
    print("every round's totals, first re-read and warm: requests by opcode; pages evicted (by kdamond) in the"
          " pass (reread: and the wait before it, then in the cold pass before that, whose pages it reads again;"
          " warm: since the tree's previous pass)")
    for p in [p for p, _ in PASSES if p in ("reread", "warm")]:
        for side in SIDES:
            before = requests(side, "view1") if p == "reread" else []
            rounds = [" ".join([f"{op} {c[op]}" for op in opcodes(side, p) if c.get(op)] or ["0 requests"]) +
                      f", evicted {c['evicted']} ({c['damon']}{dropper(c)})" +
                      (f", in the cold pass {b['evicted']} ({b['damon']}{dropper(b)})" if b else "")
                      for c, b in zip(requests(side, p), before or [None] * len(requests(side, p)))]
            print(f"  {side + '-' + p:<19} " + "; ".join(rounds))
    lost = sum(c["lost"] for p, _ in PASSES for side in SIDES for c in requests(side, p))
    print(f"trace events lost (buffer overrun): {lost}" + ("" if not lost else ": the counts above are short"))


def chosen_table():
    """PACKFS_BENCH_SIDES: per pass, each tree's median rate and CPU per tile, and each PackFS tree's
    ratios to the other trees on its transport (and to files), round by round."""
    print(f"{len(rates(CHOSEN[0], PASSES[0][0]))} cold rounds of {', '.join(CHOSEN)}; rates: medians (tiles/s); "
          "ratios: medians of the ratios within each round, then each round's")
    for p, label in PASSES:
        print(f"{label}:")
        for side in CHOSEN:
            cpu = "" if side == "files" else (
                f", server CPU {statistics.median(cpu_per_tile(side, p)):.1f} us a tile (user "
                f"{statistics.median(cpu_per_tile(side, p, 1)):.1f}, system {statistics.median(cpu_per_tile(side, p, 2)):.1f})")
            readers = f", readers in the kernel {statistics.median(readers_kernel_per_tile(side, p)):.1f} us a tile"
            print(f"  {side:<11} {statistics.median(rates(side, p)):,.0f}{cpu}{readers}")
        for a in [side for side in CHOSEN if side.startswith("mount")]:
            ring = a.endswith("_ring")
            for b in [side for side in CHOSEN if side != a and (side == "files" or side.endswith("_ring") == ring)]:
                each = ratios(a, b, p)
                print(f"  {a}/{b}: {statistics.median(each):.3f} (mean {statistics.mean(each):.3f}; " +
                      " ".join(f"{r:.2f}" for r in each) + ")")


if CHOSEN:
    chosen_table()
    sys.exit(0)
record_rounds()
table()
request_table()
