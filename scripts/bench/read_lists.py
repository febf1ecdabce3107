#!/usr/bin/env python3
"""read.sh's reading orders besides the sorted list: the same tiles as a renderer asks for them.

viewports: every zoom's tiles cut into blocks of 4x3 tiles (a grid at a random offset), the blocks
of all zooms in random order, each block's tiles centre-out (nearest its centre first, as a
renderer requests a viewport). Only tiles the pack has, each once, so that the pass is cold from
its first tile to its last and reads the same bytes as the sorted pass.
shuffled: the whole list in random order.
The seed is fixed, so that every tree, round and run reads the same lists.
Usage: read_lists.py LIST VIEWPORTS SHUFFLED   (LIST: z/x/y.ext paths, one per line)"""
import random, sys

SEED, WIDE, HIGH = 43, 4, 3


def parse(path):
    z, x, rest = path.split("/")
    return int(z), int(x), int(rest.split(".")[0])


def viewports(paths, rng):
    by_zoom = {}
    for path in paths:
        z, x, y = parse(path)
        by_zoom.setdefault(z, []).append((x, y, path))
    blocks = []
    for z in sorted(by_zoom):
        dx, dy = rng.randrange(WIDE), rng.randrange(HIGH)  # the grid's offset
        cells = {}
        for x, y, path in by_zoom[z]:
            cells.setdefault(((x + dx) // WIDE, (y + dy) // HIGH), []).append((x, y, path))
        for (bx, by), tiles in sorted(cells.items()):
            # The block's centre, in tile units: its tiles nearest it first (ties by place).
            cx, cy = bx * WIDE - dx + (WIDE - 1) / 2, by * HIGH - dy + (HIGH - 1) / 2
            tiles.sort(key=lambda t: ((t[0] - cx) ** 2 + (t[1] - cy) ** 2, t[1], t[0]))
            blocks.append([path for _, _, path in tiles])
    rng.shuffle(blocks)
    return [path for block in blocks for path in block]


def main():
    paths = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    rng = random.Random(SEED)
    with open(sys.argv[2], "w") as out:
        out.write("".join(path + "\n" for path in viewports(paths, rng)))
    shuffled = sorted(paths)
    rng.shuffle(shuffled)
    with open(sys.argv[3], "w") as out:
        out.write("".join(path + "\n" for path in shuffled))


main()
