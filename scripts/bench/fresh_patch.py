#!/usr/bin/env python3
"""Helpers of fresh.sh's patch and touch parts (martin's formats, computed here without PackFS).

  fresh_patch.py patch BASE PERCENT OUT       a patch in martin's format giving PERCENT of BASE's
                                              tiles other real bytes (another tile of BASE's own
                                              pool); prints the patch's tile count
  fresh_patch.py reader ROOT LIST STOP        reads the files of LIST (under ROOT) round after
                                              round until STOP exists; prints reads and the
                                              slowest open+read+close in ms
  fresh_patch.py touch ROOT PERCENT           rewrites PERCENT of the .pbf files under ROOT with
                                              another file's bytes (new mtime: nginx's ETag
                                              changes); prints the count"""
import hashlib, os, sqlite3, sys, time

def agg_hash(rows):
    md5 = hashlib.md5()
    for z, x, y, data in rows:
        md5.update(f"{z}{x}{y}".encode())
        md5.update(data)
    return md5.hexdigest().upper()

def patch(base, percent, out):
    db = sqlite3.connect(base)
    rows = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3").fetchall()
    pool = sorted({bytes(r[3]) for r in rows}, key=len)
    place = {data: n for n, data in enumerate(pool)}
    step = max(1, round(100 / percent))
    changed = {}
    for i in range(0, len(rows), step):
        z, x, y, data = rows[i]
        changed[(z, x, y)] = pool[(place[bytes(data)] + 1) % len(pool)] if len(pool) > 1 else bytes(data) + b"\0"
    before = agg_hash(rows)
    after = agg_hash((z, x, y, changed.get((z, x, y), d)) for z, x, y, d in rows)
    if os.path.exists(out):
        os.remove(out)
    p = sqlite3.connect(out)
    p.executescript("""
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);""")
    with p:
        p.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)", ((z, x, y, d) for (z, x, y), d in changed.items()))
        p.executemany("INSERT INTO metadata VALUES (?, ?)", [("agg_tiles_hash_before_apply", before),
                                                            ("agg_tiles_hash_after_apply", after)])
    p.close()
    print(len(changed))

def reader(root, listing, stop):
    paths = [os.path.join(root, line.strip()) for line in open(listing) if line.strip()]
    reads, slowest = 0, 0.0
    while not os.path.exists(stop):
        for path in paths:
            start = time.perf_counter()
            fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
            while os.read(fd, 1 << 20):
                pass
            os.close(fd)
            slowest = max(slowest, time.perf_counter() - start)
            reads += 1
            if reads % 1000 == 0 and os.path.exists(stop):
                break
    print(reads, f"{slowest * 1000:.1f}")

def touch(root, percent):
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".pbf"))
    step = max(1, round(100 / percent))
    chosen = range(0, len(files), step)
    for n in chosen:
        path = files[n]
        data = open(files[(n + 1) % len(files)], "rb").read()
        if data == open(path, "rb").read():
            data += b"\0"
        open(path, "wb").write(data)
    print(len(chosen))

if __name__ == "__main__":
    {"patch": lambda a: patch(a[0], float(a[1]), a[2]), "reader": lambda a: reader(*a),
     "touch": lambda a: touch(a[0], float(a[1]))}[sys.argv[1]](sys.argv[2:])
