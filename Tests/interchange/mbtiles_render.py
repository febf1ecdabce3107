#!/usr/bin/env python3
"""Renders a style twice with MapLibre Native (pymgl): as it is, and with some of its sources read
from MBTiles files through MapLibre's own `mbtiles://` file source; the pictures must be identical.

usage: mbtiles_render.py STYLE OUTDIR --source ID=FILE.mbtiles [...] [--view NAME:ZOOM:LON:LAT ...]
                         [--min-colours N] [--min-drawn FRACTION]

STYLE is a style.json path (typically a pack's in a PackFS mount); it is loaded by its file://
URL, so its glyphs, sprites and other sources are read where it points. The candidate is the same
document with each named source replaced by `{"type": ..., "url": "mbtiles:///abs/FILE"}` (its
`tileSize` kept): MapLibre then builds the source's TileJSON from the file's metadata and reads
its tiles from the file (TMS rows, gzip inflated). So the two pictures are equal only when the
file holds the same tiles and its metadata the same zoom range as the style's source.

For every view both are rendered at 512x512, pixel ratio 1 (render_compare.py's renderer), written
to OUTDIR/<view>-reference.png and OUTDIR/<view>-candidate.png (and <view>-diff.png where they
differ) and compared exactly. Guards against a comparison that proves nothing: no view may be a
single colour, and the first view must hold at least --min-colours colours (default 20) with at
least --min-drawn (default 0.05) of its pixels other than the background colour.

Exit status: 0 when every view is identical and no guard fails; 1 otherwise; 2 on bad usage or
when pymgl cannot be imported.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "render"))
import render_compare  # noqa: E402  (sets EGL_PLATFORM; shares the renderer and PNG writer)


def source_pair(text):
    identifier, separator, path = text.partition("=")
    if not separator or not identifier or not path:
        raise argparse.ArgumentTypeError(f"not ID=FILE.mbtiles: {text}")
    return identifier, os.path.abspath(path)


def candidate_style(style_path, replacements):
    with open(style_path, encoding="utf-8") as handle:
        document = json.load(handle)
    for identifier, path in replacements:
        declared = document["sources"][identifier]
        replaced = {key: declared[key] for key in ("type", "tileSize") if key in declared}
        replaced["url"] = "mbtiles://" + path
        document["sources"][identifier] = replaced
    return json.dumps(document)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("style")
    parser.add_argument("outdir")
    parser.add_argument("--source", action="append", type=source_pair, required=True)
    parser.add_argument("--view", action="append", type=render_compare.parse_view)
    parser.add_argument("--min-colours", type=int, default=20)
    parser.add_argument("--min-drawn", type=float, default=0.05)
    arguments = parser.parse_args()
    try:
        import pymgl
    except ImportError as error:
        print(f"mbtiles_render: pymgl is not importable: {error}", file=sys.stderr)
        return 2
    os.makedirs(arguments.outdir, exist_ok=True)
    reference = "file://" + os.path.abspath(arguments.style)
    candidate = candidate_style(arguments.style, arguments.source)
    with open(os.path.join(arguments.outdir, "candidate-style.json"), "w", encoding="utf-8") as handle:
        handle.write(candidate)
    views = arguments.view or render_compare.DEFAULT_VIEWS
    failures = []
    for index, view in enumerate(views):
        name = view[0]
        try:
            a = render_compare.render(pymgl, reference, view)
            b = render_compare.render(pymgl, candidate, view)
        except RuntimeError as error:
            failures.append(f"{name}: did not render: {render_compare.describe(error)}")
            continue
        count = render_compare.compare(arguments.outdir, name, a, b)
        if count:
            failures.append(f"{name}: {count} pixels differ")
        problems = render_compare.content_problems(f"{name} reference", a, index == 0,
                                                   arguments.min_colours, arguments.min_drawn)
        failures += problems
        colours = len(set(render_compare.pixels(a)))
        print(f"{name} zoom {view[1]:g} centre {view[2]:g},{view[3]:g}: {count} differing pixels"
              f" (reference {colours} colours){'; ' + '; '.join(problems) if problems else ''}", flush=True)
    return render_compare.verdict(arguments.outdir, failures, views)


if __name__ == "__main__":
    sys.exit(main())
